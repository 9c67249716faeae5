import { describe, expect, it } from 'vitest'
import { describeEvent, type EventContext } from '../src/event.js'
import { getInputs } from '../src/inputs.js'
import { refuseHistoryBranch, refuseUnsafeEvent } from '../src/refuse.js'
import { failureFor } from '../src/step-failure.js'

const repo = { owner: 'acme', repo: 'shop' }
const pr = (headRepo: string | null) => ({
  number: 7,
  head: { sha: 'a'.repeat(40), ref: 'feature', repo: headRepo === null ? null : { full_name: headRepo } },
  base: { ref: 'main', repo: { full_name: 'acme/shop' } },
})
const context = (eventName: string, payload: Record<string, unknown>): EventContext => ({ eventName, payload, repo, sha: 'c'.repeat(40) })
const inputs = (values: Record<string, string> = {}) => getInputs((n) => values[n] ?? '')

describe('describeEvent', () => {
  it('same-repository pull request', () => {
    expect(describeEvent(context('pull_request', { pull_request: pr('acme/shop') })).pullRequest).toEqual({
      number: 7,
      headSha: 'a'.repeat(40),
      baseBranch: 'main',
      fork: false,
    })
  })

  it('pull request from a fork, and from a deleted fork', () => {
    expect(describeEvent(context('pull_request', { pull_request: pr('mallory/shop') })).pullRequest?.fork).toBe(true)
    expect(describeEvent(context('pull_request', { pull_request: pr(null) })).pullRequest?.fork).toBe(true)
  })

  it('names the default branch and the branch a push updated', () => {
    const push = describeEvent(context('push', { ref: 'refs/heads/main', repository: { default_branch: 'main' } }))
    expect([push.defaultBranch, push.pushedBranch]).toEqual(['main', 'main'])
    const tag = describeEvent(context('push', { ref: 'refs/tags/v1', repository: { default_branch: 7 } }))
    expect([tag.defaultBranch, tag.pushedBranch]).toEqual(['', ''])
    // Only a push names a pushed branch: a dispatch's ref is where it ran.
    expect(describeEvent(context('workflow_dispatch', { ref: 'refs/heads/main' })).pushedBranch).toBe('')
  })

  it('push and schedule have no pull request', () => {
    expect(describeEvent(context('push', { ref: 'refs/heads/main' })).pullRequest).toBeUndefined()
    expect(describeEvent(context('schedule', { schedule: '0 3 * * *' })).pullRequest).toBeUndefined()
  })

  it('workflow_run reports the run it follows, without trusting odd types', () => {
    const info = describeEvent(
      context('workflow_run', {
        workflow_run: {
          id: 42,
          workflow_id: 161335,
          run_attempt: 3,
          event: 'pull_request',
          head_sha: 'd'.repeat(40),
          head_branch: 'feature',
          head_repository: { full_name: 'mallory/shop' },
          conclusion: 'failure',
          pull_requests: [{ number: 7 }, { number: '8' }, null],
        },
      }),
    )
    expect(info.workflowRun).toEqual({
      id: 42,
      workflowId: 161335,
      runAttempt: 3,
      event: 'pull_request',
      headSha: 'd'.repeat(40),
      headBranch: 'feature',
      headRepository: 'mallory/shop',
      conclusion: 'failure',
      pullNumbers: [7],
    })
  })

  it('a payload with wrong types yields empty values, not exceptions', () => {
    const info = describeEvent(context('pull_request', { pull_request: { number: 'seven', head: 'x', base: [] } }))
    expect(info.pullRequest).toEqual({ number: 0, headSha: '', baseBranch: '', fork: true })
  })
})

