import * as core from '@actions/core'
import * as github from '@actions/github'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import * as path from 'node:path'
import { acceptRegression, headPushedAt, withIgnoredLabel } from './accept-label.js'
import { thisWorkflowFile } from './earlier-gate.js'
import { annotateReport } from './annotations.js'
import { artifactName } from './artifact.js'
import { commentMarker, writeComment } from './comment.js'
import { runCommentStage } from './comment-stage.js'
import { failureFor } from './step-failure.js'
import { LABEL_PATTERN } from './engine-facts.js'
import { buildOwnEngine, freshOwnEngine } from './engine.js'
import { getErrorMessage } from './errors.js'
import { describeEvent, type EventInfo } from './event.js'
import { gitIn, mergeBase, resolveRevision, type BaseRevision } from './git-base.js'
import { addHistoryFlag, openHistory, pairFlags, recordFlags } from './history.js'
import { getInputs, type Inputs } from './inputs.js'
import { keepResults } from './keep-results.js'
import { uploadReportPage } from './report-page.js'
import { reuseEarlierGate } from './reuse-gate.js'
import { refuseUnsafeEvent } from './refuse.js'
import { linkedReport, linksOfThisRun } from './report-links.js'
import { escapeMarkdown } from './markdown.js'
import { createOctokit } from './octokit.js'
import { readVerdict, runPerfgate, type Verdict } from './perfgate.js'
import { resultsDir as resultsDirFor } from './paths.js'
import { runPublish } from './publish.js'
import { runTrend } from './trend.js'
import * as state from './state.js'
import { writeSummary } from './summary.js'

/** run is the main step: every failure ends in core.setFailed with a message that says what to do. */
export async function run(): Promise<void> {
  state.markMainStarted()
  try {
    const inputs = getInputs()
    const event = describeEvent(github.context)
    switch (inputs.mode) {
      case 'gate':
      case 'record':
        await measure(inputs, event)
        break
      case 'trend':
        await runTrend(inputs, event)
        break
      case 'comment':
        await runCommentStage(inputs, event)
        break
      case 'publish':
        await runPublish(inputs, event)
        break
    }
  } catch (error) {
    core.setFailed(getErrorMessage(error))
  }
}

/**
 * gateArgs is mode gate's engine command line. --fail-on only tells the
 * engine what the check does with each verdict, so that the comment says
 * it truly; the step fails in main. Prebuilt binaries are the workspace's
 * paths, made absolute: the engine runs in the working directory.
 */
export function gateArgs(
  inputs: Inputs,
  at: {
    readonly config: string
    readonly baseSha: string
    readonly workdir: string
    readonly workspace: string
    readonly resultsDir: string
  },
): string[] {
  const args = [
    'gate',
    '--config',
    at.config,
    '--base',
    at.baseSha,
    '--head',
    at.workdir,
    '--out',
    at.resultsDir,
    '--fail-on',
    inputs.failOn,
  ]
  if (inputs.prebuilt) {
    args.push(
      '--base-binary',
      path.resolve(at.workspace, inputs.prebuilt.base),
      '--head-binary',
      path.resolve(at.workspace, inputs.prebuilt.head),
    )
  }
  return args
}

