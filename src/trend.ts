import * as core from '@actions/core'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import * as path from 'node:path'
import { artifactName } from './artifact.js'
import { commentMarker } from './comment.js'
import { resultsDir } from './paths.js'
import { freshOwnEngine } from './engine.js'
import { getErrorMessage } from './errors.js'
import type { EventInfo } from './event.js'
import { addRecords, openHistory } from './history.js'
import type { Inputs } from './inputs.js'
import { keepResults } from './keep-results.js'
import { runPerfgate } from './perfgate.js'
import { refuseUnsafeEvent } from './refuse.js'
import * as state from './state.js'
import { writeSummary } from './summary.js'
import type { AlarmState } from './trend-issue.js'

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
 * runTrend is mode trend, the nightly's step after record in the same
 * job, which holds contents: read and no more: it reads the history (with
 * the entry the record step before it made, not yet on the branch), lets
 * the engine find change points and confirm them with paired gates of
 * the commits on both sides (which builds older commits of the checkout:
 * fetch-depth 0), shows the trend in the job summary and uploads the
 * trend artifact. It writes nothing: mode publish, in a job that runs no
 * repository code, adds the confirmations to the history and brings the
 * config's issue in step. A directory history is written in place.
 */
export async function runTrend(inputs: Inputs, event: EventInfo): Promise<void> {
  refuseUnsafeEvent(inputs, event)
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd()
  const workdir = path.resolve(workspace, inputs.workingDirectory)
  const config = path.relative(workdir, path.resolve(workspace, inputs.config)) || inputs.config
  const marker = commentMarker(inputs.workingDirectory, inputs.config)
  const trendDir = resultsDir('trend', marker)
  await rm(trendDir, { recursive: true, force: true })
  await mkdir(trendDir, { recursive: true })
  const name = artifactName(`${inputs.artifactName}-trend`)
  state.saveUploadPlan(trendDir, name)
  core.setOutput('results-dir', trendDir)

  // Built for this step, never restored from a cache (see buildFreshEngine).
  const engine = await freshOwnEngine()
  const history = await openHistory(inputs, event, 'trend')
  if (history.branch)
    await addTonightsEntry(engine.path, history.dir, path.join(resultsDir('results', marker), 'history-entry.json'), event)
  const args = ['trend', '--config', config, '--src', workdir, '--history', history.dir, '--out', trendDir, ...linkFlags(event, name)]
  args.push(...confirmFlags(inputs))
  if (inputs.target) args.push('--target', inputs.target)
  const exitCode = await runPerfgate(engine.path, args, workdir, (pid, viaSudo) => {
    state.saveEnginePid(pid)
    state.saveEngineRun({ binary: engine.path, viaSudo, config: path.resolve(workdir, config), target: inputs.target, base: '' })
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
  if (history.branch) {
    core.info(
      `history and trend issue: the confirmations are history-records.jsonl in artifact ${name}; mode publish adds them to branch ${history.branch.where.branch} and brings the issue in step (alarm ${trend.alarm.state})`,
    )
  }
  if (uploadError) throw new Error(uploadError)
}

/**
 * addTonightsEntry adds the entry the record step of this job made to the
 * history the trend reads: the data branch gets it only later, from mode
 * publish. An entry of another commit (a runner that kept RUNNER_TEMP
 * from an earlier job) is left out.
 */
async function addTonightsEntry(engine: string, historyDir: string, entryFile: string, event: EventInfo): Promise<void> {
  if (!existsSync(entryFile)) {
    core.info(`history: no record step ran before this one in this job (no ${entryFile}); the trend reads the branch as it is`)
    return
  }
  let commit = ''
  try {
    const value = (JSON.parse(await readFile(entryFile, 'utf8')) as { commit?: unknown }).commit
    if (typeof value === 'string') commit = value
  } catch {
    // The engine says what is wrong with it below, or it is left out.
  }
  if (commit !== event.sha) {
    core.warning(
      `history: ${entryFile} is of commit ${commit.slice(0, 40) || '(none)'}, not ${event.sha}; the trend reads the branch without it`,
    )
    return
  }
  await addRecords(engine, historyDir, entryFile)
  core.info(`history: tonight's entry (${commit.slice(0, 12)}) from the record step added to the history the trend reads`)
}

/**
 * MAX_TREND_GATES is the most paired gates one trend step runs, confirming
 * and bisecting all its steps: confirm-budget bounds one step's
 * bisection, and a night can find a step in every metric on every
 * machine. Steps left over are confirmed on later nights.
 */
export const MAX_TREND_GATES = 20

/** confirmFlags are the engine's flags for confirm and confirm-budget, with the run's bound on gates. */
export function confirmFlags(inputs: Pick<Inputs, 'confirm' | 'confirmBudget'>): string[] {
  if (!inputs.confirm) return []
  return ['--confirm', '--budget', String(inputs.confirmBudget), '--max-gates', String(MAX_TREND_GATES)]
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
