import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { FakeGitHub } from './support/fake-github.js'
import { git } from './support/git.js'
import { historyLine } from './support/history-line.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))

const { openHistory, pairFlags, recordFlags, saveHistory } = await import('../src/history.js')
const { getInputs } = await import('../src/inputs.js')
const { parseTrend } = await import('../src/trend.js')
const { updateTrendIssue } = await import('../src/publish.js')
const { trendMarker } = await import('../src/trend-issue.js')

const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-history-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const event = { name: 'schedule', owner: 'acme', repo: 'shop', sha: 'a'.repeat(40), defaultBranch: 'main', pushedBranch: '' }
const inputs = (values: Record<string, string> = {}) => getInputs((name) => ({ token: 't0ken', ...values })[name] ?? '')
const line = historyLine

let gh: FakeGitHub
beforeEach(async () => {
  reset()
  gh = new FakeGitHub()
  await gh.start()
  process.env.GITHUB_API_URL = gh.url
  process.env.RUNNER_TEMP = tmp
  process.env.GITHUB_WORKSPACE = tmp
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

describe('openHistory', () => {
  it('gives the gate no history, quietly, when the branch does not exist yet', async () => {
    expect(await openHistory(inputs(), event, 'gate')).toBeUndefined()
    expect(recorded.warnings).toEqual([])
  })

  it('gives the gate no history, quietly, when the token may not read the branch', async () => {
    gh.fail('GET /repos/acme/shop/git/ref/heads/perfgate-data', { status: 403, message: 'Resource not accessible by integration' })
    expect(await openHistory(inputs(), event, 'gate')).toBeUndefined()
    expect(recorded.warnings).toEqual([])
  })

  it('gives the gate the branch it finds', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    const history = await openHistory(inputs(), event, 'gate')
    expect(history?.branch?.snapshot.shas.size).toBe(1)
  })

  it('lets record measure without the history when the branch cannot be read, and says so', async () => {
    gh.fail('GET /repos/acme/shop/git/ref/heads/perfgate-data', { status: 403, message: 'Resource not accessible by integration' })
    const history = await openHistory(inputs(), event, 'record')
    expect(history?.dir).toBeTruthy()
    expect(history?.branch).toBeUndefined()
    expect(recorded.warnings.join()).toContain('contents: read')
  })

  it('uses a directory as it is, and refuses a trend without any history', async () => {
    expect(await openHistory(inputs({ history: 'perf/history' }), event, 'record')).toEqual({ dir: path.join(tmp, 'perf/history') })
    expect(await openHistory(inputs({ history: 'none' }), event, 'record')).toBeUndefined()
    await expect(openHistory(inputs({ history: 'none' }), event, 'trend')).rejects.toThrow(
      "mode trend needs a history, and 'history' is none",
    )
  })
})

describe('saveHistory', () => {
  it('warns, naming contents: write, when the token may not write (403), and keeps going', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    const history = await openHistory(inputs(), event, 'record')
    writeFileSync(path.join(history!.dir, 'perfgate.jsonl'), `${line('e1')}\n${line('e2')}\n`)
    const records = path.join(tmp, 'history-entry.json')
    writeFileSync(records, `${line('e2')}\n`)
    gh.fail('PUT /repos/acme/shop/contents/history/perfgate.jsonl', { status: 403, message: 'Resource not accessible by integration' })
    expect(await saveHistory(inputs(), history, records, '/no/engine', 'perfgate: record')).toBe('')
    expect(recorded.warnings.join()).toContain('`permissions: contents: write`')
    expect(recorded.errors).toEqual([])
  })

  it('writes a new entry back to the branch', async () => {
    const history = await openHistory(inputs(), event, 'record')
    writeFileSync(path.join(history!.dir, 'perfgate.jsonl'), `${line('e1')}\n`)
    const records = path.join(tmp, 'history-entry.json')
    writeFileSync(records, `${line('e1')}\n`)
    expect(await saveHistory(inputs(), history, records, '/no/engine', 'perfgate: record')).toBe('')
    expect(gh.git.files('perfgate-data')?.['history/perfgate.jsonl']).toBe(`${line('e1')}\n`)
  })

  it('says so when the engine wrote no records, and writes nothing', async () => {
    const history = await openHistory(inputs(), event, 'record')
    expect(await saveHistory(inputs(), history, path.join(tmp, 'missing.json'), '/no/engine', 'm')).toBe('')
    expect(recorded.warnings.join()).toContain('wrote no missing.json')
    expect(gh.count('git/create-ref')).toBe(0)
  })

  it('leaves a directory history to the engine, which wrote it in place', async () => {
    const history = await openHistory(inputs({ history: 'perf' }), event, 'record')
    expect(await saveHistory(inputs({ history: 'perf' }), history, path.join(tmp, 'x'), '/no/engine', 'm')).toBe('')
    expect(gh.requests).toHaveLength(0)
  })
})

