import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { FakeGitHub } from './support/fake-github.js'
import { sharedEngine } from './support/shared-engine.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { labelChanged, reuseEarlierGate, withNote } = await import('../src/reuse-gate.js')
const { workflowFile } = await import('../src/earlier-gate.js')
const { describeEvent } = await import('../src/event.js')
const { getInputs } = await import('../src/inputs.js')
const { failureFor } = await import('../src/step-failure.js')

// An accept label added or removed, against the fake API (every request and
// answer checked against GitHub's REST description), with a real
// report.json of a gate (the example service's planted allocation
// regression) and this action's own engine, behind a stand-in that records
// each subcommand it is asked for: a gate must never be one of them.
const headSha = 'f'.repeat(40)
const otherSha = 'e'.repeat(40)
const label = 'perfgate:accept'
const recordedGate = JSON.parse(
  readFileSync(path.join(import.meta.dirname, '../engine/internal/hints/testdata/alloc-sprintf/report.json'), 'utf8'),
) as { build: { base: Record<string, unknown>; head: Record<string, unknown> }; complete: boolean }

let tmp: string
let engineLog: string
let engine: string
let gh: FakeGitHub
const saved = { ...process.env }

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-reuse-'))
  const real = sharedEngine()
  engineLog = path.join(tmp, 'engine.log')
  engine = path.join(tmp, 'perfgate')
  // Only `perfgate report` reaches the engine; anything else is recorded and fails.
  writeFileSync(engine, `#!/bin/sh\necho "$1" >> '${engineLog}'\n[ "$1" = report ] || exit 3\nexec '${real}' "$@"\n`)
  chmodSync(engine, 0o755)
})
afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved)
  rmSync(tmp, { recursive: true, force: true })
})

beforeEach(async () => {
  reset()
  rmSync(engineLog, { force: true })
  gh = new FakeGitHub()
  await gh.start()
  Object.assign(process.env, {
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/pr-gate.yml@refs/pull/7/merge',
    GITHUB_RUN_ID: '5000',
    RUNNER_TEMP: path.join(tmp, 'runner'),
  })
  mkdirSync(process.env.RUNNER_TEMP!, { recursive: true })
  gh.pulls = [{ number: 7, headSha, headRepo: 'acme/shop', state: 'open' }]
  // Run 4990 gated the head commit; run 5000 is this one, started by the label.
  gh.workflowRuns = [
    { id: 5000, workflow: 'pr-gate.yml', headSha, event: 'pull_request', pullNumbers: [7] },
    { id: 4990, workflow: 'pr-gate.yml', headSha, event: 'pull_request', pullNumbers: [7] },
  ]
  keepArtifact(4990, gateOf(headSha))
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

/** gateOf is the recorded gate's report.json, as a gate of commit sha. */
function gateOf(sha: string, change: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ...recordedGate,
    build: {
      ...recordedGate.build,
      base: { ...recordedGate.build.base, revision: 'b'.repeat(40) },
      head: { ...recordedGate.build.head, revision: sha },
    },
    ...change,
  })
}

/** keepArtifact lists a results artifact holding report.json under a run, as the gate's upload did. */
function keepArtifact(runId: number, reportJson: string): void {
  const zip = zipSync({ 'report.json': strToU8(reportJson), 'report.html': strToU8('<html></html>') })
  const page = strToU8('<html></html>')
  gh.artifacts.set(runId, [
    { id: 77, name: 'perfgate-results-attempt-1', sizeInBytes: zip.byteLength, zip },
    { id: 78, name: 'perfgate-report-perfgate-results-attempt-1.html', sizeInBytes: page.byteLength, zip: page },
  ])
}

const labelEvent = (action: string, name = label, headRepo = 'acme/shop') =>
  describeEvent({
    eventName: 'pull_request',
    repo: { owner: 'acme', repo: 'shop' },
    sha: 'c'.repeat(40),
    payload: {
      action,
      label: { name },
      pull_request: {
        number: 7,
        head: { sha: headSha, repo: { full_name: headRepo } },
        base: { ref: 'main', repo: { full_name: 'acme/shop' } },
      },
    },
  })
const payload = (action: string, name = label): Record<string, unknown> => ({ action, label: { name } })
const inputs = () => getInputs((name) => ({ token: 't0ken', 'accept-label': label })[name] ?? '')
const reuse = (action: string, name = label) =>
  reuseEarlierGate(inputs(), labelEvent(action, name), payload(action, name), () => Promise.resolve(engine))
