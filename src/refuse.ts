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
}
