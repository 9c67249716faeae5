import * as core from '@actions/core'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import * as os from 'node:os'
import * as path from 'node:path'
import { artifactName } from './artifact.js'
import { commentMarker } from './comment.js'
import { buildOwnEngine } from './engine.js'
import { getErrorMessage } from './errors.js'
import type { EventInfo } from './event.js'
import { openHistory, saveHistory } from './history.js'
import { status } from './history-branch.js'
import type { Inputs } from './inputs.js'
import { keepResults } from './keep-results.js'
import { createOctokit } from './octokit.js'
import { runPerfgate } from './perfgate.js'
import { refuseUnsafeEvent } from './refuse.js'
import * as state from './state.js'
import { writeSummary } from './summary.js'
import { raiseAlarm, type AlarmState } from './trend-issue.js'

/** The trend.json schema this action reads. */
export const TREND_SCHEMA = 1

/** TrendResult is the part of trend.json the action routes on; it computes nothing from it. */
export interface TrendResult {
  readonly config: string
  readonly alarm: { readonly state: AlarmState; readonly title: string }
}

/**
 * parseTrend reads trend.json, naming what is wrong when it is not what
 * this action knows how to read (a newer schema means an older action).
 */
export function parseTrend(text: string): TrendResult {
  let value: { schema?: unknown; config?: unknown; alarm?: { state?: unknown; title?: unknown } | null }
  try {
    value = JSON.parse(text) as typeof value
  } catch (error) {
    throw new Error(`trend.json is not JSON: ${getErrorMessage(error)}`, { cause: error })
  }
  if (value?.schema !== TREND_SCHEMA) {
    throw new Error(
      `trend.json has schema ${JSON.stringify(value?.schema)}, and this action reads schema ${TREND_SCHEMA}. Use the action and engine of one release.`,
    )
  }
  const state = value.alarm?.state
  if (typeof value.config !== 'string' || value.config === '') throw new Error('trend.json has no config name')
  if (state !== 'open' && state !== 'resolved' && state !== 'none') {
    throw new Error(`trend.json's alarm.state is ${JSON.stringify(state)}; expected open, resolved or none`)
  }
  const title = typeof value.alarm?.title === 'string' ? value.alarm.title : ''
  return { config: value.config, alarm: { state, title } }
}

/**
 * runTrend is mode trend, the nightly job after record: it reads the
 * history, lets the engine find change points and confirm them with
 * paired gates of the commits on both sides (which builds older commits
 * of the checkout: fetch-depth 0), shows the trend in the job summary,
 * uploads the trend page, writes the confirmations back to the history
 * and raises, updates or closes the config's issue.
 */
export async function runTrend(inputs: Inputs, event: EventInfo): Promise<void> {
  refuseUnsafeEvent(inputs, event)
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  const workdir = path.resolve(workspace, inputs.workingDirectory)
  const config = path.relative(workdir, path.resolve(workspace, inputs.config)) || inputs.config
  const marker = commentMarker(inputs.workingDirectory, inputs.config)
  const trendDir = path.join(process.env.RUNNER_TEMP || os.tmpdir(), `perfgate-trend-${Buffer.from(marker).toString('hex').slice(-24)}`)
  await rm(trendDir, { recursive: true, force: true })
  await mkdir(trendDir, { recursive: true })
  const name = artifactName(`${inputs.artifactName}-trend`)
  state.saveUploadPlan(trendDir, name)
  core.setOutput('results-dir', trendDir)

  const engine = await buildOwnEngine()
  const history = await openHistory(inputs, event, 'trend')
  const args = ['trend', '--config', config, '--src', workdir, '--history', history.dir, '--out', trendDir, ...linkFlags(event, name)]
  if (inputs.confirm) args.push('--confirm', '--budget', String(inputs.confirmBudget))
  if (inputs.target) args.push('--target', inputs.target)
  const exitCode = await runPerfgate(engine.path, args, workdir, (pid, viaSudo) => {
    state.saveEnginePid(pid)
    state.saveEngineRun({ binary: engine.path, viaSudo, config: path.resolve(workdir, config) })
  })

  const { error: uploadError } = await keepResults(name, trendDir)
  const summary = path.join(trendDir, 'summary.md')
  if (existsSync(summary)) await writeSummary(await readFile(summary, 'utf8'))
  if (exitCode !== 0) {
    throw new Error(`perfgate trend exited ${exitCode}; see the log above.${uploadError ? ` ${uploadError}` : ''}`)
  }
  const trendJson = path.join(trendDir, 'trend.json')
  core.setOutput('trend-json', trendJson)
  const trend = parseTrend(await readFile(trendJson, 'utf8'))
  core.setOutput('alarm', trend.alarm.state)

  const historyError = await saveHistory(
    inputs,
    history,
    path.join(trendDir, 'history-records.jsonl'),
    engine.path,
    `perfgate: trend confirmations (${trend.config}) from run ${process.env.GITHUB_RUN_ID ?? 'local'}`,
  )
  await updateTrendIssue(inputs, event, trend, path.join(trendDir, 'alarm.md'))
  if (uploadError) throw new Error(uploadError)
  if (historyError) throw new Error(historyError)
}

/**
 * linkFlags let the alarm link commits and name the command that
 * downloads this run's trend artifact; the engine validates each value
 * again before building a link from it.
 */
export function linkFlags(event: EventInfo, artifact: string): string[] {
  const flags = ['--artifact-name', artifact, '--repository', `${event.owner}/${event.repo}`]
  const runId = process.env.GITHUB_RUN_ID ?? ''
  if (/^[0-9]+$/.test(runId)) flags.push('--run-id', runId)
  const server = process.env.GITHUB_SERVER_URL ?? ''
  if (/^https:\/\/[A-Za-z0-9.-]+(:[0-9]+)?$/.test(server)) flags.push('--server-url', server)
  return flags
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