describe('refuseUnsafeEvent', () => {
  it('refuses gate under pull_request_target on a fork head unless allowed', () => {
    const event = describeEvent(context('pull_request_target', { pull_request: pr('mallory/shop') }))
    expect(() => refuseUnsafeEvent(inputs(), event)).toThrow(/Refusing mode gate under pull_request_target.*two-stage/)
    expect(() => refuseUnsafeEvent(inputs({ 'allow-unsafe-pull-request-target': 'true' }), event)).not.toThrow()
  })

  it('allows pull_request_target for a same-repository pull request', () => {
    expect(() =>
      refuseUnsafeEvent(inputs(), describeEvent(context('pull_request_target', { pull_request: pr('acme/shop') }))),
    ).not.toThrow()
  })

  it('points workflow_run to mode comment', () => {
    expect(() => refuseUnsafeEvent(inputs(), describeEvent(context('workflow_run', { workflow_run: { id: 1 } })))).toThrow(
      /Use mode: comment/,
    )
  })

  const repository = { default_branch: 'main' }
  it.each(['record', 'trend'])('lets mode %s run on schedule, workflow_dispatch and a push to the default branch', (mode) => {
    for (const event of [
      describeEvent(context('schedule', { schedule: '0 3 * * *', repository })),
      describeEvent(context('workflow_dispatch', { ref: 'refs/heads/main', repository })),
      describeEvent(context('push', { ref: 'refs/heads/main', repository })),
    ]) {
      expect(() => refuseUnsafeEvent(inputs({ mode }), event)).not.toThrow()
    }
  })

  it.each(['record', 'trend'])('refuses mode %s on every other event, naming the mode, the event and what to do', (mode) => {
    const refusals: [string, Record<string, unknown>, RegExp][] = [
      [
        'push',
        { ref: 'refs/heads/feature', repository },
        new RegExp(`Refusing mode ${mode} under push to branch feature: .*default branch \\(main\\).*branches: \\[main\\]`),
      ],
      ['push', { ref: 'refs/tags/v1.0.0', repository }, new RegExp(`Refusing mode ${mode} under push to a ref that is not a branch`)],
      // A payload that does not name the default branch cannot prove the push is to it.
      ['push', { ref: 'refs/heads/main' }, new RegExp(`Refusing mode ${mode} under push to branch main: .*does not name it`)],
      [
        'pull_request',
        { pull_request: pr('acme/shop'), repository },
        new RegExp(`Refusing mode ${mode} under pull_request: .*schedule, workflow_dispatch, or a push to the default branch.*mode: gate`),
      ],
      ['merge_group', { repository }, new RegExp(`Refusing mode ${mode} under merge_group`)],
      ['release', { repository }, new RegExp(`Refusing mode ${mode} under release`)],
    ]
    for (const [name, payload, message] of refusals) {
      expect(() => refuseUnsafeEvent(inputs({ mode }), describeEvent(context(name, payload)))).toThrow(message)
    }
  })

  it('leaves mode gate on pushes and pull requests alone', () => {
    expect(() => refuseUnsafeEvent(inputs(), describeEvent(context('push', { ref: 'refs/heads/feature', repository })))).not.toThrow()
    expect(() =>
      refuseUnsafeEvent(inputs(), describeEvent(context('pull_request', { pull_request: pr('acme/shop'), repository }))),
    ).not.toThrow()
  })
})

describe('refuseHistoryBranch', () => {
  const repository = { default_branch: 'trunk' }
  it('refuses the default branch, the pushed branch and the pull request base as the history branch', () => {
    const schedule = describeEvent(context('schedule', { repository }))
    expect(() => refuseHistoryBranch(inputs({ 'history-branch': 'trunk' }), schedule)).toThrow(
      /Invalid 'history-branch': "trunk" is the repository's default branch.*perfgate-data/,
    )
    const push = describeEvent(context('push', { ref: 'refs/heads/release', repository }))
    expect(() => refuseHistoryBranch(inputs({ 'history-branch': 'release' }), push)).toThrow(/"release" is the branch this push updated/)
    const pull = describeEvent(context('pull_request', { pull_request: pr('acme/shop'), repository }))
    expect(() => refuseHistoryBranch(inputs({ 'history-branch': 'main' }), pull)).toThrow(
      /"main" is the branch this pull request merges into/,
    )
  })

  it('accepts a branch of its own', () => {
    const push = describeEvent(context('push', { ref: 'refs/heads/trunk', repository }))
    expect(() => refuseHistoryBranch(inputs(), push)).not.toThrow()
    expect(() => refuseHistoryBranch(inputs({ 'history-branch': 'perf/history' }), push)).not.toThrow()
  })
})

describe('failureFor', () => {
  it.each([
    ['regression', 'regression', true],
    ['regression', 'never', false],
    ['invalid', 'regression', true],
    ['invalid', 'never', false],
    ['inconclusive', 'regression', false],
    ['inconclusive', 'inconclusive', true],
    ['error', 'never', true],
    ['pass', 'inconclusive', false],
    ['improvement', 'regression', false],
    ['no-baseline', 'inconclusive', false],
  ] as const)('%s under fail-on %s fails: %s', (verdict, failOn, fails) => {
    expect(failureFor(verdict, 'why', failOn) !== '').toBe(fails)
  })

  it('words an invalid measurement as neither a regression nor a pass', () => {
    expect(failureFor('invalid', 'OOM-killed', 'regression')).toMatch(/^invalid measurement \(too few rounds could be compared/)
  })
})
