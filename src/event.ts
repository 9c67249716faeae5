/**
 * The event that started the workflow, reduced to what perfgate needs:
 * which pull request (if any), whether its code comes from a fork, and what
 * the defaults for base and comment are.
 */

/** EventContext is the part of @actions/github's context that is read. */
export interface EventContext {
  readonly eventName: string
  readonly payload: Record<string, unknown>
  readonly repo: { readonly owner: string; readonly repo: string }
  readonly sha: string
}

export interface PullRequest {
  readonly number: number
  /** headSha is the pull request's head commit when the event fired. */
  readonly headSha: string
  /** baseBranch is the branch the pull request merges into. */
  readonly baseBranch: string
  /** fork says the head lives in another repository. */
  readonly fork: boolean
}

/** WorkflowRun is the run a workflow_run event reports on (stage one). */
export interface WorkflowRun {
  readonly id: number
  /** workflowId is the ID of the run's workflow (0 when the payload does not say). */
  readonly workflowId: number
  /** runAttempt is the attempt that completed (1 when the payload does not say). */
  readonly runAttempt: number
  readonly event: string
  readonly headSha: string
  readonly headBranch: string
  readonly headRepository: string
  readonly conclusion: string
  /** pullNumbers are the pull requests the payload lists (empty for forks). */
  readonly pullNumbers: readonly number[]
}

export interface EventInfo {
  readonly name: string
  readonly owner: string
  readonly repo: string
  readonly sha: string
  /** defaultBranch is the repository's default branch as the payload names it ('' when it does not). */
  readonly defaultBranch: string
  /** pushedBranch is the branch a push event updated ('' for other events and for tags). */
  readonly pushedBranch: string
  readonly pullRequest?: PullRequest
  readonly workflowRun?: WorkflowRun
}

/** describeEvent reads the event payload defensively: fields may be absent. */
export function describeEvent(context: EventContext): EventInfo {
  const { owner, repo } = context.repo
  const ref = str(context.payload.ref)
  const info = {
    name: context.eventName,
    owner,
    repo,
    sha: context.sha,
    defaultBranch: str(record(context.payload.repository)?.default_branch),
    pushedBranch: context.eventName === 'push' && ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : '',
  }
  const pr = record(context.payload.pull_request)
  if (pr && (context.eventName === 'pull_request' || context.eventName === 'pull_request_target')) {
    const head = record(pr.head)
    const base = record(pr.base)
    const headRepo = record(head?.repo)
    const baseRepo = record(base?.repo)
    return {
      ...info,
      pullRequest: {
        number: num(pr.number),
        headSha: str(head?.sha),
        baseBranch: str(base?.ref),
        // A deleted fork has no head repo: treat it as a fork.
        fork: headRepo === undefined || str(headRepo.full_name) !== str(baseRepo?.full_name),
      },
    }
  }
  const run = record(context.payload.workflow_run)
  if (run && context.eventName === 'workflow_run') {
    const pulls = Array.isArray(run.pull_requests) ? run.pull_requests : []
    return {
      ...info,
      workflowRun: {
        id: num(run.id),
        workflowId: num(run.workflow_id),
        runAttempt: num(run.run_attempt) || 1,
        event: str(run.event),
        headSha: str(run.head_sha),
        headBranch: str(run.head_branch),
        headRepository: str(record(run.head_repository)?.full_name),
        conclusion: str(run.conclusion),
        pullNumbers: pulls.map((p) => num(record(p)?.number)).filter((n) => n > 0),
      },
    }
  }
  return info
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : 0
}
