import * as core from '@actions/core'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import * as os from 'node:os'
import * as path from 'node:path'
import { acceptRegression, withIgnoredLabel } from './accept-label.js'
import { commentMarker, writeComment } from './comment.js'
import { buildFreshEngine } from './engine.js'
import { UserError } from './errors.js'
import type { EventInfo, WorkflowRun } from './event.js'
import type { Inputs } from './inputs.js'
import { actionRoot } from './paths.js'
import { readVerdict, type Verdict } from './perfgate.js'
import { linkedReport, renderReport, reportArgs, type ReportLinks } from './report-links.js'
import { createOctokit, type Octokit } from './octokit.js'
import { writeSummary } from './summary.js'
import { downloadNewestAttempt } from './run-artifact.js'
import { extractReport, UntrustedArtifactError } from './untrusted-results.js'

/**
 * runCommentStage is mode comment, the second stage of the fork-safe setup
 * (a workflow_run workflow with pull-requests: write). It downloads the
 * results of the run that triggered it, treats them as untrusted data,
 * renders the comment with this action's own engine, and writes it on the
 * pull request that the API (not the artifact) names for the run's head
 * commit. It never checks out or runs code from the pull request.
 */
export async function runCommentStage(inputs: Inputs, event: EventInfo): Promise<void> {
  const run = event.workflowRun
  if (!run) {
    throw new UserError(
      `mode comment runs under a workflow_run event (the second stage of the fork-safe setup), not ${event.name}. Use mode gate or record here.`,
    )
  }
  if (run.event !== 'pull_request') {
    core.info(`nothing to comment: run ${run.id} was triggered by ${run.event || 'an unknown event'}, not a pull request`)
    return
  }
  const octokit = createOctokit(inputs.token)
  const pull = await core.group('Find the pull request', () => findPullRequest(octokit, event.owner, event.repo, run))
  if (!pull) {
    core.notice(`No open pull request has ${run.headSha.slice(0, 12)} as its head any more (it moved, or was closed); not commenting.`)
    return
  }
  const tempRoot = process.env.RUNNER_TEMP || os.tmpdir()
  const dir = await mkdtemp(path.join(tempRoot, 'perfgate-untrusted-'))
  const reportPath = path.join(dir, 'report.json')
  const artifact = await core.group('Download the results', async () => {
    const downloaded = await downloadReport(octokit, event.owner, event.repo, run.id, inputs.artifactName)
    await writeFile(reportPath, downloaded.report)
    return downloaded
  })

  // Never a cached binary (see buildFreshEngine), and never the secrets.
  const engine = await core.group('Build the perfgate engine', () => buildFreshEngine(actionRoot(), tempRoot))
  // The artifact's report.md is not used: the comment is rendered here,
  // and its "Reproduce locally" command and its links are built from this
  // workflow's inputs, the event and the API, never from the artifact
  // (whose command line, base revision and label a fork controls).
  const links: ReportLinks = {
    repository: `${event.owner}/${event.repo}`,
    serverUrl: process.env.GITHUB_SERVER_URL,
    runId: run.id,
    runAttempt: run.runAttempt,
    artifactId: artifact.id,
    artifactName: artifact.name,
    baseSha: pull.baseSha,
    headSha: run.headSha,
  }
  const reproduce = reproduceFlags(inputs, run.headSha)
  let markdown: string
  let verdict: Verdict = 'error'
  try {
    markdown = await core.group('Render the report', async () => {
      const linked = await renderReport(engine.path, reportArgs(reportPath, links, undefined, reproduce), dir)
      if ('markdown' in linked) return linked.markdown
      // Without the links, the report itself is what is checked.
      const plain = await renderReport(engine.path, reportArgs(reportPath, {}, undefined, reproduce), dir)
      if ('error' in plain) throw new UntrustedArtifactError(`its report.json is not a valid perfgate report: ${plain.error}`)
      core.warning(`Rendering the report with links failed (${linked.error}); the comment shows it without them.`)
      return plain.markdown
    })
    // Read only after the engine accepted the file, and only to route on.
    verdict = (await readVerdict(dir))?.verdict ?? 'error'
    core.setOutput('verdict', verdict)
    core.setOutput('report-json', reportPath)
    // The measuring run's check cannot change from here: a label added
    // later re-runs stage one (pull_request: labeled), which passes, and
    // this stage then says so in the comment.
    if (verdict === 'regression') {
      const decision = await acceptRegression(() => octokit, {
        owner: event.owner,
        repo: event.repo,
        pullNumber: pull.number,
        label: inputs.acceptLabel,
        headSha: run.headSha,
        bots: inputs.acceptBots,
        // This stage has no push of its own to date the head by: stage
        // one's first run for the commit does.
        workflow: run.workflowId || undefined,
      })
      if (decision.acceptance) markdown = await linkedReport(engine.path, reportPath, links, decision.acceptance, markdown, dir, reproduce)
      markdown = withIgnoredLabel(markdown, decision)
    }
  } finally {
    await rm(path.dirname(engine.path), { recursive: true, force: true })
  }

  await writeSummary(markdown)
  if (inputs.comment === 'never') return
  await core.group('Write the pull request comment', () =>
    writeComment(
      octokit,
      { owner: event.owner, repo: event.repo, pullNumber: pull.number, measuredSha: run.headSha },
      {
        marker: commentMarker(inputs.workingDirectory, inputs.config),
        markdown,
        fullReportHint: `The whole report is in the results artifact of run ${run.id}.`,
        createIfMissing: inputs.comment !== 'on-regression' || verdict === 'regression',
      },
    ),
  )
}

