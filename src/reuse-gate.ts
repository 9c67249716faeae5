import * as core from '@actions/core'
import { mkdtemp, writeFile } from 'node:fs/promises'
import * as os from 'node:os'
import * as path from 'node:path'
import { acceptRegression, withIgnoredLabel } from './accept-label.js'
import { reproduceFlags } from './comment-stage.js'
import { findEarlierGate, findReportPage, thisWorkflowFile, type EarlierGate } from './earlier-gate.js'
import { getErrorMessage } from './errors.js'
import type { EventInfo } from './event.js'
import type { Inputs } from './inputs.js'
import { createOctokit } from './octokit.js'
import { readVerdict, type Verdict } from './perfgate.js'
import { renderReport, reportArgs, type Acceptance, type ReportLinks } from './report-links.js'
import { extractReport } from './untrusted-results.js'

/**
 * ReusedGate is the outcome of an earlier gate of the same head commit,
 * re-rendered with the acceptance as it is now: what main reports and
 * decides the check from instead of measuring.
 */
export interface ReusedGate {
  readonly markdown: string
  readonly verdict: Verdict
  readonly reason: string
  readonly acceptance?: Acceptance
}

/**
 * labelChanged says whether the event is a label added to or removed from
 * a pull request: a change that cannot move a measurement, whichever the
 * label (the accept label, or a triage bot's "size/L"). Only a push changes
 * the code; re-measuring on every label would cost a whole gate each time.
 * (A label added while the push's gate still runs cancels it under the
 * examples' cancel-in-progress, finds no finished gate and measures.)
 */
export function labelChanged(eventName: string, payload: Record<string, unknown>): boolean {
  if (eventName !== 'pull_request') return false
  return payload.action === 'labeled' || payload.action === 'unlabeled'
}

/**
 * reuseEarlierGate answers a label added or removed without measuring
 * again: it finds the last gate of the same head commit (a run
 * of this workflow and its results artifact), checks with the engine that
 * its report.json is a complete gate of that commit, and renders it with
 * the acceptance as it is now. undefined means main measures as usual;
 * the log says why. The artifact is treated as hostile (a fork's pull
 * request wrote it, running its own code): sizes capped, report.json
 * alone extracted, read by the engine first, and the comment's commands
 * and links built from the event and the API, never from the report.
 */
export async function reuseEarlierGate(
  inputs: Inputs,
  event: EventInfo,
  payload: Record<string, unknown>,
  engine: () => Promise<string>,
): Promise<ReusedGate | undefined> {
  const pr = event.pullRequest
  if (!pr || !labelChanged(event.name, payload)) return undefined
  if (inputs.comment === 'never') {
    // The fork-safe setup's stage one: stage two comments from this run's
    // own artifact, which only a measurement uploads.
    core.info(`a label changed, but with comment: never another stage comments from this run's artifact: measuring again`)
    return undefined
  }
  const sha = pr.headSha
  return core.group(`Reuse the last gate of ${sha.slice(0, 12)}: only a label changed`, async () => {
    try {
      const reused = await reuse(inputs, event, pr.number, sha, engine)
      if ('none' in reused) {
        core.info(`measuring again: ${oneLine(reused.none)}`)
        return undefined
      }
      return reused
    } catch (error) {
      core.info(`measuring again: reusing the last gate failed (${oneLine(getErrorMessage(error))})`)
      return undefined
    }
  })
}

