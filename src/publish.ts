import * as core from '@actions/core'
import * as exec from '@actions/exec'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import * as os from 'node:os'
import * as path from 'node:path'
import { buildFreshEngine } from './engine.js'
import { getErrorMessage, UserError } from './errors.js'
import type { EventInfo } from './event.js'
import { addRecords, openHistory, saveHistory } from './history.js'
import { status } from './history-branch.js'
import type { Inputs } from './inputs.js'
import { createOctokit, type Octokit } from './octokit.js'
import { actionRoot } from './paths.js'
import { engineEnvironment } from './perfgate.js'
import { downloadNewestAttempt, type RunArtifact } from './run-artifact.js'
import { raiseAlarm } from './trend-issue.js'
import { linkFlags, parseTrend, type TrendResult } from './trend.js'
import { extractFiles } from './untrusted-results.js'

/**
 * Files mode publish takes from the measuring job's artifacts, with their
 * size limits: a history line is at most 1 MiB (the engine's limit), the
 * confirmations of one trend are at most 100 lines, and trend.json is
 * bounded by the engine (64 MiB).
 */
const RECORD_FILES = { 'history-entry.json': 2 * 1024 * 1024 }
const TREND_FILES = { 'history-records.jsonl': 128 * 1024 * 1024, 'trend.json': 64 * 1024 * 1024 }

/** Events mode publish runs under: those a nightly workflow on main runs under. */
const PUBLISH_EVENTS = ['schedule', 'workflow_dispatch', 'push']

/**
 * runPublish is mode publish, the nightly's job that holds the write
 * tokens (contents: write, issues: write) and therefore checks out and
 * runs nothing of the repository: it downloads what mode record and mode
 * trend of this workflow run uploaded (a job with contents: read that ran
 * the repository's code), treats it as untrusted, has this action's own
 * engine (built fresh) validate every history line as it adds them to the
 * data branch, rebuilds the alarm from the validated history with
 * `perfgate trend --settings-from` (no commit is built), and opens,
 * updates or closes the config's issue.
 */
export async function runPublish(inputs: Inputs, event: EventInfo): Promise<void> {
  if (!PUBLISH_EVENTS.includes(event.name)) {
    throw new UserError(
      `mode publish writes main's history and trend issue; it runs in the nightly workflow (schedule, workflow_dispatch or push), not under ${event.name}. See examples/workflows/nightly.yml.`,
    )
  }
  if (inputs.history.kind !== 'branch') {
    throw new UserError(
      `mode publish writes the history branch, and 'history' is ${inputs.history.kind === 'none' ? 'none' : `the directory ${inputs.history.path}`}. With a directory, mode record and mode trend write it themselves: drop the publish step, or set history to branch.`,
    )
  }
  const runId = Number(process.env.GITHUB_RUN_ID)
  if (!Number.isSafeInteger(runId) || runId <= 0)
    throw new Error(`GITHUB_RUN_ID is ${JSON.stringify(process.env.GITHUB_RUN_ID)}: not a workflow run`)
  const attempt = Number(process.env.GITHUB_RUN_ATTEMPT) || 1
  const octokit = createOctokit(inputs.token)
  const run = { owner: event.owner, repo: event.repo, runId }

  const tempRoot = process.env.RUNNER_TEMP || os.tmpdir()
  const dir = await mkdtemp(path.join(tempRoot, 'perfgate-publish-'))
  const { recorded, trended } = await core.group('Download what record and trend uploaded', async () => ({
    recorded: await download(octokit, run, inputs.artifactName, attempt, RECORD_FILES),
    trended: await download(octokit, run, `${inputs.artifactName}-trend`, attempt, TREND_FILES),
  }))
  if (!recorded && !trended) {
    throw new UserError(
      `run ${runId} has no artifact named ${inputs.artifactName}-attempt-N or ${inputs.artifactName}-trend-attempt-N: mode publish runs after mode record and mode trend in the same workflow run (needs: on their job), with the same artifact-name.`,
    )
  }
  const records = [recorded?.files['history-entry.json'], trended?.files['history-records.jsonl']]
    .filter((f): f is Uint8Array => f !== undefined)
    .map((f) => new TextDecoder().decode(f).trim())
    .filter((text) => text !== '')
  const recordsFile = path.join(dir, 'history-records.jsonl')
  await writeFile(recordsFile, records.map((text) => `${text}\n`).join(''))
  const trendJson = trended?.files['trend.json']

  // Never a cached binary: this job holds write tokens (see buildFreshEngine).
  const engine = await core.group('Build the perfgate engine', () => buildFreshEngine(actionRoot(), tempRoot))
  try {
    const history = await openHistory(inputs, event, 'trend')
    if (records.length > 0) {
      // The engine validates every line and refuses the file if one is not
      // a history line perfgate writes: nothing of it reaches the branch.
      await core.group('Validate and add the records', () => addRecords(engine.path, history.dir, recordsFile))
    } else {
      core.info('nothing to add to the history: the artifacts hold no history lines')
    }
    const trend = trendJson
      ? await core.group('Rebuild the alarm from the validated history', async () => {
          const settings = path.join(dir, 'settings-trend.json')
          await writeFile(settings, trendJson)
          return rebuildAlarm(engine.path, settings, history.dir, path.join(dir, 'trend'), event, trended.artifact.name)
        })
      : undefined
    const historyError =
      records.length > 0
        ? await saveHistory(inputs, history, recordsFile, engine.path, `perfgate: publish run ${runId} (${trend?.config ?? 'record'})`)
        : ''
    if (trend) await updateTrendIssue(inputs, event, trend, path.join(dir, 'trend', 'alarm.md'))
    else core.info(`trend issue: nothing to do (run ${runId} has no ${inputs.artifactName}-trend artifact: no mode trend step ran)`)
    if (historyError) throw new Error(historyError)
  } finally {
    await rm(path.dirname(engine.path), { recursive: true, force: true })
  }
}

