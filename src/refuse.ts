import { UserError } from './errors.js'
import type { EventInfo } from './event.js'
import type { Inputs } from './inputs.js'

/**
 * refuseUnsafeEvent stops gate and record where they would run code the
 * workflow should not trust, or where they cannot work.
 */
export function refuseUnsafeEvent(inputs: Inputs, event: EventInfo): void {
  if (event.name === 'pull_request_target' && event.pullRequest?.fork && !inputs.allowUnsafePullRequestTarget) {
    throw new UserError(
      `Refusing mode ${inputs.mode} under pull_request_target for a pull request from a fork: the token can write, and building and running the fork's code with it is unsafe. Use the two-stage setup (a pull_request workflow with mode: gate, and a workflow_run workflow with mode: comment; see examples/workflows/pr-gate-fork-safe.yml), or set allow-unsafe-pull-request-target: true if this workflow never checks out the fork's code.`,
    )
  }
  if (event.name === 'workflow_run') {
    throw new UserError(
      `mode ${inputs.mode} cannot run under workflow_run: it measures the checked-out code. Use mode: comment there, to comment the results of the run that triggered it.`,
    )
  }
  if (inputs.mode === 'record' || inputs.mode === 'trend') refuseOffMain(inputs.mode, event)
}

/** NIGHTLY_EVENTS are the events record and trend run under, besides a push to the default branch. */
const NIGHTLY_EVENTS = ['schedule', 'workflow_dispatch']

/**
 * refuseOffMain lets record and trend run only where a nightly of the
 * default branch runs: a schedule, a manual run, or a push to the default
 * branch. What they measure becomes main's history (mode publish adds it
 * to the data branch), and trend builds and runs older commits: a pull
 * request, a push to another branch or any other event would put a
 * branch's numbers into main's trend, or run a branch's code where the
 * workflow expects main's. An allowlist, so that an event GitHub adds
 * later is refused until someone decides it is safe.
 */
function refuseOffMain(mode: 'record' | 'trend', event: EventInfo): void {
  if (NIGHTLY_EVENTS.includes(event.name)) return
  if (event.name === 'push') {
    if (event.defaultBranch !== '' && event.pushedBranch === event.defaultBranch) return
    throw new UserError(
      `Refusing mode ${mode} under push to ${event.pushedBranch ? `branch ${event.pushedBranch}` : 'a ref that is not a branch'}: mode ${mode} keeps the default branch's history, so it runs on a push to the default branch${event.defaultBranch ? ` (${event.defaultBranch})` : ' (the event payload does not name it)'}, on schedule or on workflow_dispatch. Limit the workflow's push trigger to the default branch (on: push: branches: [${event.defaultBranch || 'main'}]), or use mode: gate to measure a branch against its base.`,
    )
  }
  throw new UserError(
    `Refusing mode ${mode} under ${event.name}: mode ${mode} keeps the default branch's history, so it runs only on schedule, workflow_dispatch, or a push to the default branch. Run it from a nightly workflow (see examples/workflows/nightly.yml); for pull requests use mode: gate.`,
  )
}

/**
 * refuseHistoryBranch stops the history branch from being a branch that
 * holds code: the default branch, or the branch this push updated. Mode
 * publish writes the history there with contents: write (a commit of
 * history files with no shared history would replace the code's tip), and
 * every mode reads the history from it.
 */
export function refuseHistoryBranch(inputs: Inputs, event: EventInfo): void {
  const branch = inputs.historyBranch
  const clash =
    branch === event.defaultBranch
      ? `the repository's default branch`
      : branch === event.pushedBranch
        ? `the branch this push updated`
        : branch === event.pullRequest?.baseBranch
          ? `the branch this pull request merges into`
          : ''
  if (clash === '') return
  throw new UserError(
    `Invalid 'history-branch': ${JSON.stringify(branch)} is ${clash}. The history branch holds only perfgate's history (mode publish commits to it), never code: use a branch of its own, such as perfgate-data (the default).`,
  )
}
