import * as core from '@actions/core'
import { getErrorMessage } from './errors.js'
import { headFirstSeenAt } from './head-seen.js'
import { escapeMarkdown } from './markdown.js'
import type { Octokit } from './octokit.js'
import type { Acceptance } from './report-links.js'

export interface AcceptTarget {
  readonly owner: string
  readonly repo: string
  readonly pullNumber: number
  /** label is the accept-label input; '' disables acceptance. */
  readonly label: string
  /** headSha is the commit the verdict is about: the label must be newer than its push. */
  readonly headSha: string
  /** bots are the accept-bots input: the apps whose label counts. */
  readonly bots?: readonly string[]
  /**
   * headPushedAt is when this run's own event moved the head (a
   * synchronize, opened or reopened payload's updated_at, server time),
   * '' when the event did not: see headPushedAt().
   */
  readonly headPushedAt?: string
  /**
   * workflow is the gate's workflow (file name or ID): in a run its own
   * push did not start (a label, the fork-safe comment stage), the first
   * run of that workflow for the head dates the push (headFirstSeenAt).
   * Left out, only the timeline dates it.
   */
  readonly workflow?: string | number
}

/**
 * IgnoredLabel is an accept label that is on the pull request but does not
 * accept this commit, and why: added before the head's latest push, by
 * someone without write access, or by an app accept-bots does not list.
 */
export interface IgnoredLabel {
  readonly label: string
  readonly by: string
  readonly why:
    { readonly stale: string } | { readonly undated: string; readonly sha: string } | { readonly role: string } | { readonly bot: true }
}

/** LabelDecision is what the accept label decides for a regression: accepted, ignored (and why), or neither (no label). */
export interface LabelDecision {
  readonly acceptance?: Acceptance
  readonly ignored?: IgnoredLabel
}

/** Roles whose label accepts a regression (role_name of the permission endpoint). */
const ACCEPTING_ROLES = new Set(['admin', 'maintain', 'write'])
/** GitHub's base roles; any other role_name is a custom role, judged by its base permission. */
const BASE_ROLES = new Set(['admin', 'maintain', 'write', 'triage', 'read', 'none'])

/** Timeline events that move the head: a push (commits), a force push, a restored branch, a reopened pull request. */
const HEAD_EVENTS = new Set(['committed', 'head_ref_force_pushed', 'head_ref_restored', 'reopened'])

/** TimelineEvent is the part of a timeline entry that is read; the REST description types each kind apart. */
interface TimelineEvent {
  event?: string
  created_at?: string
  actor?: { login?: string; type?: string } | null
  label?: { name?: string }
  sha?: string
  committer?: { date?: string }
}

/**
 * findAcceptance decides whether the accept label accepts the regression
 * of target.headSha. It reads the label on every run (nothing is stored:
 * removing it gates the next run again) and the pull request's timeline.
 * The label counts when its newest `labeled` event
 *
 *  1. is later than every event that moved the head: each `committed`
 *     event (by its committer date: the timeline gives no push time for a
 *     plain push), `head_ref_force_pushed`, `head_ref_restored` and
 *     `reopened` (by created_at), and this run's own push (headPushedAt)
 *     or, in a run another event started, the first run of the workflow
 *     for the head (headFirstSeenAt: GitHub's clock, which a backdated
 *     commit cannot move); when that cannot be read, the label is
 *     ignored, and says why;
 *  2. was made by an account whose role on the repository is write,
 *     maintain or admin (a custom role by its base permission), or by an
 *     app (a Bot account) listed in accept-bots.
 *
 * Labels compare case-insensitively, as GitHub names them. It throws when
 * the API cannot be read.
 */
export async function findAcceptance(octokit: Octokit, target: AcceptTarget): Promise<LabelDecision> {
  const { owner, repo, pullNumber, label } = target
  if (label === '' || pullNumber <= 0) return {}
  const wanted = label.toLowerCase()
  const labels = await octokit.paginate(octokit.rest.issues.listLabelsOnIssue, { owner, repo, issue_number: pullNumber, per_page: 100 })
  const present = labels.find((l) => l.name.toLowerCase() === wanted)
  if (!present) {
    core.info(`the pull request does not have the label ${JSON.stringify(label)}: the regression is gated`)
    return {}
  }
  const timeline = (await octokit.paginate(octokit.rest.issues.listEventsForTimeline, {
    owner,
    repo,
    issue_number: pullNumber,
    per_page: 100,
  })) as TimelineEvent[]
  const labeled = timeline.filter((e) => e.event === 'labeled' && e.label?.name?.toLowerCase() === wanted)
  const newest = labeled.reduce<TimelineEvent | undefined>((a, e) => (a && time(a.created_at) > time(e.created_at) ? a : e), undefined)
  const by = newest?.actor?.login ?? ''
  if (!newest || by === '') {
    core.warning(
      `The pull request has the label ${JSON.stringify(present.name)}, but its events do not say who added it, so the regression is not accepted. Remove the label and add it again.`,
    )
    return {}
  }
  const ignored = (why: IgnoredLabel['why']): LabelDecision => ({ ignored: { label: present.name, by, why } })

  const labeledAt = time(newest.created_at)
  let headSeenAt = ''
  if (!target.headPushedAt && target.workflow !== undefined) {
    try {
      const notBefore = Math.max(
        0,
        ...timeline.filter((e) => e.event !== 'committed' && HEAD_EVENTS.has(e.event ?? '')).map((e) => time(e.created_at)),
      )
      headSeenAt = await headFirstSeenAt(octokit, {
        owner,
        repo,
        workflow: target.workflow,
        pullNumber,
        headSha: target.headSha,
        notBefore,
      })
    } catch (error) {
      return ignored({ undated: `the runs of the workflow for it cannot be listed: ${getErrorMessage(error)}`, sha: target.headSha })
    }
    if (headSeenAt === '')
      return ignored({ undated: 'no run of the workflow on a pull request event has measured it', sha: target.headSha })
  }
  const headMovedAt = Math.max(
    time(target.headPushedAt),
    time(headSeenAt),
    ...timeline.filter((e) => HEAD_EVENTS.has(e.event ?? '')).map((e) => time(e.event === 'committed' ? e.committer?.date : e.created_at)),
  )
  // Not strictly later (or no time to compare) is not after the push.
  if (!(labeledAt > headMovedAt)) return ignored({ stale: target.headSha })

  if (newest.actor?.type === 'Bot' || by.toLowerCase().endsWith('[bot]')) {
    return allowedBot(by, target.bots ?? []) ? { acceptance: { label: present.name, by } } : ignored({ bot: true })
  }
  const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: by })
  const role = data.role_name || data.permission
  const accepts = BASE_ROLES.has(role) ? ACCEPTING_ROLES.has(role) : data.permission === 'admin' || data.permission === 'write'
  return accepts ? { acceptance: { label: present.name, by } } : ignored({ role: role || 'no' })
}

