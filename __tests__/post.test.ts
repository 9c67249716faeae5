import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { sharedEngine } from './support/shared-engine.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { alive, post, stopEngine, sweepArgs } = await import('../src/post.js')
const state = await import('../src/state.js')

// A real process named perfgate (a copy of sleep) stands in for an engine
// that main left running when the job was cancelled.
const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-post-'))
const fakeEngine = path.join(tmp, 'perfgate')
copyFileSync('/bin/sleep', fakeEngine)

const startEngine = () => {
  const child = spawn(fakeEngine, ['60'], { stdio: 'ignore' })
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
  return { pid: child.pid!, exited }
}

const originalEnv = { PATH: process.env.PATH, KUBECONFIG: process.env.KUBECONFIG }
afterEach(() => {
  reset()
  process.env.PATH = originalEnv.PATH
  if (originalEnv.KUBECONFIG === undefined) delete process.env.KUBECONFIG
  else process.env.KUBECONFIG = originalEnv.KUBECONFIG
})

describe('post', () => {
  it('stops an engine that is still running', async () => {
    const engine = startEngine()
    recorded.state.perfgatePid = String(engine.pid)
    await post()
    expect(await engine.exited).toBe('SIGTERM')
    expect(recorded.infos.join('\n')).toContain(`stopping the perfgate engine (PID ${engine.pid})`)
  })

  it('leaves a process alone that is not perfgate (a recycled PID)', async () => {
    const other = spawn('/bin/sleep', ['60'], { stdio: 'ignore' })
    await stopEngine(other.pid!)
    expect(other.exitCode).toBeNull()
    other.kill()
  })

  it('uploads what main left behind, and only warns when that fails', async () => {
    const results = path.join(tmp, 'results')
    mkdirSync(results, { recursive: true })
    writeFileSync(path.join(results, 'report.json'), '{}')
    recorded.state.resultsDir = results
    recorded.state.artifactName = 'perfgate-results-attempt-1'
    // No artifact service here (no ACTIONS_RUNTIME_TOKEN): the upload fails.
    await post()
    expect(recorded.warnings.join('\n')).toMatch(/post: uploading the results left in .* failed/)
    expect(recorded.failed).toEqual([])
  })

  it('does nothing when main uploaded already', async () => {
    recorded.state.resultsDir = tmp
    recorded.state.uploaded = 'true'
    await post()
    expect(recorded.warnings).toEqual([])
    expect(recorded.failed).toEqual([])
  })
})

// Under sudo the sweep reads the config as root, and the config may be the
// pull request's: post says which target to sweep, so that a kubeconfig the
// config names is loaded only for target kubernetes.
describe('sweepArgs', () => {
  const run = { binary: '/opt/perfgate', viaSudo: true, config: '/work/perfgate.yml', target: '', base: '' }
  it("passes the target input, which overrides the config's target", () => {
    expect(sweepArgs({ ...run, target: 'local' }, true)).toEqual(['sweep', '--target', 'local', '--config', '/work/perfgate.yml'])
  })
  it("leaves the config's target to the engine when the input is empty", () => {
    expect(sweepArgs(run, true)).toEqual(['sweep', '--config', '/work/perfgate.yml'])
  })
  it("after a gate, takes the target from the base commit's perfgate.yml, as the gate did", () => {
    expect(sweepArgs({ ...run, base: 'c0ffee' }, true)).toEqual(['sweep', '--config', '/work/perfgate.yml', '--base', 'c0ffee'])
    expect(sweepArgs({ ...run, base: 'c0ffee', target: 'local' }, true)).toEqual([
      'sweep',
      '--target',
      'local',
      '--config',
      '/work/perfgate.yml',
    ])
    expect(sweepArgs({ ...run, base: 'c0ffee' }, false)).toEqual(['sweep'])
  })
  it('passes no config that is gone', () => {
    expect(sweepArgs({ ...run, target: 'docker' }, false)).toEqual(['sweep', '--target', 'docker'])
  })
  it("reads a target saved by an older main as the config's", () => {
    recorded.state.perfgateEngine = JSON.stringify({ binary: '/opt/perfgate', viaSudo: true, config: '/work/perfgate.yml' })
    expect(state.engineRun()).toEqual(run)
  })
})

describe('alive', () => {
  it('counts a process this user may not signal (EPERM) as alive, as the engine does', () => {
    const exited = spawnSync('/bin/true')
    expect(alive(exited.pid)).toBe(false)
    if (process.getuid?.() !== 0) {
      expect(alive(1)).toBe(true) // init is root's: EPERM, as the engine under sudo is to the runner's user
      return
    }
    // As root: another user's process, seen with this process's effective
    // uid dropped to a third user, answers kill(2) with EPERM.
    const other = spawn('/bin/sleep', ['60'], { stdio: 'ignore', uid: 65534, gid: 65534 })
    try {
      process.seteuid!(54321)
      let seen: boolean
      try {
        seen = alive(other.pid!)
      } finally {
        process.seteuid!(0)
      }
      expect(seen).toBe(true)
    } finally {
      other.kill()
    }
  })
})

