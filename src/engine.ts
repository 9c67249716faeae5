import * as cache from '@actions/cache'
import * as core from '@actions/core'
import * as exec from '@actions/exec'
import { existsSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  chooseReleaseAsset,
  downloadReleaseAsset,
  fileMatches,
  releaseDownloadBase,
  releasePin,
  ReleaseUnavailable,
  type ReleaseAsset,
  type ReleasePin,
} from './engine-release.js'
import { engineCacheKey, sourceHash } from './engine-key.js'
import { engineToolchain, toolchainHint, type EngineToolchain } from './engine-toolchain.js'
import { getErrorMessage, UserError } from './errors.js'
import { actionRoot, toolDir } from './paths.js'
import { engineEnvironment } from './perfgate.js'

export { sourceHash } from './engine-key.js'
export { goVersion } from './engine-toolchain.js'

/**
 * The engine is the perfgate command. A released action downloads the
 * asset its release built for this runner and checks it against the
 * checksum compiled into the action (engine-release.ts); anywhere else (a
 * branch or commit, an arch without an asset, a download that failed) it is
 * built from this action's own engine/ sources, the same code a user runs
 * locally with `go run ./engine/cmd/perfgate`, with the Go engine/go.mod
 * pins or a newer one on the runner (engine-toolchain.ts). Built binaries
 * are cached per Go version and engine source hash.
 */
export interface Engine {
  readonly path: string
  readonly goVersion: string
  readonly cacheHit: boolean
}

/**
 * Runner is what decides between a release asset and a build: the action's
 * pin, the runner's platform and arch, the action's ref (for the log) and
 * where releases are downloaded from. Tests give their own.
 */
export interface Runner {
  readonly pin: ReleasePin
  readonly platform: string
  readonly arch: string
  readonly ref: string
  readonly downloadBase: string
}

/** thisRunner is the Runner of this process. */
export function thisRunner(): Runner {
  return {
    pin: releasePin,
    platform: process.platform,
    arch: process.arch,
    ref: process.env.GITHUB_ACTION_REF ?? '',
    downloadBase: releaseDownloadBase(),
  }
}

/**
 * buildEngine returns a perfgate binary for this runner: the release's
 * asset when one serves (kept in toolDir, its sha256 checked again at every
 * use), otherwise a build from source, from the cache when one was saved for
 * the same Go version and sources, else built and saved. Cache trouble only
 * warns.
 */
export async function buildEngine(actionRoot: string, toolDir: string, runner: Runner = thisRunner()): Promise<Engine> {
  const engineDir = engineSources(actionRoot)
  const hash = await sourceHash(engineDir)
  const choice = chooseReleaseAsset(runner.pin, hash, runner, runner.downloadBase)
  let reason: string
  if ('url' in choice) {
    const binary = path.join(toolDir, `perfgate-release-v${choice.version}-${choice.name}`, 'perfgate')
    if (await fileMatches(binary, choice.sha256)) {
      core.info(
        `perfgate engine: ${binary} (release v${choice.version}'s ${choice.name}, sha256 ${choice.sha256} verified, from the tool cache)`,
      )
      return { path: binary, goVersion: choice.toolchain, cacheHit: true }
    }
    const downloaded = await downloadRelease(choice, binary)
    if (downloaded) return downloaded
    reason = `the release asset ${choice.name} could not be downloaded from ${choice.url}`
  } else {
    reason = choice.reason
  }
  const toolchain = await sourceToolchain(engineDir, reason, process.env)
  const key = engineCacheKey(toolchain.goVersion, hash)
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
    await compileEngine(engineDir, binary, toolchain, process.env)
    if (cacheAvailable()) {
      try {
        await cache.saveCache([dir], key)
      } catch (error) {
        core.warning(`Saving the perfgate engine to the cache failed; the next run builds it again: ${getErrorMessage(error)}`)
      }
    }
  }
  core.info(`perfgate engine: ${binary} (${toolchain.goVersion}, ${cacheHit ? 'from cache' : 'built'})`)
  return { path: binary, goVersion: toolchain.goVersion, cacheHit }
}

/** engineSources is the action's engine/ directory, which every action carries. */
function engineSources(actionRoot: string): string {
  const engineDir = path.join(actionRoot, 'engine')
  if (!existsSync(path.join(engineDir, 'go.mod'))) {
    throw new Error(`the perfgate engine sources are missing from the action at ${engineDir}`)
  }
  return engineDir
}

/**
 * downloadRelease downloads and verifies a release asset to binary. A
 * download that did not happen warns and returns undefined (the caller
 * builds from source); one that does not verify throws.
 */
