import * as core from '@actions/core'
import type { Octokit } from './octokit.js'

/** GitHub rejects comment bodies longer than this many characters. */
export const MAX_COMMENT_CHARS = 65536

/**
 * commentMarker is the hidden first line that identifies perfgate's comment
 * for one config: a matrix of configs gets one comment each.
 */
export function commentMarker(workingDirectory: string, config: string): string {
  const dir = workingDirectory.replace(/^\.\/?$/, '')
  const key = dir ? `${dir}/${config}` : config
  // Only characters that cannot end the HTML comment or break the line.
  return `<!-- perfgate:report config=${key.replace(/[^A-Za-z0-9._/-]/g, '_')} -->`
}

/**
 * commentBody puts the marker on the first line of report.md (replacing the
 * engine's generic one) and keeps the body within GitHub's limit.
 */
export function commentBody(marker: string, reportMarkdown: string, fullReportHint: string): string {
  const lines = reportMarkdown.split('\n')
  // The engine's generic marker (<!-- perfgate:report -->) makes way.
  if (lines[0]?.startsWith('<!-- perfgate:report')) lines.shift()
  return fitComment(`${marker}\n${lines.join('\n')}`, fullReportHint)
}

/**
 * fitComment cuts a body that is too long at a line boundary outside any
 * code fence or <details> block, and says what was cut and where the whole
 * report is. The engine already keeps report.md under the limit; this is
 * the guard for when it does not.
 */
export function fitComment(body: string, fullReportHint: string, limit = MAX_COMMENT_CHARS): string {
  if (body.length <= limit) return body
  const notice = `\n\n---\n**This report was cut**: it is ${body.length.toLocaleString('en-US')} characters and a comment holds ${limit.toLocaleString('en-US')}. ${fullReportHint}\n`
  const budget = limit - notice.length
  let cut = 0
  let inFence = false
  let openDetails = 0
  let offset = 0
  for (const line of body.split('\n')) {
    const end = offset + line.length + 1
    if (end > budget) break
    const trimmed = line.trim()
    if (/^(```|~~~)/.test(trimmed)) {
      inFence = !inFence
    } else if (!inFence) {
      openDetails += (trimmed.match(/<details\b/gi) ?? []).length - (trimmed.match(/<\/details>/gi) ?? []).length
      openDetails = Math.max(0, openDetails)
    }
    offset = end
    if (!inFence && openDetails === 0) cut = offset
  }
  return body.slice(0, cut).trimEnd() + notice
}

export interface CommentTarget {
  readonly owner: string
  readonly repo: string
  readonly pullNumber: number
  /** measuredSha is the head the report measured; the comment is only written while it is still the PR's head. */
  readonly measuredSha: string
}

export type CommentOutcome =
  | { readonly action: 'created' | 'updated'; readonly id: number; readonly deleted: number }
  | { readonly action: 'skipped'; readonly reason: string }

/**
 * upsertComment writes the sticky comment: it looks for comments that start
 * with the marker and were written by the token's own identity (a marker in
 * someone else's comment is ignored), updates the oldest, deletes other
 * copies, or creates one. It does nothing when the pull request's head has
 * moved past the measured commit: a newer run owns the comment then.
 */
export async function upsertComment(
  octokit: Octokit,
  target: CommentTarget,
  marker: string,
  body: string,
  options: { readonly createIfMissing: boolean } = { createIfMissing: true },
): Promise<CommentOutcome> {
  const { owner, repo, pullNumber } = target
  const { data: pull } = await octokit.rest.pulls.get({ owner, repo, pull_number: pullNumber })
  if (target.measuredSha && pull.head.sha !== target.measuredSha) {
    return {
      action: 'skipped',
      reason: `the pull request's head moved to ${pull.head.sha.slice(0, 12)} after ${target.measuredSha.slice(0, 12)} was measured; the run for the new head writes the comment`,
    }
  }
  const me = await ownLogin(octokit)
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: pullNumber, per_page: 100 })
  const ours = comments.filter((c) => c.user?.login === me && firstLine(c.body) === marker).sort((a, b) => a.id - b.id)
  if (ours.length === 0) {
    if (!options.createIfMissing) return { action: 'skipped', reason: 'no earlier perfgate comment to update and comment is on-regression' }
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: pullNumber, body })
    const author = data.user?.login ?? me
    if (author === me) return { action: 'created', id: data.id, deleted: 0 }
    // The token writes as someone else than ownLogin could tell (a GitHub
    // App's installation token): the comment just created names the
    // author, so look among the comments already listed for its older
    // copy.
    const older = comments.filter((c) => c.user?.login === author && firstLine(c.body) === marker).sort((a, b) => a.id - b.id)
    if (older.length === 0) return { action: 'created', id: data.id, deleted: 0 }
    ours.push(...older, data)
  }
  const [keep, ...duplicates] = ours
  await octokit.rest.issues.updateComment({ owner, repo, comment_id: keep.id, body })
  for (const d of duplicates) {
    await octokit.rest.issues.deleteComment({ owner, repo, comment_id: d.id })
  }
  return { action: 'updated', id: keep.id, deleted: duplicates.length }
}

/** firstLine is a comment's or an issue's first line, where perfgate's marker stands. */
export function firstLine(body: string | null | undefined): string {
  return (body ?? '').split('\n', 1)[0].trim()
}

/**
 * ownLogin is the login of the token's identity: GET /user for a person's
 * token; else github-actions[bot], the workflow token's. A GitHub App's
 * installation token cannot name its app (GET /app takes the app's JWT
 * only), so for it the guess is wrong: upsertComment then learns the login
 * from the comment it creates, and trend-issue.ts counts any app's issue
 * with its label and marker as its own.
 */
export async function ownLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated()
    return data.login
  } catch (error) {
    if (!refused(error)) throw error
  }
  return 'github-actions[bot]'
}

/** refused is an API answer that the token may not ask this (401, 403, 404), not an outage. */
function refused(error: unknown): boolean {
  const status = (error as { status?: number }).status
  return status === 401 || status === 403 || status === 404
}

/**
 * writeComment puts a report on the pull request as the sticky comment and
 * says what happened: the comment-id output, or why it was left alone.
 */
export async function writeComment(
  octokit: Octokit,
  target: CommentTarget,
  report: { readonly marker: string; readonly markdown: string; readonly fullReportHint: string; readonly createIfMissing: boolean },
): Promise<void> {
  const body = commentBody(report.marker, report.markdown, report.fullReportHint)
  const outcome = await upsertComment(octokit, target, report.marker, body, { createIfMissing: report.createIfMissing })
  if (outcome.action === 'skipped') {
    core.info(`comment not written: ${outcome.reason}`)
    return
  }
  core.setOutput('comment-id', String(outcome.id))
  const deleted = outcome.deleted ? `; ${outcome.deleted} duplicate(s) deleted` : ''
  core.info(`comment ${outcome.action} on pull request #${target.pullNumber} (ID ${outcome.id})${deleted}`)
}
