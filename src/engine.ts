import * as cache from '@actions/cache'
import * as core from '@actions/core'
import * as exec from '@actions/exec'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import * as path from 'node:path'
import { getErrorMessage, UserError } from './errors.js'
import { listFiles } from './files.js'
import { actionRoot, toolDir } from './paths.js'
import { engineEnvironment } from './perfgate.js'

/**
 * The engine is the perfgate command, built from this action's own engine/
 * sources with the runner's Go toolchain: the same code a user runs
 * locally with `go run ./engine/cmd/perfgate`. The binary is cached per Go
 * version and engine source hash.
 */
export interface Engine {
  readonly path: string
  readonly goVersion: string
  readonly cacheHit: boolean
}

/** goVersion runs `go env GOVERSION`; a missing toolchain is a UserError. */
export async function goVersion(): Promise<string> {
  let out: exec.ExecOutput
  try {
    out = await exec.getExecOutput('go', ['env', 'GOVERSION'], { silent: true, ignoreReturnCode: true })
  } catch {
    throw new UserError(
      'perfgate needs a Go toolchain to build the engine and your service, and `go` is not on PATH. Add actions/setup-go before perfgate, e.g. `- uses: actions/setup-go@v5` with `go-version-file: go.mod`.',
    )
  }
  if (out.exitCode !== 0) {
    throw new UserError(
      `\`go env GOVERSION\` failed (exit ${out.exitCode}): ${out.stderr.trim()}. Check the Go installation set up by actions/setup-go.`,
    )
  }
  return out.stdout.trim()
}

/** sourceHash hashes the engine's Go sources, go.mod and go.sum, in a stable order. */
export async function sourceHash(engineDir: string): Promise<string> {
  const hash = createHash('sha256')
  const files = (await listFiles(engineDir)).filter((f) => /\.go$|(^|\/)go\.(mod|sum)$|\.tmpl$/.test(f) && !f.includes('/testdata/')).sort()
  for (const f of files) {
    hash
      .update(f)
      .update('\0')
      .update(await readFile(path.join(engineDir, f)))
      .update('\0')
  }
  return hash.digest('hex').slice(0, 20)
}

/**
 * buildEngine returns a perfgate binary for this runner: from the cache when
 * one was saved for the same Go version and sources, otherwise built and
 * saved. Cache trouble only warns.
 */
export async function buildEngine(actionRoot: string, toolDir: string): Promise<Engine> {
  const engineDir = path.join(actionRoot, 'engine')
  if (!existsSync(path.join(engineDir, 'go.mod'))) {
    throw new Error(`the perfgate engine sources are missing from the action at ${engineDir}`)
  }
  const version = await goVersion()
  const key = `perfgate-engine-${process.platform}-${process.arch}-${version}-${await sourceHash(engineDir)}`
  const dir = path.join(toolDir, key)
  const binary = path.join(dir, 'perfgate')
  let cacheHit = existsSync(binary)
  if (!cacheHit && cacheAvailable()) {
    try {
      cacheHit = (await cache.restoreCache([dir], key)) === key && existsSync(binary)
    } catch (error) {
      core.warning(`Restoring the perfgate engine from the cache failed; building it instead: ${getErrorMessage(error)}`)
    }
  }
  if (!cacheHit) {
    const built = await exec.getExecOutput('go', ['build', '-trimpath', '-o', binary, './cmd/perfgate'], {
      cwd: engineDir,
      ignoreReturnCode: true,
      env: { ...process.env, CGO_ENABLED: '0' },
    })
    if (built.exitCode !== 0) {
      throw new Error(`building the perfgate engine with ${version} failed (exit ${built.exitCode}):\n${built.stderr.trim()}`)
    }
    if (cacheAvailable()) {
      try {
        await cache.saveCache([dir], key)
      } catch (error) {
        core.warning(`Saving the perfgate engine to the cache failed; the next run builds it again: ${getErrorMessage(error)}`)
      }
    }
  }
  core.info(`perfgate engine: ${binary} (${version}, ${cacheHit ? 'from cache' : 'built'})`)
  return { path: binary, goVersion: version, cacheHit }
}

/**
 * cacheAvailable asks the toolkit whether a cache service is configured.
 * A toolkit without the question (@github/local-action's stand-in has only
 * restoreCache and saveCache) is taken as yes: restore and save then say
 * for themselves, and their failures only warn.
 */
function cacheAvailable(): boolean {
  try {
    return cache.isFeatureAvailable()
  } catch {
    return true
  }
}

/**
 * buildFreshEngine builds the engine from this action's own sources into a
 * new temporary directory under tempRoot, every time: no tool cache, no
 * actions/cache. It is for mode comment, which holds a write token: on a
 * self-hosted runner an earlier pull request's job could have planted a
 * binary at the tool cache's path or saved one under the cache key. The
 * build gets the environment without the action's secrets, as the engine
 * does. (The Go toolchain and Go's own caches are the runner's: a runner
 * that runs untrusted jobs cannot be made safe for privileged ones by the
 * action.)
 */
export async function buildFreshEngine(actionRoot: string, tempRoot: string): Promise<Engine> {
  const engineDir = path.join(actionRoot, 'engine')
  if (!existsSync(path.join(engineDir, 'go.mod'))) {
    throw new Error(`the perfgate engine sources are missing from the action at ${engineDir}`)
  }
  const version = await goVersion()
  const binary = path.join(await mkdtemp(path.join(tempRoot, 'perfgate-engine-')), 'perfgate')
  const built = await exec.getExecOutput('go', ['build', '-trimpath', '-o', binary, './cmd/perfgate'], {
    cwd: engineDir,
    ignoreReturnCode: true,
    env: { ...engineEnvironment(process.env), CGO_ENABLED: '0' },
  })
  if (built.exitCode !== 0) {
    throw new Error(`building the perfgate engine with ${version} failed (exit ${built.exitCode}):\n${built.stderr.trim()}`)
  }
  core.info(`perfgate engine: ${binary} (${version}, built fresh for this step)`)
  return { path: binary, goVersion: version, cacheHit: false }
}

/** buildOwnEngine builds (or restores) the engine from this action's own sources, in a log group. */
export function buildOwnEngine(): Promise<Engine> {
  return core.group('Build the perfgate engine', () => buildEngine(actionRoot(), toolDir()))
}