/** time reads an ISO timestamp; a missing or unreadable one is -Infinity (never "later"). */
function time(iso: string | undefined): number {
  const t = iso ? Date.parse(iso) : NaN
  return Number.isNaN(t) ? -Infinity : t
}

/** allowedBot says whether accept-bots lists the app, as renovate[bot] or renovate, without case. */
function allowedBot(login: string, bots: readonly string[]): boolean {
  const name = login.toLowerCase().replace(/\[bot\]$/, '')
  return bots.some((b) => b.toLowerCase().replace(/\[bot\]$/, '') === name)
}

/**
 * headPushedAt is when the run's own event moved the pull request's head:
 * the payload's updated_at for a synchronize, opened or reopened event
 * (GitHub's clock, which a committer cannot set), '' for any other event.
 * It covers what the timeline cannot: a commit whose committer date was
 * set in the past, pushed after the label.
 */
export function headPushedAt(eventName: string, payload: Record<string, unknown>): string {
  if (eventName !== 'pull_request' && eventName !== 'pull_request_target') return ''
  if (payload.action !== 'synchronize' && payload.action !== 'opened' && payload.action !== 'reopened') return ''
  const updated = (payload.pull_request as { updated_at?: unknown } | undefined)?.updated_at
  return typeof updated === 'string' ? updated : ''
}

/**
 * ignoredSentence says why the label did not accept the commit; quote
 * formats the label and the login (escaped for the comment, as is for the
 * log).
 */
export function ignoredSentence(i: IgnoredLabel, quote: (text: string) => string = (t) => t): string {
  const added = `The label ${quote(i.label)} was added by ${quote(`@${i.by}`)}`
  if ('stale' in i.why) {
    return `${added} before the latest push (${quote(i.why.stale.slice(0, 7))}); add it again to accept this commit.`
  }
  if ('undated' in i.why) {
    return `${added}, but when ${quote(i.why.sha.slice(0, 7))} was pushed cannot be read (${quote(i.why.undated)}), so the label cannot be shown to be newer; give the job \`permissions: actions: read\` and run it again.`
  }
  if ('role' in i.why) {
    return `${added}, who has ${quote(i.why.role)} permission; acceptance needs write, maintain or admin.`
  }
  return `${added}, an app that accept-bots does not list; acceptance needs a person with write, maintain or admin permission, or the app in accept-bots.`
}

/** withIgnoredLabel puts the reason an accept label was ignored under the comment's heading. */
export function withIgnoredLabel(markdown: string, decision: LabelDecision): string {
  if (!decision.ignored) return markdown
  const note = `_${ignoredSentence(decision.ignored, (t) => escapeMarkdown(t, 100))}_`
  const lines = markdown.split('\n')
  const heading = lines.findIndex((l) => l.startsWith('#'))
  const at = heading >= 0 ? heading + 1 : lines[0]?.startsWith('<!--') ? 1 : 0
  lines.splice(at, 0, '', note)
  return lines.join('\n')
}

/**
 * acceptRegression is findAcceptance for a regression verdict, in its own
 * log group: an API failure (a token without issues or pull-requests read
 * permission) only warns, and the regression is gated as usual.
 */
export async function acceptRegression(octokit: () => Octokit, target: AcceptTarget): Promise<LabelDecision> {
  if (target.label === '' || target.pullNumber <= 0) return {}
  return core.group(`Look for the label ${target.label}`, async () => {
    try {
      const decision = await findAcceptance(octokit(), target)
      const { acceptance, ignored } = decision
      if (acceptance) {
        core.setOutput('accepted-by', acceptance.by)
        core.notice(
          `The performance regression was accepted on purpose: the pull request has the label ${acceptance.label}, added by ${acceptance.by} after the latest push. The check passes; a new push, or removing the label, gates the next run again.`,
          { title: 'perfgate: regression accepted' },
        )
      }
      if (ignored) core.warning(`${ignoredSentence(ignored)} The regression is gated.`, { title: 'perfgate: accept label ignored' })
      return decision
    } catch (error) {
      core.warning(
        `Could not read the labels, timeline or permissions of pull request #${target.pullNumber} to see whether the regression was accepted with ${JSON.stringify(target.label)}: ${getErrorMessage(error)}. Gating the regression as usual. Give the job \`permissions: pull-requests: read\` (or issues: read).`,
      )
      return {}
    }
  })
}