const engineCalls = (): string[] => (existsSync(engineLog) ? readFileSync(engineLog, 'utf8').trim().split('\n') : [])
const log = (): string => recorded.infos.join('\n')

describe('a label added or removed', () => {
  it("added after a gate of the same commit: that gate's regression is re-rendered as accepted, nothing is measured", async () => {
    gh.addLabel(7, label, 'alice')
    const reused = await reuse('labeled')
    expect(reused, log()).toBeDefined()
    expect(reused!.verdict).toBe('regression')
    expect(reused!.acceptance).toEqual({ label, by: 'alice' })
    expect(failureFor(reused!.verdict, reused!.reason, 'regression', reused!.acceptance)).toBe('')
    expect(reused!.markdown).toContain('perfgate: regression accepted')
    expect(reused!.markdown).toContain("Re-rendered from run 4990's measurement of `ffffffffffff`: the label changed, the code did not")
    // The links are the measuring run's and its artifact's.
    expect(reused!.markdown).toContain(
      '[report.html](https://github.com/acme/shop/actions/runs/4990/artifacts/78) · [results artifact](https://github.com/acme/shop/actions/runs/4990/artifacts/77)',
    )
    expect(engineCalls().every((c) => c === 'report')).toBe(true)
    expect(engineCalls().length).toBeGreaterThan(0)
    expect(recorded.outputs.verdict).toBe('regression')
    expect(recorded.outputs['accepted-by']).toBe('alice')
    // Once for the gate to reuse, once to date the head's push for the label.
    expect(gh.count('actions/list-workflow-runs')).toBe(2)
    expect(gh.count('actions/download-artifact')).toBe(1)
  })

  it("a fork's pull request: re-rendered, without a link to the page its run uploaded", async () => {
    gh.pulls = [{ number: 7, headSha, headRepo: 'mallory/shop', state: 'open' }]
    gh.addLabel(7, label, 'alice')
    const reused = await reuseEarlierGate(inputs(), labelEvent('labeled', label, 'mallory/shop'), payload('labeled'), () =>
      Promise.resolve(engine),
    )
    expect(reused?.markdown).toContain('(https://github.com/acme/shop/actions/runs/4990/artifacts/77)')
    expect(reused?.markdown).not.toContain('[report.html]')
  })

  it('removed: the same gate is decided again, and the regression fails', async () => {
    gh.addLabel(7, label, 'alice')
    gh.removeLabel(7, label, 'bob')
    const reused = await reuse('unlabeled')
    expect(reused, log()).toBeDefined()
    expect(reused!.acceptance).toBeUndefined()
    expect(failureFor(reused!.verdict, reused!.reason, 'regression', reused!.acceptance)).toMatch(/^performance regression: /)
    expect(engineCalls().every((c) => c === 'report')).toBe(true)
  })

  it('skips runs of the commit that kept no artifact (earlier label events) for the one that measured', async () => {
    gh.workflowRuns.splice(1, 0, { id: 4995, workflow: 'pr-gate.yml', headSha, event: 'pull_request', pullNumbers: [7] })
    gh.addLabel(7, label, 'alice')
    const reused = await reuse('labeled')
    expect(reused?.markdown).toContain("Re-rendered from run 4990's measurement")
  })

  it('the last gate measured another commit (a push since): measures', async () => {
    gh.workflowRuns = gh.workflowRuns.map((r) => (r.id === 4990 ? { ...r, headSha: otherSha } : r))
    gh.addLabel(7, label, 'alice')
    expect(await reuse('labeled')).toBeUndefined()
    expect(log()).toMatch(/measuring again: no earlier run of pr-gate\.yml measured ffffffffffff for pull request #7/)
    expect(engineCalls()).toEqual([])
  })

  it('no artifact (expired, or never uploaded): measures', async () => {
    gh.artifacts.delete(4990)
    gh.addLabel(7, label, 'alice')
    expect(await reuse('labeled')).toBeUndefined()
    expect(log()).toMatch(/measuring again: none of the 1 earlier run\(s\) of pr-gate\.yml .* has an artifact perfgate-results-attempt-N/)
    expect(engineCalls()).toEqual([])
  })

  it("the artifact's report.json is a gate of another commit: measures", async () => {
    keepArtifact(4990, gateOf(otherSha))
    gh.addLabel(7, label, 'alice')
    expect(await reuse('labeled')).toBeUndefined()
    expect(log()).toContain(`measuring again: run 4990's perfgate-results-attempt-1: it measured ${otherSha}, not ${headSha}`)
    expect(engineCalls()).toEqual(['report'])
    expect(recorded.outputs.verdict).toBeUndefined()
  })

  it('an interrupted gate, a recording, or a report the engine refuses: measures', async () => {
    gh.addLabel(7, label, 'alice')
    keepArtifact(4990, gateOf(headSha, { complete: false }))
    expect(await reuse('labeled')).toBeUndefined()
    expect(log()).toContain('its gate did not complete')
    keepArtifact(4990, gateOf(headSha, { mode: 'record' }))
    expect(await reuse('labeled')).toBeUndefined()
    expect(log()).toContain('it is a recording (mode record), not a gate')
    keepArtifact(4990, gateOf(headSha, { verdict: 7 }))
    expect(await reuse('labeled')).toBeUndefined()
    expect(log()).toContain('the engine refused its report.json')
    // Case twins that the engine and JSON.parse read differently.
    keepArtifact(4990, gateOf(headSha).replace(/^\{/, '{"Verdict":"pass",'))
    expect(await reuse('labeled')).toBeUndefined()
    expect(engineCalls().every((c) => c === 'report')).toBe(true)
  })

  it('a token without actions: read: measures, and says which permission', async () => {
    gh.fail('GET /repos/acme/shop/actions/workflows/pr-gate.yml/runs', { status: 403, message: 'Resource not accessible by integration' })
    gh.addLabel(7, label, 'alice')
    expect(await reuse('labeled')).toBeUndefined()
    expect(log()).toMatch(
      /measuring again: listing the runs of pr-gate\.yml failed \(.*Resource not accessible by integration.*\); give the job `permissions: actions: read`/,
    )
  })

  it('with comment: never (the fork-safe stage one, whose artifact stage two comments from): measures', async () => {
    gh.addLabel(7, label, 'alice')
    const silent = getInputs((name) => ({ token: 't0ken', 'accept-label': label, comment: 'never' })[name] ?? '')
    expect(await reuseEarlierGate(silent, labelEvent('labeled'), payload('labeled'), () => Promise.resolve(engine))).toBeUndefined()
    expect(log()).toContain('with comment: never another stage comments from this run')
    expect(gh.requests).toEqual([])
  })

  it("another label (a triage bot's): re-renders the same gate, with the acceptance as it is", async () => {
    gh.addLabel(7, label, 'alice')
    const reused = await reuse('labeled', 'size/L')
    expect(reused, log()).toBeDefined()
    expect(reused!.markdown).toContain("Re-rendered from run 4990's measurement")
    expect(reused!.acceptance).toEqual({ label, by: 'alice' })
    expect(engineCalls().every((c) => c === 'report')).toBe(true)
  })

  it('a push: measures without asking anything', async () => {
    expect(await reuse('synchronize')).toBeUndefined()
    expect(await reuse('opened')).toBeUndefined()
    expect(gh.requests).toEqual([])
    expect(engineCalls()).toEqual([])
  })
})

describe('labelChanged', () => {
  it('is any label added or removed on a pull_request event; nothing else', () => {
    expect(labelChanged('pull_request', payload('labeled', 'PerfGate:Accept'))).toBe(true)
    expect(labelChanged('pull_request', payload('unlabeled'))).toBe(true)
    expect(labelChanged('pull_request', payload('labeled', 'bug'))).toBe(true)
    expect(labelChanged('pull_request', payload('synchronize'))).toBe(false)
    expect(labelChanged('pull_request', payload('opened'))).toBe(false)
    expect(labelChanged('pull_request_target', payload('labeled'))).toBe(false)
    expect(labelChanged('push', payload('labeled'))).toBe(false)
  })
})

describe('workflowFile', () => {
  it("is the file name in GITHUB_WORKFLOW_REF, which the API takes for the workflow's ID", () => {
    expect(workflowFile('acme/shop/.github/workflows/pr-gate.yml@refs/pull/7/merge')).toBe('pr-gate.yml')
    expect(workflowFile('acme/shop/.github/workflows/gate.yaml@refs/heads/main')).toBe('gate.yaml')
    expect(workflowFile('')).toBe('')
    expect(workflowFile('acme/shop/elsewhere/x.yml@main')).toBe('')
  })
})

describe('withNote', () => {
  it("goes under the report's heading", () => {
    expect(withNote('<!-- perfgate:report -->\n### perfgate: pass\n\nbody', 'note')).toBe(
      '<!-- perfgate:report -->\n### perfgate: pass\n\n_note_\n\nbody',
    )
  })
})
