import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHub } from '../support/fake-github.js'
import { git } from '../support/git.js'
import { actionRoot, e2eExperiment, listArtifacts, runAction, type ActionResult } from '../support/local-action.js'
import { buildTrendRepo, trendRepo } from '../support/trend-repo.js'

// Mode trend and mode publish through the real action
// (@github/local-action), as the nightly workflow runs them: trend in the
// job that checks out and runs the code with a token that only reads,
// publish in a job that checks out nothing and holds the write scopes,
// taking trend's artifact. In a monorepo (the service in services/api, the config
// named relative to the workspace), with a history on the data branch of
// the fake API. The history was recorded by real `perfgate run`s of the
// trend repository's commits (testdata/record-trend-history.ts) and is
// replayed here onto this run's commits, night by night; the confirming
// gates are real. The nights unfold as on GitHub:
//
// 1. a shallow checkout (actions/checkout's default): the planted step is
//    found but cannot be confirmed, the job says why, and no issue opens;
// 2. a full checkout (fetch-depth: 0): the step is tried again, confirmed
//    by a paired gate of its two commits, and the alarm issue opens,
//    naming the planted commit.
// 3. ten nights after the plant's revert (night 16), the last recorded
//    by mode record in the trend's job: the step down is found, confirmed
//    by a paired gate, and the issue is closed;
// 4. a pull request's gate (a shallow checkout, as actions/checkout
//    makes it) reads that history with its read-only token and shows
//    where main stands beside its verdict, writing nothing to the branch.
const recorded = readFileSync(path.join(import.meta.dirname, 'testdata/trend-history.jsonl'), 'utf8')
  .trim()
  .split('\n')
const recordedShas = JSON.parse(readFileSync(path.join(import.meta.dirname, 'testdata/trend-history.commits.json'), 'utf8')) as string[]

let tmp: string
let origin: string
let shas: string[]
let gh: FakeGitHub

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-trend-e2e-'))
  origin = path.join(tmp, 'origin')
  shas = buildTrendRepo(origin, actionRoot, e2eExperiment)
  gh = new FakeGitHub()
  await gh.start()
}, 120_000)

afterAll(async () => {
  await gh?.stop()
  rmSync(tmp, { recursive: true, force: true })
})

/** nights are the recorded history's entries of nights [from, to), moved onto this run's commits. */
function nights(from: number, to: number): string {
  const lines = recorded.filter((line) => {
    const night = recordedShas.indexOf((JSON.parse(line) as { commit: string }).commit)
    if (night < 0) throw new Error(`a recorded entry's commit is not in trend-history.commits.json: ${line.slice(0, 120)}`)
    return night >= from && night < to
  })
  expect(lines).toHaveLength(to - from)
  return lines
    .map((line) => {
      const entry = JSON.parse(line) as { id: string; commit: string; label: string }
      const sha = shas[recordedShas.indexOf(entry.commit)]
      return JSON.stringify({ ...entry, id: sha + entry.id.slice(entry.commit.length), commit: sha, label: sha.slice(0, 7) })
    })
    .join('\n')
}

/** addNights appends nights [from, to) to the data branch's history, as mode record does. */
function addNights(from: number, to: number): void {
  const now = gh.git.files('perfgate-data')?.['history/perfgate.jsonl'] ?? ''
  gh.git.write('perfgate-data', 'history/perfgate.jsonl', now + nights(from, to) + '\n', `record nights ${from} to ${to - 1}`)
}

/**
 * checkout clones origin as main stood on night into a fresh workspace,
 * shallow (actions/checkout's default) or with the full history
 * (fetch-depth: 0).
 */
function checkout(name: string, night: number, shallow: boolean): string {
  const workspace = path.join(tmp, `${name}-workspace`)
  git(origin, 'branch', '-f', `night-${night}`, shas[night])
  git(tmp, 'clone', '-q', ...(shallow ? ['--depth=1'] : []), '--branch', `night-${night}`, `file://${origin}`, workspace)
  git(workspace, 'checkout', '-q', '-B', 'main')
  return workspace
}

/**
 * nightly runs mode trend on night's checkout (after mode record in the
 * same job, when record is set), then mode publish from their artifacts,
 * and returns what trend and publish printed.
 */
