import * as exec from '@actions/exec'
import { readFile } from 'node:fs/promises'
import * as path from 'node:path'
import { UserError } from './errors.js'

/**
 * EngineToolchain is the Go that builds the engine from source, where no
 * release asset serves: the runner's own Go when it is at least the
 * version engine/go.mod pins, otherwise the pinned one, which Go (1.21 and
 * newer) downloads itself when GOTOOLCHAIN names it. A service on Go 1.24
 * therefore still gets an engine built with Go 1.26, and the service itself
 * keeps being built with the runner's Go by the engine.
 */
export interface EngineToolchain {
  /** goVersion is the Go that builds, e.g. go1.26.0. */
  readonly goVersion: string
  /** runnerGo is the Go on the runner's PATH, e.g. go1.24.3. */
  readonly runnerGo: string
  /** env is what `go build` of the engine adds to its environment. */
  readonly env: Readonly<Record<string, string>>
  /** why says which Go and why, for the log. */
  readonly why: string
}

/**
 * pinnedToolchain reads the toolchain a go.mod names: its `toolchain` line,
 * else its `go` line ("1.26" is the release go1.26.0).
 */
export function pinnedToolchain(goMod: string): string {
  const toolchain = /^toolchain\s+(go\d+\.\d+\.\d+)\s*$/m.exec(goMod)
  if (toolchain) return toolchain[1]
  const go = /^go\s+(\d+\.\d+)(\.\d+)?\s*$/m.exec(goMod)
  if (!go) throw new Error("the engine's go.mod has no `go 1.N.M` line to pin its toolchain from")
  return `go${go[1]}${go[2] ?? '.0'}`
}

/**
 * goVersionAtLeast says whether Go version have (go1.26.3, go1.27rc1)
 * is want (go1.26.0) or newer. A pre-release counts as older than its .0;
 * a version it cannot read (a devel build) is not trusted to be newer.
 */
export function goVersionAtLeast(have: string, want: string): boolean {
  const parse = (v: string): number[] | undefined => {
    const m = /^go(\d+)\.(\d+)(?:\.(\d+)|(rc|beta)\d+)?$/.exec(v)
    if (!m) return undefined
    return [Number(m[1]), Number(m[2]), m[3] !== undefined ? Number(m[3]) : m[4] ? -1 : 0]
  }
  const h = parse(have)
  const w = parse(want)
  if (!h || !w) return false
  for (let i = 0; i < 3; i++) if (h[i] !== w[i]) return h[i] > w[i]
  return true
}

/** goVersion runs `go env GOVERSION`; a missing toolchain is a UserError. */
export async function goVersion(env: Record<string, string | undefined> = process.env): Promise<string> {
  let out: exec.ExecOutput
  try {
    out = await exec.getExecOutput('go', ['env', 'GOVERSION'], { silent: true, ignoreReturnCode: true, env: env as Record<string, string> })
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

/**
 * engineToolchain chooses the Go that builds the engine in engineDir. The
 * runner's Go is asked with GOTOOLCHAIN=local, so that neither the user's
 * go.mod nor a GOTOOLCHAIN setting can make it answer for another Go.
 */
export async function engineToolchain(engineDir: string, env: Record<string, string | undefined>): Promise<EngineToolchain> {
  const pinned = pinnedToolchain(await readFile(path.join(engineDir, 'go.mod'), 'utf8'))
  const local = await goVersion({ ...env, GOTOOLCHAIN: 'local' })
  if (goVersionAtLeast(local, pinned)) {
    return {
      goVersion: local,
      runnerGo: local,
      env: { GOTOOLCHAIN: 'local' },
      why: `${local}, the runner's Go (the engine needs ${pinned} or newer)`,
    }
  }
  return {
    goVersion: pinned,
    runnerGo: local,
    env: { GOTOOLCHAIN: pinned },
    why: `${pinned}, pinned by the engine's go.mod (the runner's ${local} is older; Go downloads ${pinned} itself)`,
  }
}

/**
 * toolchainHint adds what to do when the engine's build failed with a
 * runner's Go too old to download the pinned one (before Go 1.21, GOTOOLCHAIN
 * does not exist).
 */
export function toolchainHint(toolchain: EngineToolchain): string {
  if (toolchain.goVersion === toolchain.runnerGo || goVersionAtLeast(toolchain.runnerGo, 'go1.21.0')) return ''
  return ` The runner's ${toolchain.runnerGo} cannot download ${toolchain.goVersion} (Go 1.21 or newer can): set up Go 1.21 or newer with actions/setup-go before perfgate.`
}