/** measure runs gate (base vs head) or record (the checkout alone), then reports. */
async function measure(inputs: Inputs, event: EventInfo): Promise<void> {
  refuseUnsafeEvent(inputs, event)
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  const workdir = path.resolve(workspace, inputs.workingDirectory)
  // Relative to the working directory, where the engine runs: the report's
  // "reproduce locally" line then works in a user's checkout too.
  const config = path.relative(workdir, path.resolve(workspace, inputs.config)) || inputs.config
  const marker = commentMarker(inputs.workingDirectory, inputs.config)
  // The accept label added or removed: the last gate of this commit is
  // decided again, not measured again (reuse-gate.ts; else it measures).
  const reused =
    inputs.mode === 'gate'
      ? await reuseEarlierGate(inputs, event, github.context.payload, async () => (await buildOwnEngine()).path)
      : undefined
  if (reused) {
    await writeSummary(reused.markdown)
    await core.group('Write the pull request comment', () => comment(inputs, event, marker, reused.markdown, reused.verdict))
    const failure = failureFor(reused.verdict, reused.reason, inputs.failOn, reused.acceptance)
    if (failure) core.setFailed(failure)
    return
  }
  const resultsDir = resultsDirFor('results', marker)
  await rm(resultsDir, { recursive: true, force: true })
  await mkdir(resultsDir, { recursive: true })
  const name = artifactName(inputs.artifactName)
  state.saveUploadPlan(resultsDir, name)
  core.setOutput('results-dir', resultsDir)

  // Record keeps main's history: it runs only an engine built for this
  // step (see buildFreshEngine); gate builds and runs the pull request's
  // code anyway, and may use the cached engine.
  const engine = inputs.mode === 'record' ? await freshOwnEngine() : await buildOwnEngine()
  const base =
    inputs.mode === 'gate'
      ? await core.group('Find the base', () => findBase(inputs, event, workdir))
      : { none: 'mode record measures the checkout alone' }

  // For post: the engine to stop if this step is killed, and how to run
  // its sweep of whatever a killed engine left.
  const started = (pid: number, viaSudo: boolean): void => {
    state.saveEnginePid(pid)
    state.saveEngineRun({
      binary: engine.path,
      viaSudo,
      config: path.resolve(workdir, config),
      target: inputs.target,
      base: 'sha' in base ? base.sha : '',
    })
  }
  let exitCode = 0
  // Read before measuring: record adds to it, gate shows where main stands.
  const history =
    inputs.mode === 'record' || 'sha' in base ? await openHistory(inputs, event, inputs.mode === 'record' ? 'record' : 'gate') : undefined
  if (inputs.mode === 'record') {
    const args = [
      'run',
      '--config',
      config,
      '--src',
      workdir,
      '--label',
      recordLabel(event),
      '--out',
      resultsDir,
      ...(await recordFlags(name, event, workdir)),
      ...pairFlags(inputs.pairWith, history),
    ]
    exitCode = await runPerfgate(engine.path, withTarget(addHistoryFlag(args, history), inputs), workdir, started)
  } else if ('sha' in base) {
    const args = gateArgs(inputs, { config, baseSha: base.sha, workdir, workspace, resultsDir })
    exitCode = await runPerfgate(engine.path, withTarget(addHistoryFlag(args, history), inputs), workdir, started)
  } else {
    await writeFile(path.join(resultsDir, 'report.md'), noBaselineReport(base.none))
  }

  // The data is kept before anything is decided.
  const kept = await keepResults(name, resultsDir)
  const reportPageId = kept.artifactId === undefined ? undefined : await uploadReportPage(resultsDir, name)
  if (inputs.mode === 'record' && history?.branch) {
    core.info(
      `history: tonight's entry is history-entry.json in artifact ${name}; mode publish adds it to branch ${history.branch.where.branch} (this job's token only reads)`,
    )
  }
  const outcome =
    'none' in base && inputs.mode === 'gate'
      ? { verdict: 'no-baseline' as Verdict, reason: base.none }
      : ((await readVerdict(resultsDir)) ?? {
          verdict: 'error' as Verdict,
          reason: `perfgate exited ${exitCode} without writing report.json; see the log above`,
        })
  core.setOutput('verdict', outcome.verdict)
  const reportJson = path.join(resultsDir, 'report.json')
  const reportMarkdown = path.join(resultsDir, 'report.md')
  if (existsSync(reportJson)) core.setOutput('report-json', reportJson)
  if (existsSync(reportMarkdown)) core.setOutput('report-markdown', reportMarkdown)
  await annotateReport(resultsDir)

  const pr = event.pullRequest
  const decision =
    outcome.verdict === 'regression' && pr
      ? await acceptRegression(() => createOctokit(inputs.token), {
          owner: event.owner,
          repo: event.repo,
          pullNumber: pr.number,
          label: inputs.acceptLabel,
          headSha: pr.headSha || event.sha,
          bots: inputs.acceptBots,
          headPushedAt: headPushedAt(event.name, github.context.payload),
          workflow: thisWorkflowFile(),
        })
      : {}
  const acceptance = decision.acceptance
  const engineMarkdown = existsSync(reportMarkdown)
    ? await readFile(reportMarkdown, 'utf8')
    : `### perfgate: ${outcome.verdict}\n\n${escapeMarkdown(outcome.reason)}\n`
  const rendered = existsSync(reportJson)
    ? await core.group('Render the report with links', () =>
        linkedReport(
          engine.path,
          reportJson,
          linksOfThisRun(
            process.env,
            { owner: event.owner, repo: event.repo },
            { id: kept.artifactId, name, reportId: reportPageId },
            { base: 'sha' in base ? base.sha : undefined, head: pr?.headSha || event.sha },
          ),
          acceptance,
          engineMarkdown,
          workdir,
        ),
      )
    : engineMarkdown
  const markdown = withIgnoredLabel(rendered, decision)
  await writeSummary(markdown)
  await core.group('Write the pull request comment', () => comment(inputs, event, marker, markdown, outcome.verdict))

  if (kept.error) throw new Error(kept.error)
  const failure = failureFor(outcome.verdict, outcome.reason, inputs.failOn, acceptance)
  if (failure) core.setFailed(failure)
}

