import * as core from '@actions/core'
import { getErrorMessage } from './errors.js'
import type { Octokit } from './octokit.js'
import type { Acceptance } from './report-links.js'

export interface AcceptTarget {
  readonly owner: string
  readonly repo: string
  readonly pullNumber: number
  /** label is the accept-label input; '' disables acceptance. */
  readonly label: string
}

/**
 * findAcceptance asks the API whether the pull request has the accept label
 * now and, if so, who added it: the actor of the newest `labeled` event for
 * that label. Nothing is stored: the label is read on every run, so
 * removing it gates the next run again. Labels compare case-insensitively,
 * as GitHub names them. It throws when the API cannot be read.
 */
export async function findAcceptance(octokit: Octokit, target: AcceptTarget): Promise<Acceptance | undefined> {
  const { owner, repo, pullNumber, label } = target
  if (label === '' || pullNumber <= 0) return undefined
  const wanted = label.toLowerCase()
  const labels = await octokit.paginate(octokit.rest.issues.listLabelsOnIssue, { owner, repo, issue_number: pullNumber, per_page: 100 })
  const present = labels.find((l) => l.name.toLowerCase() === wanted)
  if (!present) {
    core.info(`the pull request does not have the label ${JSON.stringify(label)}: the regression is gated`)
    return undefined
  }
  const events = await octokit.paginate(octokit.rest.issues.listEvents, { owner, repo, issue_number: pullNumber, per_page: 100 })
  // GitHub lists an issue's events oldest first.
  const labeled = events.filter(
    (e) => e.event === 'labeled' && 'label' in e && (e.label as { name?: string } | undefined)?.name?.toLowerCase() === wanted,
  )
  const newest = labeled[labeled.length - 1]
  const by = newest?.actor?.login ?? ''
  if (by === '') {
    core.warning(
      `The pull request has the label ${JSON.stringify(present.name)}, but its events do not say who added it, so the regression is not accepted. Remove the label and add it again.`,
    )
    return undefined
  }
  return { label: present.name, by }
}

/**
 * acceptRegression is findAcceptance for a regression verdict, in its own
 * log group: an API failure (a token without issues or pull-requests read
 * permission) only warns, and the regression is gated as usual.
 */
export async function acceptRegression(octokit: () => Octokit, target: AcceptTarget): Promise<Acceptance | undefined> {
  if (target.label === '' || target.pullNumber <= 0) return undefined
  return core.group(`Look for the label ${target.label}`, async () => {
    try {
      const acceptance = await findAcceptance(octokit(), target)
      if (acceptance) {
        core.setOutput('accepted-by', acceptance.by)
        core.notice(
          `The performance regression was accepted on purpose: the pull request has the label ${acceptance.label}, added by ${acceptance.by}. The check passes; removing the label gates the next run again.`,
          { title: 'perfgate: regression accepted' },
        )
      }
      return acceptance
    } catch (error) {
      core.warning(
        `Could not read the labels of pull request #${target.pullNumber} to see whether the regression was accepted with ${JSON.stringify(target.label)}: ${getErrorMessage(error)}. Gating the regression as usual. Give the job \`permissions: pull-requests: read\` (or issues: read).`,
      )
      return undefined
    }
  })
}
