import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { FakeGitHub } from './support/fake-github.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { acceptRegression, findAcceptance, headPushedAt, withIgnoredLabel } = await import('../src/accept-label.js')
const { createOctokit } = await import('../src/octokit.js')
const { failureFor } = await import('../src/step-failure.js')
const { reportArgs } = await import('../src/report-links.js')

// The accept label against the fake API, which checks every request and
// answer against GitHub's REST description.
let gh: FakeGitHub
const label = 'perfgate:accept'
const head = 'f'.repeat(40)
const target = () => ({ owner: gh.owner, repo: gh.repo, pullNumber: 7, label, headSha: head })
const octokit = () => createOctokit('t0ken')

beforeEach(async () => {
  reset()
  gh = new FakeGitHub()
  await gh.start()
  process.env.GITHUB_API_URL = gh.url
  gh.pulls = [{ number: 7, headSha: 'f'.repeat(40), headRepo: 'acme/shop', state: 'open' }]
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

/** gate is what main decides for a regression: who accepted it, and the failure ('' passes). */
async function gate(extra: { bots?: string[]; headPushedAt?: string; workflow?: string } = {}): Promise<{ by: string; failure: string }> {
  const { acceptance } = await acceptRegression(octokit, { ...target(), ...extra })
  return { by: acceptance?.by ?? '', failure: failureFor('regression', 'cpu +20%', 'regression', acceptance) }
}

describe('the accept label', () => {
  it('present: the regression is accepted, by whoever added it last, and says so', async () => {
    gh.addLabel(7, 'bug', 'bob')
    gh.addLabel(7, label, 'alice')
    gh.removeLabel(7, label, 'bob')
    gh.addLabel(7, label, 'carol')
    expect(await gate()).toEqual({ by: 'carol', failure: '' })
    expect(recorded.outputs['accepted-by']).toBe('carol')
    expect(recorded.notices).toEqual([
      'The performance regression was accepted on purpose: the pull request has the label perfgate:accept, added by carol after the latest push. The check passes; a new push, or removing the label, gates the next run again.',
    ])
    expect(recorded.warnings).toEqual([])
  })

  it('absent: the regression fails, and the events are not even read', async () => {
    gh.addLabel(7, 'bug', 'bob')
    expect(await gate()).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.outputs['accepted-by']).toBeUndefined()
    expect(gh.count('issues/list-events-for-timeline')).toBe(0)
  })

  it('added, then removed: the regression fails again (nothing is stored)', async () => {
    gh.addLabel(7, label, 'alice')
    expect((await gate()).failure).toBe('')
    gh.removeLabel(7, label, 'bob')
    reset()
    expect(await gate()).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.notices).toEqual([])
  })

  it('an API error warns and the regression fails', async () => {
    gh.addLabel(7, label, 'alice')
    gh.fail(`GET /repos/acme/shop/issues/7/labels`, { status: 403, message: 'Resource not accessible by integration' })
    expect(await gate()).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.warnings).toHaveLength(1)
    expect(recorded.warnings[0]).toMatch(
      /^Could not read the labels, timeline or permissions of pull request #7 .*Resource not accessible by integration.*pull-requests: read/,
    )
    reset()
    gh.fail(`GET /repos/acme/shop/issues/7/timeline`, { status: 404, message: 'Not Found' })
    expect((await gate()).failure).toBe('performance regression: cpu +20%')
    expect(recorded.warnings).toHaveLength(1)
    reset()
    gh.fail(`GET /repos/acme/shop/collaborators/alice/permission`, { status: 403, message: 'Resource not accessible by integration' })
    expect((await gate()).failure).toBe('performance regression: cpu +20%')
    expect(recorded.warnings).toHaveLength(1)
    expect(recorded.warnings[0]).toMatch(/^Could not read .*Gating the regression as usual/)
  })

  it('a label without a labeled event names no one, so it accepts nothing', async () => {
    gh.labels.set(7, [label])
    expect((await gate()).failure).toBe('performance regression: cpu +20%')
    expect(recorded.warnings[0]).toMatch(/its events do not say who added it/)
  })

  it('reads every page of labels and events, and compares label names as GitHub does, without case', async () => {
    for (let i = 0; i < 130; i++) gh.addLabel(7, `area-${i}`, 'bot')
    gh.addLabel(7, 'PerfGate:Accept', 'dave')
    for (let i = 0; i < 120; i++) gh.addLabel(7, `later-${i}`, 'bot')
    expect(await findAcceptance(octokit(), target())).toEqual({ acceptance: { label: 'PerfGate:Accept', by: 'dave' } })
    expect(gh.count('issues/list-labels-on-issue')).toBe(3)
    expect(gh.count('issues/list-events-for-timeline')).toBe(3)
  })

  it('is off with an empty accept-label, and asks nothing', async () => {
    gh.addLabel(7, label, 'alice')
    expect(await acceptRegression(octokit, { ...target(), label: '' })).toEqual({})
    expect(gh.requests).toEqual([])
  })

  it('a hostile login reaches the engine as one argument and the log only as escaped command data', async () => {
    const hostile = 'x"\n::error::forged <img src=x onerror=alert(1)>'
    gh.addLabel(7, label, hostile)
    const { acceptance } = await acceptRegression(octokit, target())
    expect(acceptance).toEqual({ label, by: hostile })
    expect(reportArgs('/r/report.json', {}, acceptance).slice(-4)).toEqual(['--accepted-label', label, '--accepted-by', hostile])
    // core.notice escapes its message (see annotations.test.ts for the real toolkit's escaping).
    expect(recorded.notices[0]).toContain(hostile)
  })
})