function withTarget(args: string[], inputs: Inputs): string[] {
  return inputs.target ? [...args, '--target', inputs.target] : args
}

/** recordLabel names a recorded run after what it measured: the branch, else the commit. */
function recordLabel(event: EventInfo): string {
  const ref = process.env.GITHUB_REF_NAME || ''
  return LABEL_PATTERN.test(ref) ? ref : event.sha.slice(0, 12) || 'head'
}

/**
 * noBaselineReport is the visible report when there is nothing to compare
 * with (a first commit, an orphan branch, a push without base-ref): it
 * says why and how to get a verdict. It is not a failure.
 */
export function noBaselineReport(why: string): string {
  return [
    '<!-- perfgate:report -->',
    '### perfgate: no baseline',
    '',
    `Nothing was compared: ${escapeMarkdown(why)}. This is neither a pass nor a regression.`,
    '',
    'To get a verdict, run perfgate on a pull request (the base is its merge base with the target branch), or set `base-ref` to the revision to compare with. With `actions/checkout`, `fetch-depth: 0` gives perfgate the history it needs; a shallow clone is deepened as needed.',
    '',
  ].join('\n')
}

/** findBase picks the base commit: base-ref, else the pull request's merge base, else none. */
async function findBase(inputs: Inputs, event: EventInfo, workdir: string): Promise<BaseRevision> {
  const git = gitIn(workdir)
  if (inputs.baseRef) return { sha: await resolveRevision(git, inputs.baseRef) }
  if (event.pullRequest?.baseBranch) {
    const found = await mergeBase(git, event.pullRequest.baseBranch)
    core.info('sha' in found ? `base: ${found.sha}, the merge base with ${event.pullRequest.baseBranch}` : `no baseline: ${found.none}`)
    return found
  }
  return { none: `a ${event.name} event has no pull request to compare with, and base-ref is not set` }
}

/** comment writes the sticky comment where the policy and the event allow it. */
async function comment(inputs: Inputs, event: EventInfo, marker: string, markdown: string, verdict: Verdict): Promise<void> {
  const pr = event.pullRequest
  if (inputs.comment === 'never' || !pr) return
  if (pr.fork && event.name === 'pull_request') {
    core.notice(
      'This pull request comes from a fork, so the workflow token is read-only and perfgate does not comment; the report is in the job summary. To comment on fork pull requests, use the two-stage setup: examples/workflows/pr-gate-fork-safe.yml and pr-comment.yml.',
    )
    return
  }
  try {
    await writeComment(
      createOctokit(inputs.token),
      { owner: event.owner, repo: event.repo, pullNumber: pr.number, measuredSha: pr.headSha },
      {
        marker,
        markdown,
        fullReportHint: `The whole report is in the job summary and the results artifact of run ${process.env.GITHUB_RUN_ID ?? ''}.`,
        createIfMissing: inputs.comment !== 'on-regression' || verdict === 'regression',
      },
    )
  } catch (error) {
    const message = `Writing the pull request comment failed: ${getErrorMessage(error)}. Give the job \`permissions: pull-requests: write\`.`
    if (inputs.comment === 'always') throw new Error(message, { cause: error })
    core.warning(message)
  }
}