/**
 * reproduceFlags give the engine the comment's "Reproduce locally" values:
 * the config as this workflow names it (relative to its working
 * directory, as mode gate passes it) and the commit the API says the run
 * measured. The engine shows each only if it matches a strict pattern.
 */
export function reproduceFlags(inputs: Inputs, headSha: string): string[] {
  const workdir = path.posix.resolve('/', inputs.workingDirectory)
  const config = path.posix.relative(workdir, path.posix.resolve('/', inputs.config)) || inputs.config
  return ['--reproduce-config', config, '--reproduce-head', headSha]
}

/** FoundPull is the pull request a run measured, as the API names it. */
export interface FoundPull {
  readonly number: number
  /** baseSha is the API's base commit of the pull request (its base branch's head when it last changed). */
  readonly baseSha: string
}

type ListedPull = { number: number; state?: string; head: { sha: string; repo: { full_name: string } | null }; base: { sha: string } }

/**
 * findPullRequest resolves the run's head commit to an open pull request
 * through the API: the pull requests associated with the commit, else the
 * open ones from the run's head branch. A candidate counts only if its head
 * is that commit in that repository. undefined means none.
 */
export async function findPullRequest(octokit: Octokit, owner: string, repo: string, run: WorkflowRun): Promise<FoundPull | undefined> {
  const matches = (p: ListedPull): boolean =>
    p.state !== 'closed' && p.head.sha === run.headSha && (p.head.repo?.full_name ?? '') === run.headRepository
  const { data: forCommit } = await octokit.rest.repos.listPullRequestsAssociatedWithCommit({ owner, repo, commit_sha: run.headSha })
  const found: ListedPull[] = forCommit.filter(matches)
  if (found.length === 0 && run.headBranch && run.headRepository.includes('/')) {
    const headOwner = run.headRepository.split('/')[0]
    const { data: fromBranch } = await octokit.rest.pulls.list({
      owner,
      repo,
      state: 'open',
      head: `${headOwner}:${run.headBranch}`,
      per_page: 100,
    })
    found.push(...fromBranch.filter(matches))
  }
  const unique = [...new Set(found.map((p) => p.number))]
  if (unique.length > 1) {
    throw new UserError(
      `commit ${run.headSha} is the head of several open pull requests (${unique.map((n) => `#${n}`).join(', ')}); not guessing which to comment on`,
    )
  }
  const listed = run.pullNumbers.filter((n) => !unique.includes(n))
  if (unique.length === 1 && listed.length > 0) {
    throw new UserError(
      `the event lists pull request(s) ${listed.map((n) => `#${n}`).join(', ')} for ${run.headSha}, but the API says #${unique[0]}; not commenting`,
    )
  }
  const pull = found[0]
  return pull ? { number: pull.number, baseSha: pull.base.sha } : undefined
}

/** downloadReport downloads the newest attempt's results artifact of the run and extracts report.json alone. */
async function downloadReport(
  octokit: Octokit,
  owner: string,
  repo: string,
  runId: number,
  baseName: string,
): Promise<{ id: number; name: string; report: Uint8Array }> {
  const artifact = await downloadNewestAttempt(octokit, { owner, repo, runId }, baseName)
  if (!artifact) {
    throw new UserError(
      `run ${runId} has no artifact named ${baseName}-attempt-N; did its perfgate step (mode gate) run and upload with artifact-name ${JSON.stringify(baseName)}?`,
    )
  }
  return { id: artifact.id, name: artifact.name, report: extractReport(artifact.zip) }
}
