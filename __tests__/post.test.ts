import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { post, stopEngine } = await import('../src/post.js')

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

afterEach(reset)

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

process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))