async function nightly(
  name: string,
  night: number,
  shallow = false,
  record = false,
): Promise<{ trend: ActionResult; publish: ActionResult }> {
  const issuesBefore = JSON.stringify(gh.issues)
  const historyBefore = gh.git.files('perfgate-data')?.['history/perfgate.jsonl']
  const workspace = checkout(name, night, shallow)
  const recorded = record ? await step(`${name}-record`, name, workspace, night, { mode: 'record' }) : undefined
  if (recorded) {
    expect(recorded.output, recorded.output.slice(-3000)).toMatch(/verdict[^\n]*pass/)
    // pair-with: last (the default): a duet against the newest recorded night.
    expect(recorded.output).toMatch(new RegExp(`recorded main paired with ${shas[night - 1].slice(0, 7)} \\(duet`))
  }
  const trend = await step(name, name, workspace, night, { mode: 'trend', 'confirm-budget': '0' })
  if (recorded) expect(trend.output).toMatch(/tonight's entry \([0-9a-f]{12}\) from the record step added/)
  expect(trend.output, trend.output.slice(-3000)).not.toMatch(/::error/)
  // Its token only reads: the trend job writes neither the history nor the issue.
  expect(gh.git.files('perfgate-data')?.['history/perfgate.jsonl']).toBe(historyBefore)
  expect(JSON.stringify(gh.issues)).toBe(issuesBefore)
  expect(trend.artifacts).toEqual(['perfgate-results-trend-attempt-1.zip'])
  listArtifacts(gh, recorded ? [recorded, trend] : [trend])
  // The publish job's workspace is empty: it checks out nothing.
  mkdirSync(path.join(tmp, `${name}-publish-empty`))
  const publish = await runAction(
    { tmp, gh, workspace: path.join(tmp, `${name}-publish-empty`), sha: shas[night] },
    {
      name: `${name}-publish`,
      event: 'schedule',
      payload: { schedule: '17 3 * * *' },
      ref: 'main',
      inputs: { mode: 'publish' },
    },
  )
  expect(publish.output, publish.output.slice(-3000)).not.toMatch(/::error/)
  expect(publish.output).toMatch(/built fresh for this step/)
  return { trend, publish }
}

/** step runs one perfgate step of the nightly's measuring job (named job) in workspace, on night's commit. */
async function step(name: string, job: string, workspace: string, night: number, inputs: Record<string, string>): Promise<ActionResult> {
  return runAction(
    { tmp, gh, workspace, sha: shas[night] },
    {
      name,
      job,
      event: 'schedule',
      payload: { schedule: '17 3 * * *' },
      ref: 'main',
      inputs: { 'working-directory': trendRepo.service, config: `${trendRepo.service}/perfgate.yml`, ...inputs },
    },
  )
}

/** ConfirmationLine is the part of a history's confirmation line the scenarios read. */
interface ConfirmationLine {
  kind: string
  status: string
  metric: string
  outcome: string
  commit?: string
  reason?: string
}

/** confirmations are the confirmation lines on the data branch. */
function confirmations(): ConfirmationLine[] {
  const lines = (gh.git.files('perfgate-data')?.['history/perfgate.jsonl'] ?? '').trim().split('\n')
  return lines.map((l) => JSON.parse(l) as ConfirmationLine).filter((l) => l.kind === 'confirmation')
}

describe('mode trend on the nightly history', () => {
  it('on a shallow checkout: finds the step, says it cannot confirm it, and opens no issue', async () => {
    addNights(0, trendRepo.revertedAt)
    const { trend, publish } = await nightly('shallow', trendRepo.revertedAt - 1, true)
    const { summary } = trend
    expect(summary).toContain('perfgate trend: perfgate')
    // The summary's Markdown escapes punctuation in reasons: read it without the backslashes.
    expect(summary.replaceAll('\\', '')).toMatch(/allocs[^\n]*could not be checked: [^\n]*fetch-depth: 0/)
    const allocs = confirmations().filter((c) => c.metric === 'allocs')
    expect(allocs).toHaveLength(1)
    expect(allocs[0].status).toBe('failed')
    expect(gh.issues).toEqual([])
    expect(publish.output).toMatch(/trend issue: nothing to do/)
    expect(gh.problems).toEqual([])
  })

  it('on a full checkout: tries the step again, confirms it with a real paired gate and opens the issue naming the planted commit', async () => {
    const { trend, publish } = await nightly('regressed', trendRepo.revertedAt - 1)
    const { output, summary } = trend
    expect(output).toMatch(/paired gate [0-9a-f]{7} \(base\) vs [0-9a-f]{7} \(head\)/)
    const planted = shas[trendRepo.plantedAt]
    expect(summary).toMatch(
      new RegExp(
        `allocs[^\\n]*confirmed \\+[0-9.]+% at \\[\`${planted.slice(0, 7)}\`\\]\\(https://github.com/acme/shop/commit/${planted}\\)`,
      ),
    )
    const allocs = confirmations().filter((c) => c.metric === 'allocs')
    expect(allocs.map((c) => c.status)).toEqual(['failed', 'confirmed'])
    expect(allocs[1]).toMatchObject({ outcome: 'regression', commit: planted })
    expect(gh.issues).toHaveLength(1)
    const [issue] = gh.issues
    expect(issue).toMatchObject({ state: 'open', labels: ['perfgate-trend'] })
    expect(issue.body.split('\n')[0]).toBe('<!-- perfgate-trend: perfgate -->')
    expect(issue.body).toContain(`https://github.com/acme/shop/commit/${planted}`)
    expect(issue.title).toMatch(/perfgate: .*regress/)
    // The issue's links name the trend job's artifact, which holds the confirming gate's files.
    expect(issue.body).toContain('perfgate-results-trend-attempt-1')
    expect(publish.output).toMatch(/trend issue #\d+ created/)
    expect(gh.problems).toEqual([])
  })

  it('ten nights after the revert: confirms the step down with a real paired gate and closes the issue', async () => {
    // Tonight (the last night) is recorded by mode record, in the same job as trend.
    addNights(trendRepo.revertedAt, trendRepo.commits - 1)
    const { trend, publish } = await nightly('reverted', trendRepo.commits - 1, false, true)
    const lines = (gh.git.files('perfgate-data')?.['history/perfgate.jsonl'] ?? '').trim().split('\n')
    expect(lines.filter((l) => (JSON.parse(l) as { commit: string }).commit === shas[trendRepo.commits - 1])).toHaveLength(1)
    const reverted = shas[trendRepo.revertedAt]
    expect(trend.summary.replaceAll('\\', '')).toMatch(
      new RegExp(
        `allocs[^\\n]*confirmed -[0-9.]+% at \\[\`${reverted.slice(0, 7)}\`\\]\\(https://github.com/acme/shop/commit/${reverted}\\)`,
      ),
    )
    const allocs = confirmations().filter((c) => c.metric === 'allocs')
    expect(allocs.map((c) => [c.status, c.outcome])).toEqual([
      ['failed', expect.any(String)],
      ['confirmed', 'regression'],
      ['confirmed', 'improvement'],
    ])
    expect(allocs[2].commit).toBe(reverted)
    expect(gh.issues).toHaveLength(1)
    expect(
      gh.issues[0].state,
      `${gh.issues[0].title}\n${trend.output.match(/perfgate trend: \d+ entries[\s\S]*?wrote/)?.[0] ?? trend.output.slice(-3000)}`,
    ).toBe('closed')
    expect(publish.output).toMatch(/trend issue #\d+ closed/)
    expect(gh.problems).toEqual([])
  })

  it("a pull request's gate reads the history and shows where main stands, without writing it", async () => {
    git(origin, 'checkout', '-q', '-B', 'feature', shas[trendRepo.commits - 1])
    writeFileSync(path.join(origin, trendRepo.service, 'CHANGES'), 'a pull request\n')
    git(origin, 'commit', '-q', '-am', 'a pull request')
    const head = git(origin, 'rev-parse', 'HEAD')
    git(origin, 'checkout', '-q', '--detach')
    const workspace = path.join(tmp, 'pull-workspace')
    git(tmp, 'clone', '-q', '--depth=1', '--branch', 'feature', `file://${origin}`, workspace)
    gh.pulls = [{ number: 9, headSha: head, headRepo: 'acme/shop', state: 'open' }]
    const history = gh.git.files('perfgate-data')?.['history/perfgate.jsonl']
    const { output, summary } = await runAction(
      { tmp, gh, workspace, sha: head },
      {
        name: 'pull',
        payload: {
          action: 'synchronize',
          number: 9,
          pull_request: {
            number: 9,
            head: { sha: head, ref: 'feature', repo: { full_name: 'acme/shop' } },
            base: { ref: 'main', repo: { full_name: 'acme/shop' } },
          },
          repository: { full_name: 'acme/shop', name: 'shop', owner: { login: 'acme' } },
        },
        inputs: { 'working-directory': trendRepo.service, config: `${trendRepo.service}/perfgate.yml`, 'fail-on': 'never' },
      },
    )
    expect(output, output.slice(-3000)).not.toMatch(/::error/)
    expect(output).toMatch(/history: 1 file\(s\) from branch perfgate-data/)
    expect(summary).toContain(`Where main stands: its last nightly medians (perfgate, ${trendRepo.commits} recordings)`)
    expect(gh.comments.get(9)?.[0]?.body).toContain('Where main stands')
    expect(gh.git.files('perfgate-data')?.['history/perfgate.jsonl']).toBe(history)
    expect(gh.problems).toEqual([])
  })
})
