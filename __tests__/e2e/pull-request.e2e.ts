import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { extractReport } from '../../src/untrusted-results.js'
import { FakeGitHub } from '../support/fake-github.js'
import { git } from '../support/git.js'
import {
  actionRoot,
  type ActionResult,
  confinable,
  e2eExperiment,
  listArtifacts,
  runAction as runActionIn,
  type Scenario,
} from '../support/local-action.js'

// The real action (src/main.ts and src/post.ts, run by @github/local-action)
// on a pull_request event: a repository whose feature branch plants a
// per-request fmt.Sprintf in the example service, checked out shallow like
// actions/checkout does. The engine is built from engine/, the service is
// measured under cgroup limits, and the comment goes to the fake GitHub API.
let tmp: string
let gh: FakeGitHub
let headSha: string
let workspace: string

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-action-e2e-'))
  const origin = path.join(tmp, 'origin')
  cpSync(path.join(actionRoot, 'examples/service'), origin, { recursive: true })
  writeFileSync(path.join(origin, 'perfgate.yml'), e2eExperiment)
  git(origin, 'init', '-q', '-b', 'main')
  git(origin, 'add', '-A')
  git(origin, 'commit', '-q', '-m', 'the example service')
  git(origin, 'checkout', '-q', '-b', 'feature')
  git(origin, 'apply', path.join(actionRoot, 'examples/regressions/alloc-sprintf.patch'))
  git(origin, 'commit', '-q', '-am', 'search: trace results')
  headSha = git(origin, 'rev-parse', 'HEAD')
  workspace = path.join(tmp, 'workspace')
  git(tmp, 'clone', '-q', '--depth=1', '--branch', 'feature', `file://${origin}`, workspace)

  gh = new FakeGitHub()
  await gh.start()
  gh.pulls = [{ number: 7, headSha, headRepo: 'acme/shop', state: 'open' }]
}, 120_000)

afterAll(async () => {
  await gh?.stop()
  rmSync(tmp, { recursive: true, force: true })
})

const pullRequestPayload = (headRepo = 'acme/shop') => ({
  action: 'synchronize',
  number: 7,
  pull_request: {
    number: 7,
    head: { sha: headSha, ref: 'feature', repo: { full_name: headRepo } },
    base: { ref: 'main', repo: { full_name: 'acme/shop' } },
  },
  repository: { full_name: 'acme/shop', name: 'shop', owner: { login: 'acme' } },
})

/** runAction runs a scenario in this file's checkout: a pull request's event unless the scenario says otherwise. */
const runAction = (scenario: Scenario): Promise<ActionResult> =>
  runActionIn({ tmp, gh, workspace, sha: headSha }, { payload: pullRequestPayload(), ...scenario })

describe('the action on a pull request with a planted regression', () => {
  // Two steps of one pull request: the second needs the first's comment.
  // scripts/vm/suite.sh runs only the first (it crosses sudo; the second
  // differs from it only in what the fake API answers).
  let commentId: number | undefined

  it('fails the step, keeps the results, and writes one comment', async () => {
    const first = await runAction({ name: 'pr' })
    // local-action exits 0 even when the action fails: read what it printed.
    expect(first.output, first.output).toMatch(/performance regression: .*allocs \+/)
    expect(first.output).toMatch(/verdict[^\n]*regression/)
    if (confinable) expect(first.output).not.toContain('UNCONFINED')
    // As on GitHub's runners: the runner user, the engine through sudo -n.
    if (process.env.PERFGATE_E2E_VIA_SUDO === '1') expect(first.output).toContain('running the engine as root through sudo')
    // An engine seeded into the tool cache (scripts/vm) must be the one found, or the run paid for a build.
    if (process.env.PERFGATE_E2E_ENGINE) expect(first.output).toMatch(/perfgate engine: .*from cache\)/)
    // report.html goes up unzipped too (local-action's stand-in zips it
    // anyway), and the comment opens it before the zipped results.
    expect([...first.artifacts].sort()).toEqual(['perfgate-report-perfgate-results-attempt-1.html.zip', 'perfgate-results-attempt-1.zip'])
    const zip = readFileSync(path.join(first.dir, 'artifacts', 'perfgate-results-attempt-1.zip'))
    const report = JSON.parse(new TextDecoder().decode(extractReport(zip))) as { environment: { confinement: string } }
    if (process.env.PERFGATE_E2E_VIA_SUDO === '1') expect(report.environment.confinement).toContain('cgroup v2')
    // The engine folds its log for GitHub; the comment is re-rendered with links after the upload.
    expect(first.output).toMatch(/\$ (sudo )?perfgate gate --config perfgate\.yml .* --log-format github/)
    expect(first.output).not.toContain('Rendering the report with links failed')
    const comments = gh.comments.get(7) ?? []
    expect(comments).toHaveLength(1)
    expect(comments[0].body.split('\n')[0]).toBe('<!-- perfgate:report config=perfgate.yml -->')
    expect(comments[0].body).toContain('perfgate: regression')
    expect(comments[0].body).toMatch(/\| Allocations per request \| [^\n]*🔴 regression/)
    expect(comments[0].body).toContain('--config perfgate.yml --base')
    expect(comments[0].body).toMatch(
      /\[report\.html\]\(https:\/\/github\.com\/acme\/shop\/actions\/runs\/4242\/artifacts\/\d+\) · \[results artifact\]/,
    )
    expect(git(workspace, 'status', '--porcelain')).toBe('')
    expect(gh.count('issues/create-comment')).toBe(1)
    commentId = comments[0].id
  })

  it('a second run, with the accept label, passes and updates the comment', async () => {
    expect(commentId, 'the first run wrote no comment').toBeDefined()
    gh.addLabel(7, 'perfgate:accept', 'alice')
    const second = await runAction({ name: 'pr', attempt: 2, inputs: { 'accept-label': 'perfgate:accept' } })
    expect(second.output).toMatch(/verdict[^\n]*regression/)
    expect(second.output).toContain('The performance regression was accepted on purpose')
    expect(second.output).toContain('added by alice')
    expect(second.output).not.toMatch(/performance regression: .*allocs \+/)
    expect(second.output).toMatch(/perfgate engine: .*from cache|perfgate engine: .*built/)
    expect(resultsArtifacts(second.artifacts)).toEqual(['perfgate-results-attempt-2.zip'])
    expect(gh.comments.get(7)?.map((c) => c.id)).toEqual([commentId])
    expect(gh.count('issues/create-comment')).toBe(1)
    expect(gh.count('issues/update-comment')).toBe(1)
    expect(gh.problems).toEqual([])
    expect(existsSync(path.join(workspace, 'results'))).toBe(false)
    gh.removeLabel(7, 'perfgate:accept', 'alice')
  })
})