async function reuse(
  inputs: Inputs,
  event: EventInfo,
  pullNumber: number,
  sha: string,
  engine: () => Promise<string>,
): Promise<ReusedGate | { none: string }> {
  const octokit = createOctokit(inputs.token)
  const found = await findEarlierGate(octokit, {
    owner: event.owner,
    repo: event.repo,
    workflowRef: process.env.GITHUB_WORKFLOW_REF ?? '',
    currentRunId: Number(process.env.GITHUB_RUN_ID),
    pullNumber,
    headSha: sha,
    artifactName: inputs.artifactName,
  })
  if ('none' in found) return found
  const dir = await mkdtemp(path.join(process.env.RUNNER_TEMP || os.tmpdir(), 'perfgate-reused-'))
  const reportJson = path.join(dir, 'report.json')
  await writeFile(reportJson, extractReport(found.artifact.zip))

  const binary = await engine()
  const unusable = await whyNotReusable(binary, reportJson, dir, sha, inputs.failOn)
  if (unusable) return { none: `run ${found.runId}'s ${found.artifact.name}: ${unusable}` }
  // Only after the engine accepted the file, and only to route on.
  const outcome = await readVerdict(dir)
  if (!outcome || outcome.verdict === 'error') return { none: `run ${found.runId}'s report.json has no verdict to reuse` }

  // The event is a label change, not a push: the timeline and the first
  // run of the workflow for the commit date the head.
  const decision =
    outcome.verdict === 'regression'
      ? await acceptRegression(() => octokit, {
          owner: event.owner,
          repo: event.repo,
          pullNumber,
          label: inputs.acceptLabel,
          headSha: sha,
          bots: inputs.acceptBots,
          workflow: thisWorkflowFile(),
        })
      : {}
  const acceptance = decision.acceptance
  // A fork's run wrote that page: the comment of this repository does not link it.
  const reportPage = event.pullRequest?.fork
    ? undefined
    : await findReportPage(octokit, { owner: event.owner, repo: event.repo, runId: found.runId }, found.artifact.name)
  const links = linksOf(event, found, sha, reportPage)
  const rendered = await renderReport(binary, reportArgs(reportJson, links, acceptance, reproduceFlags(inputs, sha)), dir)
  if ('error' in rendered) return { none: `rendering run ${found.runId}'s report.json failed: ${rendered.error}` }
  const note = `Re-rendered from run ${found.runId}'s measurement of \`${sha.slice(0, 12)}\`: the label changed, the code did not (no build, no measurement in this run).`
  core.info(note.replaceAll('`', ''))
  core.setOutput('verdict', outcome.verdict)
  core.setOutput('report-json', reportJson)
  return {
    markdown: withIgnoredLabel(withNote(rendered.markdown, note), decision),
    verdict: outcome.verdict,
    reason: outcome.reason,
    acceptance,
  }
}

/**
 * whyNotReusable has the engine read the report (it refuses hostile JSON)
 * and says why it is not the complete gate of this commit under this
 * fail-on, or '' when it is.
 */
async function whyNotReusable(binary: string, reportJson: string, dir: string, sha: string, failOn: string): Promise<string> {
  const checked = await renderReport(binary, ['report', '--in', reportJson, '--format', 'json'], dir)
  if ('error' in checked) return `the engine refused its report.json (${checked.error})`
  const report = JSON.parse(checked.markdown) as {
    mode?: unknown
    complete?: unknown
    fail_on?: unknown
    build?: { head?: { revision?: unknown } }
  }
  const measured = report.build?.head?.revision
  if (report.mode !== undefined && report.mode !== '' && report.mode !== 'gate') return 'it is a recording (mode record), not a gate'
  if (measured !== sha) {
    const named = typeof measured === 'string' && /^[0-9a-f]{40}$/.test(measured) ? measured : 'another or an unknown commit'
    return `it measured ${named}, not ${sha}`
  }
  if (report.complete !== true) return 'its gate did not complete (interrupted or still running)'
  if (typeof report.fail_on === 'string' && report.fail_on !== '' && report.fail_on !== failOn) {
    return `its comment was written for another fail-on than this step's ${failOn}`
  }
  return ''
}

/** linksOf points the comment at the run that measured and its artifact, and at the commit the event names. */
function linksOf(event: EventInfo, found: EarlierGate, sha: string, reportArtifactId: number | undefined): ReportLinks {
  return {
    repository: `${event.owner}/${event.repo}`,
    serverUrl: process.env.GITHUB_SERVER_URL,
    runId: found.runId,
    runAttempt: found.runAttempt,
    artifactId: found.artifact.id,
    artifactName: found.artifact.name,
    reportArtifactId,
    headSha: sha,
  }
}

/** withNote puts the note under the report's heading, where a reviewer reads first. */
export function withNote(markdown: string, note: string): string {
  const lines = markdown.split('\n')
  const heading = lines.findIndex((l) => l.startsWith('#'))
  const at = heading >= 0 ? heading + 1 : lines[0]?.startsWith('<!--') ? 1 : 0
  lines.splice(at, 0, '', `_${note}_`)
  return lines.join('\n')
}

/** oneLine keeps a reason on its line: parts of it come from the artifact, and a line of the log can be a workflow command. */
function oneLine(text: string): string {
  return text.replace(/\p{Cc}+/gu, ' ')
}