/** download fetches the run's newest artifact of that name (up to this attempt) and extracts the wanted files. */
async function download(
  octokit: Octokit,
  run: { owner: string; repo: string; runId: number },
  baseName: string,
  attempt: number,
  wanted: Readonly<Record<string, number>>,
): Promise<{ artifact: RunArtifact; files: Record<string, Uint8Array> } | undefined> {
  const artifact = await downloadNewestAttempt(octokit, run, baseName, attempt)
  if (!artifact) {
    core.info(`run ${run.runId} has no artifact ${baseName}-attempt-N`)
    return undefined
  }
  return { artifact, files: extractFiles(artifact.zip, wanted) }
}

/**
 * rebuildAlarm runs `perfgate trend --settings-from` on the validated
 * history: the alarm's state, title and body come from it, never from the
 * artifact's alarm.md. Its links name the trend artifact the measuring
 * job uploaded, which holds the confirming gates' files.
 */
async function rebuildAlarm(
  engine: string,
  settings: string,
  historyDir: string,
  out: string,
  event: EventInfo,
  trendArtifact: string,
): Promise<TrendResult> {
  const args = ['trend', '--settings-from', settings, '--history', historyDir, '--out', out, ...linkFlags(event, trendArtifact)]
  // As the job's user, without the action's secrets: it builds and runs
  // nothing and needs no cgroup, so never through sudo.
  core.info(`$ perfgate ${args.join(' ')}`)
  const exitCode = await exec.exec(engine, args, { ignoreReturnCode: true, env: engineEnvironment(process.env) })
  if (exitCode !== 0) throw new Error(`perfgate trend --settings-from exited ${exitCode}; see the log above`)
  const trendJson = path.join(out, 'trend.json')
  core.setOutput('trend-json', trendJson)
  const trend = parseTrend(await readFile(trendJson, 'utf8'))
  core.setOutput('alarm', trend.alarm.state)
  return trend
}

/** updateTrendIssue brings the config's issue in step with the trend; a token that may not write issues only warns. */
export async function updateTrendIssue(inputs: Inputs, event: EventInfo, trend: TrendResult, alarmFile: string): Promise<void> {
  if (trend.alarm.state === 'none') {
    core.info('trend issue: nothing to do (no confirmed step changed)')
    return
  }
  if (trend.alarm.state === 'open' && !existsSync(alarmFile)) {
    throw new Error(`trend.json raises an alarm but the engine wrote no ${path.basename(alarmFile)}; see the log above`)
  }
  const body = trend.alarm.state === 'open' ? await readFile(alarmFile, 'utf8') : ''
  const runId = process.env.GITHUB_RUN_ID ?? ''
  const runUrl = runId ? `${process.env.GITHUB_SERVER_URL || 'https://github.com'}/${event.owner}/${event.repo}/actions/runs/${runId}` : ''
  try {
    const outcome = await core.group('Update the trend issue', () =>
      raiseAlarm(
        createOctokit(inputs.token),
        { owner: event.owner, repo: event.repo },
        { config: trend.config, ...trend.alarm, body },
        runUrl,
      ),
    )
    if (outcome.action === 'none') {
      core.info(`trend issue: ${outcome.reason}`)
      return
    }
    core.setOutput('issue-number', String(outcome.number))
    core.info(`trend issue #${outcome.number} ${outcome.action}`)
  } catch (error) {
    if (status(error) !== 403) throw error
    core.warning(
      `Writing the trend issue was refused (403: ${getErrorMessage(error)}). Give this job \`permissions: issues: write\`. The trend is in the job summary and the artifact.`,
    )
  }
}
