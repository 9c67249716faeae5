import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { FakeGitHub } from './support/fake-github.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { acceptRegression, findAcceptance } = await import('../src/accept-label.js')
const { createOctokit } = await import('../src/octokit.js')
const { failureFor } = await import('../src/step-failure.js')
const { reportArgs } = await import('../src/report-links.js')

// The accept label against the fake API, which checks every request and
// answer against GitHub's REST description.
let gh: FakeGitHub
const label = 'perfgate:accept'
const target = () => ({ owner: gh.owner, repo: gh.repo, pullNumber: 7, label })
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
async function gate(): Promise<{ by: string; failure: string }> {
  const acceptance = await acceptRegression(octokit, target())
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
      'The performance regression was accepted on purpose: the pull request has the label perfgate:accept, added by carol. The check passes; removing the label gates the next run again.',
    ])
    expect(recorded.warnings).toEqual([])
  })

  it('absent: the regression fails, and the events are not even read', async () => {
    gh.addLabel(7, 'bug', 'bob')
    expect(await gate()).toEqual({ by: '', failure: 'performance regression: cpu +20%' })
    expect(recorded.outputs['accepted-by']).toBeUndefined()
    expect(gh.count('issues/list-events')).toBe(0)
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
      /^Could not read the labels of pull request #7 .*Resource not accessible by integration.*pull-requests: read/,
    )
    reset()
    gh.fail(`GET /repos/acme/shop/issues/7/events`, { status: 404, message: 'Not Found' })
    expect((await gate()).failure).toBe('performance regression: cpu +20%')
    expect(recorded.warnings).toHaveLength(1)
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
    expect(await findAcceptance(octokit(), target())).toEqual({ label: 'PerfGate:Accept', by: 'dave' })
    expect(gh.count('issues/list-labels-on-issue')).toBe(3)
    expect(gh.count('issues/list-events')).toBe(3)
  })

  it('is off with an empty accept-label, and asks nothing', async () => {
    gh.addLabel(7, label, 'alice')
    expect(await acceptRegression(octokit, { ...target(), label: '' })).toBeUndefined()
    expect(gh.requests).toEqual([])
  })

  it('a hostile login reaches the engine as one argument and the log only as escaped command data', async () => {
    const hostile = 'x"\n::error::forged <img src=x onerror=alert(1)>'
    gh.addLabel(7, label, hostile)
    const acceptance = await acceptRegression(octokit, target())
    expect(acceptance).toEqual({ label, by: hostile })
    expect(reportArgs('/r/report.json', {}, acceptance).slice(-4)).toEqual(['--accepted-label', label, '--accepted-by', hostile])
    // core.notice escapes its message (see annotations.test.ts for the real toolkit's escaping).
    expect(recorded.notices[0]).toContain(hostile)
  })
})
