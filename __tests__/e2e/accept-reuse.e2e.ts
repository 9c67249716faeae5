import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHub } from '../support/fake-github.js'
import { actionRoot, runAction as runActionIn, type Scenario } from '../support/local-action.js'

// The real action (src/main.ts, run by @github/local-action) on the accept
// label's labeled and unlabeled events, after a gate of the same head
// commit: it decides from that gate's results artifact, as the fake API
// lists and serves it, and measures nothing. No service runs here (the
// checkout is empty: a gate would fail at once), so this needs neither root
// nor minutes beyond building the engine.
const headSha = 'f'.repeat(40)
const label = 'perfgate:accept'
let tmp: string
let workspace: string
let gh: FakeGitHub

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-accept-reuse-'))
  workspace = path.join(tmp, 'workspace')
  mkdirSync(workspace)
  gh = new FakeGitHub()
  await gh.start()
  gh.pulls = [{ number: 7, headSha, headRepo: 'acme/shop', state: 'open' }]
  gh.push(7, headSha)
  // Run 4100 gated the head commit (the example service's planted allocation regression).
  const recorded = JSON.parse(readFileSync(path.join(actionRoot, 'engine/internal/hints/testdata/alloc-sprintf/report.json'), 'utf8')) as {
    build: { head: Record<string, unknown> }
  }
  const report = { ...recorded, build: { ...recorded.build, head: { ...recorded.build.head, revision: headSha } } }
  const zip = zipSync({ 'report.json': strToU8(JSON.stringify(report)) })
  gh.workflowRuns = [{ id: 4100, workflow: 'pr-gate.yml', headSha, event: 'pull_request', pullNumbers: [7] }]
  gh.artifacts.set(4100, [{ id: 901, name: 'perfgate-results-attempt-1', sizeInBytes: zip.byteLength, zip }])
}, 120_000)

afterAll(async () => {
  await gh?.stop()
  rmSync(tmp, { recursive: true, force: true })
})

/** labelRun is the run a label event starts: run 4300 of the same workflow. */
const labelRun = (name: string, action: 'labeled' | 'unlabeled'): Scenario => ({
  name,
  inputs: { 'accept-label': label },
  env: { GITHUB_RUN_ID: '4300', GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/pr-gate.yml@refs/pull/7/merge' },
  payload: {
    action,
    number: 7,
    label: { name: label },
    pull_request: {
      number: 7,
      head: { sha: headSha, ref: 'feature', repo: { full_name: 'acme/shop' } },
      base: { ref: 'main', repo: { full_name: 'acme/shop' } },
    },
    repository: { full_name: 'acme/shop', name: 'shop', owner: { login: 'acme' } },
  },
})

describe('the accept label on a commit already gated', () => {
  it('added: the comment says the regression was accepted, re-rendered from run 4100, and nothing is measured', async () => {
    gh.addLabel(7, label, 'alice')
    const result = await runActionIn({ tmp, gh, workspace, sha: 'c'.repeat(40) }, labelRun('labeled', 'labeled'))
    expect(result.output, result.output.slice(-4000)).toContain("Re-rendered from run 4100's measurement of ffffffffffff")
    expect(result.output).not.toMatch(/\$ (sudo )?perfgate gate/)
    expect(result.output).not.toMatch(/::error::/)
    expect(result.artifacts).toEqual([])
    const comments = gh.comments.get(7) ?? []
    expect(comments).toHaveLength(1)
    expect(comments[0].body.split('\n')[0]).toBe('<!-- perfgate:report config=perfgate.yml -->')
    expect(comments[0].body).toContain('perfgate: regression accepted')
    expect(comments[0].body).toContain("_Re-rendered from run 4100's measurement of `ffffffffffff`: the label changed, the code did not")
    expect(comments[0].body).toContain('(https://github.com/acme/shop/actions/runs/4100/artifacts/901)')
    expect(gh.problems).toEqual([])
  })

  it('removed: the same gate fails the check again, in the same comment', async () => {
    gh.removeLabel(7, label, 'bob')
    const result = await runActionIn({ tmp, gh, workspace, sha: 'c'.repeat(40) }, labelRun('unlabeled', 'unlabeled'))
    expect(result.output, result.output.slice(-4000)).toMatch(/::error::performance regression: /)
    expect(result.output).not.toMatch(/\$ (sudo )?perfgate gate/)
    const comments = gh.comments.get(7) ?? []
    expect(comments).toHaveLength(1)
    expect(comments[0].body).not.toContain('regression accepted')
    expect(comments[0].body).toContain("Re-rendered from run 4100's measurement")
    expect(gh.problems).toEqual([])
  })

  it('added by someone with triage permission: ignored, the check fails and the comment says why', async () => {
    gh.roles.set('trina', 'triage')
    gh.addLabel(7, label, 'trina')
    const result = await runActionIn({ tmp, gh, workspace, sha: 'c'.repeat(40) }, labelRun('labeled-by-triage', 'labeled'))
    expect(result.output, result.output.slice(-4000)).toMatch(/::error::performance regression: /)
    expect(result.output).not.toMatch(/\$ (sudo )?perfgate gate/)
    const comments = gh.comments.get(7) ?? []
    expect(comments).toHaveLength(1)
    expect(comments[0].body).not.toContain('regression accepted')
    expect(comments[0].body).toContain(
      '_The label perfgate\\:accept was added by &#64;trina, who has triage permission; acceptance needs write, maintain or admin._',
    )
    expect(gh.problems).toEqual([])
  })
})
