import { firstLine, fitComment, ownLogin } from './comment.js'
import type { Octokit } from './octokit.js'

/** The label on every trend issue: the listing that finds them asks for it. */
export const TREND_LABEL = 'perfgate-trend'

/** GitHub's limits on an issue's title and body. */
export const MAX_TITLE_CHARS = 256
export const MAX_ISSUE_BODY_CHARS = 65536

/** What the comment closing an issue says (issue 13: closed when a later confirmed step reverses it). */
export const RESOLVED_COMMENT = 'resolved: a later confirmed step reversed it'

/** AlarmState is trend.json's alarm.state: raise or keep the issue, close it, or leave it. */
export type AlarmState = 'open' | 'resolved' | 'none'

/** Alarm is what one trend run says about one config's issue. */
export interface Alarm {
  readonly config: string
  readonly state: AlarmState
  readonly title: string
  /** body is the engine's alarm.md: escaped Markdown whose first line is the config's marker. */
  readonly body: string
}

export type AlarmOutcome =
  | { readonly action: 'created' | 'updated' | 'reopened' | 'closed'; readonly number: number }
  | { readonly action: 'none'; readonly reason: string }

/** trendMarker is the hidden first line that makes a config's trend issue findable (the engine writes it). */
export function trendMarker(config: string): string {
  return `<!-- perfgate-trend: ${config} -->`
}

/**
 * AlarmRefused is an alarm perfgate will not post: its body does not
 * start with its config's marker, so it is not what the engine renders
 * (and a later run could not find the issue again).
 */
export class AlarmRefused extends Error {}

/**
 * raiseAlarm keeps one sticky issue per config in step with the trend.
 * open: update the open issue, else reopen the most recent closed one (a
 * step that comes back belongs with its history), else create one.
 * resolved: comment and close the open issue. none: nothing. Issues are
 * found by the marker on their first line, among those with the label that
 * the token's own identity opened: a marker in someone else's issue is
 * ignored, as for the pull request comment.
 */
export async function raiseAlarm(
  octokit: Octokit,
  repository: { readonly owner: string; readonly repo: string },
  alarm: Alarm,
  runUrl: string,
): Promise<AlarmOutcome> {
  if (alarm.state === 'none') return { action: 'none', reason: 'no confirmed step changed since the last run' }
  if (/[\r\n]|-->/.test(alarm.config))
    throw new AlarmRefused(`refusing the trend alarm: its config name ${JSON.stringify(alarm.config)} cannot be put in a marker line`)
  const marker = trendMarker(alarm.config)
  const { owner, repo } = repository
  const found = await findIssue(octokit, repository, marker)
  if (alarm.state === 'resolved') {
    if (!found || found.state !== 'open') return { action: 'none', reason: `no open trend issue for ${alarm.config} to close` }
    const link = runUrl ? ` (${runUrl})` : ''
    await octokit.rest.issues.createComment({ owner, repo, issue_number: found.number, body: `${marker}\n${RESOLVED_COMMENT}${link}.` })
    await octokit.rest.issues.update({ owner, repo, issue_number: found.number, state: 'closed', state_reason: 'completed' })
    return { action: 'closed', number: found.number }
  }
  const body = checkedBody(alarm.body, marker, runUrl)
  const title = plainTitle(alarm.title, alarm.config)
  if (!found) {
    const { data } = await octokit.rest.issues.create({ owner, repo, title, body, labels: [TREND_LABEL] })
    return { action: 'created', number: data.number }
  }
  if (found.state === 'open') {
    await octokit.rest.issues.update({ owner, repo, issue_number: found.number, title, body })
    return { action: 'updated', number: found.number }
  }
  await octokit.rest.issues.update({ owner, repo, issue_number: found.number, title, body, state: 'open', state_reason: 'reopened' })
  return { action: 'reopened', number: found.number }
}

/** findIssue returns the config's issue: the oldest open one, else the most recently closed. */
async function findIssue(
  octokit: Octokit,
  repository: { readonly owner: string; readonly repo: string },
  marker: string,
): Promise<{ number: number; state: string } | undefined> {
  const me = await ownLogin(octokit)
  const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
    ...repository,
    labels: TREND_LABEL,
    state: 'all',
    per_page: 100,
  })
  // The workflow token's login is a guess: a GitHub App's installation
  // token cannot name its app (GET /app takes a JWT). Then any app's issue
  // with the label and the marker is ours, rather than a new issue every
  // run. People's never are.
  const author = (user: { login?: string; type?: string } | null | undefined): boolean =>
    user?.login === me || (me === 'github-actions[bot]' && user?.type === 'Bot')
  const ours = issues.filter((i) => !i.pull_request && author(i.user) && firstLine(i.body) === marker)
  const open = ours.filter((i) => i.state === 'open').sort((a, b) => a.number - b.number)
  const closed = ours.filter((i) => i.state !== 'open').sort((a, b) => b.number - a.number)
  const pick = open[0] ?? closed[0]
  return pick && { number: pick.number, state: pick.state }
}

/** checkedBody refuses a body without the marker on its first line and keeps it within GitHub's limit. */
function checkedBody(body: string, marker: string, runUrl: string): string {
  const first = body.split('\n', 1)[0].replace(/\r$/, '')
  if (first !== marker) {
    throw new AlarmRefused(
      `refusing the trend alarm: alarm.md must start with the line ${marker}, and it starts with ${JSON.stringify(first.slice(0, 80))}. The issue was not written; the trend page is in the artifact.`,
    )
  }
  return fitComment(
    body,
    `The whole trend is in the job summary and the trend artifact${runUrl ? ` of ${runUrl}` : ''}.`,
    MAX_ISSUE_BODY_CHARS,
  )
}

/**
 * plainTitle makes the title one line within GitHub's limit. It is sent as
 * the API's plain-text title field, which GitHub never renders as
 * Markdown or HTML, so nothing in it needs escaping.
 */
function plainTitle(title: string, config: string): string {
  const line = title.replace(/[\p{Cc}\s]+/gu, ' ').trim()
  const chosen = line || `perfgate: a confirmed performance step in ${config}`
  return chosen.length <= MAX_TITLE_CHARS ? chosen : `${chosen.slice(0, MAX_TITLE_CHARS - 1)}…`
}