async function downloadRelease(asset: ReleaseAsset, binary: string): Promise<Engine | undefined> {
  try {
    await downloadReleaseAsset(asset, binary)
  } catch (error) {
    if (!(error instanceof ReleaseUnavailable)) throw error
    core.warning(
      `The perfgate engine's release asset ${asset.name} could not be downloaded (${error.message}); building the engine from source instead.`,
    )
    return undefined
  }
  core.info(`perfgate engine: ${binary} (release v${asset.version}'s ${asset.name} from ${asset.url}, sha256 ${asset.sha256} verified)`)
  return { path: binary, goVersion: asset.toolchain, cacheHit: false }
}

/**
 * sourceToolchain chooses the Go that builds the engine and logs why the
 * engine is built at all; without Go it says both.
 */
async function sourceToolchain(engineDir: string, reason: string, env: Record<string, string | undefined>): Promise<EngineToolchain> {
  let toolchain: EngineToolchain
  try {
    toolchain = await engineToolchain(engineDir, env)
  } catch (error) {
    if (error instanceof UserError) throw new UserError(`${reason}, and building the perfgate engine from source failed: ${error.message}`)
    throw error
  }
  core.info(`${reason}; building from source with ${toolchain.why}`)
  return toolchain
}

/** compileEngine builds engineDir's perfgate, static, with the chosen toolchain. */
async function compileEngine(
  engineDir: string,
  binary: string,
  toolchain: EngineToolchain,
  env: Record<string, string | undefined>,
): Promise<void> {
  const built = await exec.getExecOutput('go', ['build', '-trimpath', '-o', binary, './cmd/perfgate'], {
    cwd: engineDir,
    ignoreReturnCode: true,
    env: { ...(env as Record<string, string>), CGO_ENABLED: '0', ...toolchain.env },
  })
  if (built.exitCode !== 0) {
    throw new Error(
      `building the perfgate engine with ${toolchain.goVersion} failed (exit ${built.exitCode}):\n${built.stderr.trim()}${toolchainHint(toolchain)}`,
    )
  }
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
 * buildFreshEngine gets the engine into a new temporary directory under
 * tempRoot, every time: no tool cache, no actions/cache. It is for the
 * modes that write or keep main's record: comment and publish, which hold
 * write tokens, and record and trend, which run as root and whose results
 * become main's history and trend issue (freshOwnEngine). On a self-hosted
 * runner an earlier pull request's job could have planted a binary at the
 * tool cache's path, and a cache entry is only as trusted as every job
 * that can save under its key and scope: a pull_request_target or push
 * job that ran a branch's code saves into the default branch's scope,
 * which every scheduled run restores from. A sha256 of the built binary
 * stored beside it would be written by the same jobs, so it proves
 * nothing; only the checksum compiled into a released action does
 * (engine-release.ts), and the release asset is used when there is one. A release asset is downloaded afresh
 * and checked against the checksum compiled into this action; a build gets
 * the environment without the action's secrets, as the engine does. (The Go
 * toolchain and Go's own caches are the runner's: a runner that runs
 * untrusted jobs cannot be made safe for privileged ones by the action.)
 */
export async function buildFreshEngine(actionRoot: string, tempRoot: string, runner: Runner = thisRunner()): Promise<Engine> {
  const engineDir = engineSources(actionRoot)
  const binary = path.join(await mkdtemp(path.join(tempRoot, 'perfgate-engine-')), 'perfgate')
  const choice = chooseReleaseAsset(runner.pin, await sourceHash(engineDir), runner, runner.downloadBase)
  let reason: string
  if ('url' in choice) {
    const downloaded = await downloadRelease(choice, binary)
    if (downloaded) return downloaded
    reason = `the release asset ${choice.name} could not be downloaded from ${choice.url}`
  } else {
    reason = choice.reason
  }
  const env = engineEnvironment(process.env)
  const toolchain = await sourceToolchain(engineDir, reason, env)
  await compileEngine(engineDir, binary, toolchain, env)
  core.info(`perfgate engine: ${binary} (${toolchain.goVersion}, built fresh for this step)`)
  return { path: binary, goVersion: toolchain.goVersion, cacheHit: false }
}

/**
 * freshOwnEngine is buildFreshEngine of this action's own engine under
 * RUNNER_TEMP, in a log group: modes record and trend run only an engine
 * this step built or verified. Go's build cache keeps a rebuild of
 * unchanged sources to seconds.
 */
export function freshOwnEngine(): Promise<Engine> {
  return core.group('Build the perfgate engine', () => buildFreshEngine(actionRoot(), process.env.RUNNER_TEMP || os.tmpdir()))
}

/**
 * buildOwnEngine builds (or restores) the engine from this action's own
 * sources, in a log group. Mode gate only: it builds and runs the pull
 * request's code anyway, with the same rights.
 */
export function buildOwnEngine(): Promise<Engine> {
  return core.group('Build the perfgate engine', () => buildEngine(actionRoot(), toolDir()))
}
