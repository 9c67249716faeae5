import type { Octokit } from './octokit.js'

/** Where to look for the first run of a pull request's head commit. */
export interface HeadRunsQuery {
  readonly owner: string
  readonly repo: string
  /** workflow is the gate's workflow: its file name (GITHUB_WORKFLOW_REF) or its ID (a workflow_run payload's). */
  readonly workflow: string | number
  readonly pullNumber: number
  readonly headSha: string
  /**
   * notBefore (ms since the epoch) is the latest event that could have made
   * an earlier commit the head again (a force push, a restored branch, a
   * reopened pull request): a run before it measured the commit in an
   * earlier stretch as head, and does not date this one.
   */
  readonly notBefore?: number
}

/** PULL_REQUEST_EVENTS are the events whose runs a pull request's push starts. */
const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_target'])

/** RUNS_READ caps the runs read for one commit: label events and re-runs add a few each. */
const RUNS_READ = 500

/**
 * headFirstSeenAt is when GitHub first ran the gate's workflow for the pull
 * request's head commit: the created_at of the earliest run on a
 * pull_request (or pull_request_target) event for headSha of this pull
 * request. GitHub sets it
 * when the run is created, after the push that made the commit the head,
 * and a committer cannot date it: a label added after it was added after
 * that push, whatever the commit's own dates say (the timeline dates a
 * plain push only by the committer's date). A run that GitHub lists for
 * another pull request does not count: a commit pushed first to another
 * pull request, and to this one after the label, would otherwise look
 * old. A fork's run lists no pull request; it counts only with this pull
 * request's head repository and branch.
 *
 * Only runs created since the pull request was opened and since
 * q.notBefore count: a commit that was the head once, left by a force
 * push, and pushed back (a fast-forward, which the timeline dates by the
 * committer's date alone) must not be dated by its first stretch.
 *
 * '' when no such run exists. Throws when the runs cannot be listed (a
 * token without actions: read).
 */
export async function headFirstSeenAt(octokit: Octokit, q: HeadRunsQuery): Promise<string> {
  const { data: pull } = await octokit.rest.pulls.get({ owner: q.owner, repo: q.repo, pull_number: q.pullNumber })
  const headRepo = pull.head.repo?.full_name ?? ''
  let read = 0
  const runs = await octokit.paginate(
    octokit.rest.actions.listWorkflowRuns,
    { owner: q.owner, repo: q.repo, workflow_id: q.workflow, head_sha: q.headSha, per_page: 100 },
    (response, done) => {
      read += response.data.length
      if (read >= RUNS_READ) done()
      return response.data
    },
  )
  const since = Math.max(Date.parse(pull.created_at) || 0, q.notBefore ?? 0)
  let first = Infinity
  for (const run of runs) {
    if (run.head_sha !== q.headSha || !PULL_REQUEST_EVENTS.has(run.event)) continue
    const listed = run.pull_requests ?? []
    const ours =
      listed.length > 0
        ? listed.some((p) => p.number === q.pullNumber)
        : run.head_repository?.full_name === headRepo && run.head_branch === pull.head.ref
    const created = Date.parse(run.created_at)
    if (ours && created >= since && created < first) first = created
  }
  return Number.isFinite(first) ? new Date(first).toISOString() : ''
}