// The engine's own sweep, run by post: the engine is built from engine/,
// and a kind stand-in on PATH lists clusters named as the engine names
// them (kind cannot create clusters on the machine this is developed on)
// and records what it is asked to delete. Docker and Kubernetes are absent.
// As root the engine takes kind only from a PATH root alone can write
// (engine/internal/privilege/tool_path.go), never this stand-in, so the
// engine runs as a user, as the runner's user without sudo: under root (as
// CI runs these), through setpriv as nobody.
describe("post runs the engine's sweep", () => {
  let engine: string
  const bin = path.join(tmp, 'bin')
  const calls = path.join(tmp, 'kind-calls.log')

  beforeAll(() => {
    // The suite's one build of the engine, as the Action builds it.
    engine = asUser(sharedEngine())
    mkdirSync(bin, { recursive: true })
  })

  function fakeKind(clusters: string[], deleteExit = 0): void {
    writeFileSync(
      path.join(bin, 'kind'),
      `#!/bin/sh
echo "$*" >> "${calls}"
case "$1 $2" in
"get clusters") printf '%s\\n' ${clusters.join(' ')} ;;
"delete cluster") echo "kind could not delete $4" >&2; exit ${deleteExit} ;;
esac
`,
    )
    chmodSync(path.join(bin, 'kind'), 0o755)
    writeFileSync(calls, '')
    chmodSync(calls, 0o666) // the engine may run as nobody (asUser)
    process.env.PATH = bin
    process.env.KUBECONFIG = path.join(tmp, 'no-kubeconfig')
  }

  /**
   * asUser is the engine to run: itself when this test is not root, else a
   * wrapper that runs a world-readable copy of it as nobody.
   */
  function asUser(built: string): string {
    if (process.getuid?.() !== 0) return built
    chmodSync(tmp, 0o755)
    const copy = path.join(tmp, 'perfgate-engine')
    copyFileSync(built, copy)
    chmodSync(copy, 0o755)
    const wrapper = path.join(tmp, 'perfgate-as-nobody')
    writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ${copy} "$@"\n`)
    chmodSync(wrapper, 0o755)
    return wrapper
  }

  /** hostIdentity asks the engine, which names everything it creates after it. */
  async function hostIdentity(): Promise<string> {
    fakeKind([])
    recorded.state.perfgateEngine = JSON.stringify({ binary: engine, viaSudo: false, config: path.join(tmp, 'none.yml') })
    await post()
    const identity = /host identity ([0-9a-f]{12})/.exec(recorded.infos.join('\n'))?.[1]
    reset()
    if (!identity) throw new Error('perfgate sweep did not say its host identity')
    return identity
  }

  it("deletes a gone perfgate's kind cluster of this host, and leaves a live one's and another host's", async () => {
    const host = await hostIdentity()
    const gone = spawnSync('/bin/true').pid
    const dead = `perfgate-${host}-${gone}-abcdef`
    const live = `perfgate-${host}-${process.pid}-123456`
    fakeKind([dead, live, `perfgate-0f0f0f0f0f0f-${gone}-abcdef`, 'dev'])
    recorded.state.perfgateEngine = JSON.stringify({ binary: engine, viaSudo: false, config: path.join(tmp, 'none.yml') })
    await post()
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual(['get clusters', `delete cluster --name ${dead}`])
    const log = recorded.infos.join('\n')
    expect(log).toContain(`kind: removed kind cluster ${dead}`)
    expect(log).toContain('docker: skipped, the docker command is not installed')
    expect(recorded.warnings).toEqual([])
  })

  it('only warns, naming the cluster, when the sweep cannot delete it', async () => {
    const host = await hostIdentity()
    const dead = `perfgate-${host}-${spawnSync('/bin/true').pid}-abcdef`
    fakeKind([dead], 1)
    recorded.state.perfgateEngine = JSON.stringify({ binary: engine, viaSudo: false, config: path.join(tmp, 'none.yml') })
    await post()
    expect(recorded.warnings.join('\n')).toMatch(
      new RegExp(`perfgate sweep.*left something behind \\(exit 1\\)[^]*could not delete kind cluster ${dead}`),
    )
    expect(recorded.failed).toEqual([])
  })

  it('does not run without an engine that main started', async () => {
    fakeKind([`perfgate-0f0f0f0f0f0f-1-abcdef`])
    await post()
    expect(readFileSync(calls, 'utf8')).toBe('')
  })
})

// afterAll, not process.on('exit'): vitest's fork pool ends its workers
// without an exit event, which left a 70 MB copy of the engine in /tmp
// after every run.
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