describe('recordFlags', () => {
  it("names the artifact, the run and the checkout's commit", async () => {
    const repo = path.join(tmp, 'repo')
    mkdirSync(repo, { recursive: true })
    git(repo, 'init', '-q')
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'x')
    const head = git(repo, 'rev-parse', 'HEAD')
    const flags = await recordFlags('perfgate-results-attempt-1', event, repo, {
      GITHUB_RUN_ID: '42',
      GITHUB_SERVER_URL: 'https://github.com',
    })
    expect(flags).toEqual([
      '--artifact-name',
      'perfgate-results-attempt-1',
      '--run-id',
      '42',
      '--run-url',
      'https://github.com/acme/shop/actions/runs/42',
      '--commit',
      head,
    ])
    expect(await recordFlags('n', event, tmp, {})).toEqual(['--artifact-name', 'n'])
  })
})

describe('pairFlags', () => {
  it('pairs with the last recording only where there is a history to find it in', () => {
    const history = { dir: '/h' }
    expect(pairFlags('last', history)).toEqual(['--pair-with', 'last'])
    expect(pairFlags('v1.4.0', history)).toEqual(['--pair-with', 'v1.4.0'])
    expect(pairFlags('v1.4.0', undefined)).toEqual(['--pair-with', 'v1.4.0'])
    expect(pairFlags('none', history)).toEqual([])
    expect(pairFlags('last', undefined)).toEqual([])
    expect(recorded.infos.join('\n')).toContain('with history: none, tonight is recorded alone')
  })
})

describe('parseTrend', () => {
  it('reads the alarm and refuses what this action cannot read', () => {
    const trend = { schema: 1, config: 'perfgate', alarm: { state: 'open', title: 't' }, steps: [] }
    expect(parseTrend(JSON.stringify(trend))).toEqual({ config: 'perfgate', alarm: { state: 'open', title: 't' } })
    expect(() => parseTrend(JSON.stringify({ ...trend, schema: 2 }))).toThrow('trend.json has schema 2, and this action reads schema 1')
    expect(() => parseTrend(JSON.stringify({ ...trend, alarm: { state: 'loud' } }))).toThrow('alarm.state is "loud"')
    expect(() => parseTrend(JSON.stringify({ ...trend, config: '' }))).toThrow('no config name')
    expect(() => parseTrend('{')).toThrow('trend.json is not JSON')
  })
})

describe('updateTrendIssue', () => {
  it('warns, naming issues: write, when the token may not write issues', async () => {
    const alarm = path.join(tmp, 'alarm.md')
    writeFileSync(alarm, `${trendMarker('perfgate')}\nstep`)
    gh.fail('POST /repos/acme/shop/issues', { status: 403, message: 'Resource not accessible by integration' })
    await updateTrendIssue(inputs(), event, { config: 'perfgate', alarm: { state: 'open', title: 't' } }, alarm)
    expect(recorded.warnings.join()).toContain('`permissions: issues: write`')
  })

  it('refuses an alarm whose body lost its marker, failing the step', async () => {
    const alarm = path.join(tmp, 'alarm-bad.md')
    writeFileSync(alarm, 'no marker')
    await expect(updateTrendIssue(inputs(), event, { config: 'perfgate', alarm: { state: 'open', title: 't' } }, alarm)).rejects.toThrow(
      'refusing the trend alarm',
    )
    expect(gh.issues).toHaveLength(0)
  })
})
