import * as core from '@actions/core'
import * as exec from '@actions/exec'
import { existsSync } from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { getErrorMessage, UserError } from './errors.js'
import type { EventInfo } from './event.js'
import { gitIn } from './git-base.js'
import {
  freshDir,
  GaveUp,
  readHistoryBranch,
  status,
  writeHistoryBranch,
  type HistoryBranch,
  type HistorySnapshot,
} from './history-branch.js'
import type { Inputs } from './inputs.js'
import { createOctokit } from './octokit.js'
import { engineEnvironment } from './perfgate.js'
import { refuseHistoryBranch } from './refuse.js'

/**
 * OpenHistory is the history a mode hands the engine (`--history dir`)
 * and, when it was read from the data branch, the snapshot to write back
 * from.
 */
export interface OpenHistory {
  readonly dir: string
  readonly branch?: { readonly where: HistoryBranch; readonly snapshot: HistorySnapshot }
}

/** Purpose is what a mode does with the history: gate shows it; record adds to it (a directory in place, a branch through mode publish); trend and publish need it. */
export type Purpose = 'gate' | 'record' | 'trend'

/**
 * openHistory finds the history the inputs name. For gate it is a
 * courtesy (where main stands): anything missing means no history, said in
 * a debug line. For record, a branch that cannot be read still lets the
 * measurement go on, without writing back. For trend, no history is an
 * error: there is nothing to follow.
 */
export async function openHistory(inputs: Inputs, event: EventInfo, purpose: 'trend'): Promise<OpenHistory>
export async function openHistory(inputs: Inputs, event: EventInfo, purpose: Purpose): Promise<OpenHistory | undefined>
export async function openHistory(inputs: Inputs, event: EventInfo, purpose: Purpose): Promise<OpenHistory | undefined> {
  const source = inputs.history
  if (source.kind === 'none') {
    if (purpose === 'trend')
      throw new UserError("mode trend needs a history, and 'history' is none. Set it to branch (the default) or a directory.")
    return undefined
  }
  if (source.kind === 'directory') {
    const dir = path.resolve(process.env.GITHUB_WORKSPACE || process.cwd(), source.path)
    if (purpose === 'gate' && !existsSync(dir)) {
      core.debug(`history ${dir} does not exist; the gate runs without it`)
      return undefined
    }
    return { dir }
  }
  refuseHistoryBranch(inputs, event)
  const where = { owner: event.owner, repo: event.repo, branch: inputs.historyBranch }
  const tempRoot = process.env.RUNNER_TEMP || os.tmpdir()
  let snapshot: HistorySnapshot
  try {
    snapshot = await core.group(`Read the history from branch ${where.branch}`, async () =>
      readHistoryBranch(createOctokit(inputs.token), where, await freshDir(tempRoot)),
    )
  } catch (error) {
    const why = `Reading the perfgate history from branch ${where.branch} failed: ${getErrorMessage(error)}.${status(error) === 403 ? ' Give the job `permissions: contents: read`.' : ''}`
    if (purpose === 'gate') {
      core.debug(`${why} The gate runs without it.`)
      return undefined
    }
    if (purpose === 'trend') throw new Error(why, { cause: error })
    core.warning(`${why} This run is recorded in its results artifact, but not added to the history.`)
    return { dir: await freshDir(tempRoot) }
  }
  if (purpose === 'gate' && !snapshot.branchExists) {
    core.debug(`no history branch ${where.branch} yet; the gate runs without it`)
    return undefined
  }
  core.info(
    snapshot.branchExists
      ? `history: ${snapshot.shas.size} file(s) from branch ${where.branch}`
      : `history: branch ${where.branch} does not exist yet; this run starts it`,
  )
  return { dir: snapshot.dir, branch: { where, snapshot } }
}

/**
 * saveHistory writes what mode publish added (records, a file of JSON
 * lines already merged into the history directory) back to the data
 * branch. A directory history was written in place by the engine. It
 * returns an error message instead of throwing: the step still updates
 * the issue, then fails. A token that may not write only warns, naming
 * the permission: the records stay in the measuring job's artifacts.
 */