describe('the action where it must not comment or cannot compare', () => {
  it('on a pull request from a fork: measures, keeps the results, writes the summary, never tries to comment', async () => {
    const before = gh.requests.length
    const { output, artifacts, summary } = await runAction({
      name: 'fork',
      payload: pullRequestPayload('mallory/shop'),
      inputs: { 'fail-on': 'never' },
    })
    expect(output).toContain('This pull request comes from a fork')
    expect(output).toContain('pr-gate-fork-safe.yml')
    expect(resultsArtifacts(artifacts)).toEqual(['perfgate-results-attempt-1.zip'])
    expect(summary).toContain('perfgate: regression')
    // Its read-only token only looks for main's history (the data branch
    // does not exist here) and for the accept label (action.yml's default,
    // not on the pull request); it writes nothing and never comments.
    expect(gh.requests.slice(before).map((r) => `${r.method} ${r.operationId}`)).toEqual([
      'GET git/get-ref',
      'GET issues/list-labels-on-issue',
    ])
  })

  it('on a push without base-ref: a visible no-baseline report, not a failure', async () => {
    const { output, summary } = await runAction({
      name: 'push',
      event: 'push',
      payload: { ref: 'refs/heads/feature', after: headSha },
      ref: 'feature',
    })
    expect(output).toMatch(/verdict[^\n]*no-baseline/)
    expect(output).not.toMatch(/performance regression|::error|Failed/)
    expect(summary).toContain('perfgate: no baseline')
    expect(summary).toContain('push event has no pull request to compare with')
  })

  it('in mode record on a schedule: measures the checkout alone and keeps it; mode publish adds it to the history', async () => {
    const recorded = await runAction({
      name: 'nightly',
      event: 'schedule',
      payload: { schedule: '0 3 * * *' },
      inputs: { mode: 'record' },
      ref: 'main',
    })
    const { output, artifacts, summary } = recorded
    expect(output).toMatch(/verdict[^\n]*pass/)
    expect(resultsArtifacts(artifacts)).toEqual(['perfgate-results-attempt-1.zip'])
    expect(summary).toContain('perfgate: recorded main')
    // The measuring job's token only reads: the entry waits in the artifact.
    expect(gh.git.files('perfgate-data')).toBeUndefined()
    expect(output).toMatch(/mode publish adds it to branch perfgate-data/)

    // The publish job checks out nothing and adds the entry from the
    // artifact to the data branch, created as an orphan by this first one.
    listArtifacts(gh, [recorded])
    const published = await runAction({
      name: 'nightly-publish',
      event: 'schedule',
      payload: { schedule: '0 3 * * *' },
      inputs: { mode: 'publish' },
      ref: 'main',
    })
    expect(published.output, published.output.slice(-3000)).not.toMatch(/::error|Failed/)
    expect(published.output).toMatch(/built fresh for this step/)
    expect(published.artifacts).toEqual([])
    const files = gh.git.files('perfgate-data') ?? {}
    expect(Object.keys(files).sort()).toEqual(['README.md', 'history/perfgate.jsonl'])
    const entries = files['history/perfgate.jsonl']
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ schema: 1, kind: 'entry', config: 'perfgate', label: 'main', verdict: 'pass' })
    expect(entries[0].artifact).toMatchObject({ name: 'perfgate-results-attempt-1', run_id: 4242 })
    expect(gh.problems).toEqual([])
  })
})