describe('the accept label binds to the head commit and to a role', () => {
  const later = 'e'.repeat(40)

  it('added by a writer after the head was pushed: accepted', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'alice')
    expect(await gate()).toEqual({ by: 'alice', failure: '' })
    expect(recorded.warnings).toEqual([])
  })

  it('added before a later push: ignored, and the comment says why and what to do', async () => {
    gh.push(7, 'a'.repeat(40))
    gh.addLabel(7, label, 'alice')
    gh.push(7, later)
    expect(await gate()).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.outputs['accepted-by']).toBeUndefined()
    expect(recorded.warnings).toEqual([
      'The label perfgate:accept was added by @alice before the latest push (fffffff); add it again to accept this commit. The regression is gated.',
    ])
    const decision = await findAcceptance(octokit(), { ...target(), headSha: later })
    expect(withIgnoredLabel('<!-- m -->\n### perfgate: regression\n\nbody', decision)).toBe(
      '<!-- m -->\n### perfgate: regression\n\n_The label perfgate\\:accept was added by &#64;alice before the latest push (eeeeeee); add it again to accept this commit._\n\nbody',
    )
    // Added again after the push, it accepts this commit.
    gh.addLabel(7, label, 'alice')
    expect(await gate()).toEqual({ by: 'alice', failure: '' })
  })

  it('a force push, a restored branch or a reopened pull request after the label: ignored', async () => {
    for (const event of ['head_ref_force_pushed', 'head_ref_restored', 'reopened'] as const) {
      gh.events.set(7, [])
      gh.push(7, head)
      gh.addLabel(7, label, 'alice')
      gh.events.set(7, [...gh.events.get(7)!, { event, login: 'mallory' }])
      expect((await gate()).failure, event).toBe('performance regression: cpu +20%')
    }
  })

  it('a commit pushed after the label with a committer date before it: the timeline alone is fooled; the push time of this run, or the first run for the commit, is not', async () => {
    gh.push(7, 'a'.repeat(40))
    gh.addLabel(7, label, 'alice') // at minute 1
    gh.push(7, head, '2026-01-01T00:00:30Z') // backdated: the timeline places the commit before the label
    // Without the workflow to date the push by, only the timeline: fooled.
    expect((await gate()).failure).toBe('')
    // The run the push started knows when the push happened (its payload's updated_at).
    reset()
    expect(await gate({ headPushedAt: '2026-01-01T00:05:00Z' })).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.warnings[0]).toMatch(/before the latest push/)
    // A run another event started (a label, the comment stage) dates the
    // push by the first run of the gate's workflow for the commit: GitHub
    // created it after the push, at 00:05, whatever the commit says.
    gh.workflowRuns = [
      { id: 12, workflow: 'pr-gate.yml', headSha: head, event: 'pull_request', pullNumbers: [7], createdAt: '2026-01-01T00:09:00Z' },
      { id: 11, workflow: 'pr-gate.yml', headSha: head, event: 'pull_request', pullNumbers: [7], createdAt: '2026-01-01T00:05:10Z' },
    ]
    reset()
    expect(await gate({ workflow: 'pr-gate.yml' })).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.warnings[0]).toMatch(/before the latest push/)
  })

  it('the first run for the commit: before the label accepts; one listed for another pull request, or another fork, does not date this push', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'alice') // at minute 1
    const run = (id: number, createdAt: string, more: Record<string, unknown> = {}) => ({
      id,
      workflow: 'pr-gate.yml',
      headSha: head,
      event: 'pull_request',
      pullNumbers: [7],
      createdAt,
      ...more,
    })
    gh.workflowRuns = [run(21, '2026-01-01T00:03:00Z'), run(20, '2026-01-01T00:00:40Z')]
    expect(await gate({ workflow: 'pr-gate.yml' })).toEqual({ by: 'alice', failure: '' })
    // The commit ran first for pull request #8 (or from another fork,
    // which lists none): that says nothing about when it reached #7.
    for (const other of [{ pullNumbers: [8] }, { pullNumbers: [], headRepository: 'mallory/shop' }]) {
      gh.workflowRuns = [run(21, '2026-01-01T00:03:00Z'), run(20, '2026-01-01T00:00:40Z', other)]
      reset()
      expect((await gate({ workflow: 'pr-gate.yml' })).failure, JSON.stringify(other)).toBe('performance regression: cpu +20%')
      expect(recorded.warnings[0]).toMatch(/before the latest push/)
    }
    // A fork's own run (no pull request listed) counts, by its head.
    gh.pulls = [{ number: 7, headSha: head, headRepo: 'mallory/shop', headRef: 'faster', state: 'open' }]
    gh.workflowRuns = [run(20, '2026-01-01T00:00:40Z', { pullNumbers: [], headRepository: 'mallory/shop', headBranch: 'faster' })]
    reset()
    expect(await gate({ workflow: 'pr-gate.yml' })).toEqual({ by: 'alice', failure: '' })
  })

  it('a commit that was the head before a force push, pushed back after the label: its first stretch as head does not date it', async () => {
    gh.push(7, head) // minute 0: B is the head, and the gate runs for it
    gh.workflowRuns = [
      { id: 30, workflow: 'pr-gate.yml', headSha: head, event: 'pull_request', pullNumbers: [7], createdAt: '2026-01-01T00:00:30Z' },
    ]
    gh.forcePush(7, 'a'.repeat(40), 'mallory') // minute 1: back to A
    gh.addLabel(7, label, 'alice') // minute 2: A is accepted
    gh.push(7, head, '2026-01-01T00:00:10Z') // minute 3: B again, a fast-forward dated before the label
    expect((await gate({ workflow: 'pr-gate.yml' })).failure).toBe('performance regression: cpu +20%')
    expect(recorded.warnings[0]).toMatch(/no run of the workflow on a pull request event has measured it/)
  })

  it('the runs cannot be listed (no actions: read), or none ran for the commit: ignored, saying why and what to give the job', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'alice')
    gh.workflowRuns = [{ id: 20, workflow: 'pr-gate.yml', headSha: head, event: 'pull_request', pullNumbers: [7] }]
    gh.fail('GET /repos/acme/shop/actions/workflows/pr-gate.yml/runs', { status: 403, message: 'Resource not accessible by integration' })
    expect((await gate({ workflow: 'pr-gate.yml' })).failure).toBe('performance regression: cpu +20%')
    expect(recorded.warnings[0]).toMatch(
      /^The label perfgate:accept was added by @alice, but when fffffff was pushed cannot be read \(the runs of the workflow for it cannot be listed: .*Resource not accessible by integration.*\), so the label cannot be shown to be newer; give the job `permissions: actions: read`/,
    )
    gh.workflowRuns = []
    reset()
    expect((await gate({ workflow: 'pr-gate.yml' })).failure).toBe('performance regression: cpu +20%')
    expect(recorded.warnings[0]).toMatch(/no run of the workflow on a pull request event has measured it/)
  })

  it('added by someone with triage, read or a custom role without write: ignored, naming the role', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'trina')
    gh.roles.set('trina', 'triage')
    expect(await gate()).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.warnings).toEqual([
      'The label perfgate:accept was added by @trina, who has triage permission; acceptance needs write, maintain or admin. The regression is gated.',
    ])
    gh.roles.set('trina', 'read')
    expect((await gate()).failure).toBe('performance regression: cpu +20%')
    gh.roles.set('trina', 'security-reviewer:read') // a custom role, judged by its base permission
    expect((await gate()).failure).toBe('performance regression: cpu +20%')
    gh.roles.set('trina', 'release-manager:write')
    expect((await gate()).by).toBe('trina')
  })

  it('added by a maintainer or an admin: accepted (the permission field says write for maintain)', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'mo')
    for (const role of ['maintain', 'admin', 'write']) {
      gh.roles.set('mo', role)
      expect((await gate()).by, role).toBe('mo')
    }
    expect(gh.requests.filter((r) => r.operationId === 'repos/get-collaborator-permission-level').map((r) => r.path)).toContain(
      '/repos/acme/shop/collaborators/mo/permission',
    )
  })

  it('added by an app that accept-bots does not list: ignored, without asking its permission', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'labeler[bot]')
    expect(await gate({ bots: ['renovate[bot]'] })).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.warnings[0]).toBe(
      'The label perfgate:accept was added by @labeler[bot], an app that accept-bots does not list; acceptance needs a person with write, maintain or admin permission, or the app in accept-bots. The regression is gated.',
    )
    expect(gh.count('repos/get-collaborator-permission-level')).toBe(0)
  })

  it('added by an app that accept-bots lists (with or without [bot], any case): accepted', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'renovate[bot]')
    expect(await gate({ bots: ['renovate[bot]'] })).toEqual({ by: 'renovate[bot]', failure: '' })
    expect(await gate({ bots: ['Renovate'] })).toEqual({ by: 'renovate[bot]', failure: '' })
  })

  it('a hostile login in the ignored note is escaped: no mention, no HTML, one line', async () => {
    gh.push(7, head)
    gh.addLabel(7, label, 'x<img src=x>\n@everyone')
    gh.roles.set('x<img src=x>\n@everyone', 'triage')
    const decision = await findAcceptance(octokit(), target())
    const note = withIgnoredLabel('### perfgate: regression\n', decision).split('\n')[2]
    expect(note).toBe(
      '_The label perfgate\\:accept was added by &#64;x&lt;img src\\=x&gt; &#64;everyone, who has triage permission; acceptance needs write, maintain or admin._',
    )
  })

  it('headPushedAt: the updated_at of a synchronize, opened or reopened pull request event, nothing for others', () => {
    const payload = (action: string) => ({ action, pull_request: { updated_at: '2026-01-01T00:05:00Z' } })
    expect(headPushedAt('pull_request', payload('synchronize'))).toBe('2026-01-01T00:05:00Z')
    expect(headPushedAt('pull_request_target', payload('opened'))).toBe('2026-01-01T00:05:00Z')
    expect(headPushedAt('pull_request', payload('labeled'))).toBe('')
    expect(headPushedAt('workflow_run', payload('synchronize'))).toBe('')
  })
})