export async function saveHistory(
  inputs: Inputs,
  history: OpenHistory | undefined,
  records: string,
  engine: string,
  message: string,
): Promise<string> {
  if (!history?.branch) return ''
  const { where, snapshot } = history.branch
  if (!existsSync(records)) {
    core.warning(
      `The engine wrote no ${path.basename(records)}, so nothing is added to the history on branch ${where.branch}; see the log above.`,
    )
    return ''
  }
  try {
    const outcome = await core.group(`Write the history to branch ${where.branch}`, () =>
      writeHistoryBranch(createOctokit(inputs.token), where, snapshot, {
        message,
        records,
        addRecords: (dir, file) => addRecords(engine, dir, file),
        tempRoot: path.dirname(snapshot.dir),
      }),
    )
    core.info(
      outcome.written === 0
        ? `history: branch ${where.branch} already holds these records`
        : `history: ${outcome.written} file(s) written to branch ${where.branch}${outcome.attempts > 1 ? ` after ${outcome.attempts} attempts` : ''}`,
    )
    return ''
  } catch (error) {
    if (status(error) === 403) {
      core.warning(
        `Writing the perfgate history to branch ${where.branch} was refused (403: ${getErrorMessage(error)}). Give this job \`permissions: contents: write\`. This run's records are still in the measuring job's artifacts; they are not in the history.`,
      )
      return ''
    }
    const message =
      error instanceof GaveUp
        ? error.message
        : `Writing the perfgate history to branch ${where.branch} failed: ${getErrorMessage(error)}. This run's records are still in the measuring job's artifacts; re-run this job to add them to the history.`
    core.error(message)
    return message
  }
}

/** addRecords runs `perfgate history add`, which merges lines by their id, so adding twice changes nothing. */
export async function addRecords(engine: string, dir: string, records: string): Promise<void> {
  const out = await exec.getExecOutput(engine, ['history', 'add', '--history', dir, '--records', records], {
    ignoreReturnCode: true,
    env: engineEnvironment(process.env),
  })
  if (out.exitCode !== 0) {
    throw new Error(`perfgate history add exited ${out.exitCode}: ${out.stderr.trim()}`)
  }
}

/** addHistoryFlag passes the history to the engine when there is one. */
export function addHistoryFlag(args: string[], history: OpenHistory | undefined): string[] {
  return history ? [...args, '--history', history.dir] : args
}

/**
 * pairFlags are the engine's --pair-with for mode record: `last` reads
 * the newest recording from the history, so with no history there is
 * nothing to pair with and tonight is recorded alone (said in the log).
 */
export function pairFlags(pairWith: string, history: OpenHistory | undefined): string[] {
  if (pairWith === 'none') return []
  if (pairWith === 'last' && !history) {
    core.info('pair-with: last needs a history to find the last recording in; with history: none, tonight is recorded alone')
    return []
  }
  return ['--pair-with', pairWith]
}

/**
 * recordFlags say what a recording measured and where its raw results
 * will be: the checkout's commit, the artifact's name (unique per run
 * attempt) and the run that uploads it, so the entry leads back to its
 * profiles. The artifact's ID is only known after the upload, which needs
 * the results the engine is about to write; the name and run ID find the
 * artifact as well (GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts?name=).
 */
export async function recordFlags(
  artifactName: string,
  event: EventInfo,
  workdir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const flags = ['--artifact-name', artifactName]
  const runId = env.GITHUB_RUN_ID ?? ''
  if (runId) {
    const server = env.GITHUB_SERVER_URL || 'https://github.com'
    flags.push('--run-id', runId, '--run-url', `${server}/${event.owner}/${event.repo}/actions/runs/${runId}`)
  }
  // What is checked out, which is not always the event's commit.
  const head = await gitIn(workdir)(['rev-parse', '--verify', 'HEAD^{commit}'])
  if (head.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(head.stdout.trim())) flags.push('--commit', head.stdout.trim())
  return flags
}