describe('a cancelled job', () => {
  it('stops the engine, which writes what it measured, and still uploads the results', async () => {
    let cancelled = false
    const { output, artifacts } = await runAction({
      name: 'cancel',
      onOutput: (out) => {
        // Once the first duet round is measured, cancel like the runner does: SIGINT to the action's node process.
        if (cancelled || !/\] round 1 (base|head) /.test(out)) return
        cancelled = true
        const engine = execFileSync('pgrep', ['-f', '-n', 'perfgate gate --config'], { encoding: 'utf8' }).trim()
        // The action's node process: the engine's parent, or above sudo's
        // when the engine runs through sudo.
        let parent = Number(engine)
        do parent = Number(readFileSync(`/proc/${parent}/stat`, 'utf8').split(') ')[1].split(' ')[1])
        while (['sudo', 'env', 'perfgate'].includes(readFileSync(`/proc/${parent}/comm`, 'utf8').trim()))
        process.kill(parent, 'SIGINT')
      },
    })
    expect(cancelled, `the first round's progress line never came:\n${output.slice(-4000)}`).toBe(true)
    expect(output).toContain('Received SIGINT: stopping perfgate')
    expect(output).toMatch(/perfgate could not run the experiment: interrupted/)
    expect(resultsArtifacts(artifacts)).toEqual(['perfgate-results-attempt-1.zip'])
    // As runner (scripts/vm), what the engine wrote through sudo before the
    // signal stopped it must be the job user's to delete.
    if (process.getuid?.() !== 0) expect(rootOwned(tmp)).toEqual([])
  })
})

/** resultsArtifacts leaves out report.html's own artifact, uploaded beside the results wherever the engine wrote the page. */
function resultsArtifacts(artifacts: string[]): string[] {
  return artifacts.filter((a) => !a.startsWith('perfgate-report-'))
}

/** rootOwned lists up to five paths under dir that root owns. */
function rootOwned(dir: string): string[] {
  return execFileSync('find', [dir, '-uid', '0'], { encoding: 'utf8' }).split('\n').filter(Boolean).slice(0, 5)
}

describe('the fork-safe two-stage setup', () => {
  it('stage one measures the fork and uploads; stage two comments from the artifact without running its code', async () => {
    const stageOne = await runAction({ name: 'stage1', payload: pullRequestPayload('mallory/shop'), inputs: { comment: 'never' } })
    expect(stageOne.output).toMatch(/performance regression/)
    const zip = readFileSync(path.join(stageOne.dir, 'artifacts', 'perfgate-results-attempt-1.zip'))
    // What GitHub would list for stage one's run, and the pull request the API knows for its head.
    gh.artifacts.set(5151, [{ id: 77, name: 'perfgate-results-attempt-1', sizeInBytes: zip.byteLength, zip: new Uint8Array(zip) }])
    gh.pulls.push({ number: 8, headSha, headRepo: 'mallory/shop', state: 'open' })
    const workflowRun = {
      id: 5151,
      event: 'pull_request',
      head_sha: headSha,
      head_branch: 'feature',
      head_repository: { full_name: 'mallory/shop' },
      conclusion: 'failure',
      pull_requests: [],
    }
    const stageTwo = await runAction({
      name: 'stage2',
      event: 'workflow_run',
      payload: { action: 'completed', workflow_run: workflowRun },
      inputs: { mode: 'comment' },
    })
    expect(stageTwo.output).toMatch(/verdict[^\n]*regression/)
    expect(stageTwo.output).not.toMatch(/::error|Failed/)
    expect(stageTwo.output).not.toContain('$ perfgate gate')
    expect(stageTwo.output).not.toContain('Rendering the report with links failed')
    const [comment, ...more] = gh.comments.get(8) ?? []
    expect(more).toEqual([])
    expect(comment.body.split('\n')[0]).toBe('<!-- perfgate:report config=perfgate.yml -->')
    expect(comment.body).toContain('perfgate: regression')
    // Built from stage two's inputs and the run's head commit, not from the artifact.
    expect(comment.body).toContain(
      `\ngit checkout ${headSha}\nperfgate gate --config perfgate.yml --base &lt;base&gt; --head . --out results/ --seed `,
    )
    expect(stageTwo.output).toMatch(/perfgate engine: .*built fresh for this step/)
    expect(gh.problems).toEqual([])
  })
})
