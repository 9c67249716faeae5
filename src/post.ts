import * as core from '@actions/core'
import * as exec from '@actions/exec'
import { existsSync, readFileSync } from 'node:fs'
import { uploadResults } from './artifact.js'
import { getErrorMessage } from './errors.js'
import { engineCommand } from './perfgate.js'
import * as state from './state.js'

/** How long the engine gets to stop its service and write its results. */
const stopGraceMs = 10_000

/**
 * post runs after the job's steps, also when they failed or the job was
 * cancelled. It stops an engine that is still running, runs the engine's
 * sweep of what a killed engine left (cgroups, containers, images, kind
 * clusters, namespaces), and uploads results that main did not get to
 * upload. It only warns: cleanup must never turn a result into a failure.
 */
export async function post(): Promise<void> {
  const engine = state.engineRun()
  try {
    await stopEngine(state.enginePid(), engine?.viaSudo ?? false)
  } catch (error) {
    core.warning(`Stopping the perfgate engine failed: ${getErrorMessage(error)}`)
  }
  if (engine) await sweep(engine)
  const { resultsDir, artifactName } = state.uploadPlan()
  if (!state.wasUploaded() && resultsDir && existsSync(resultsDir)) {
    try {
      const id = await uploadResults(artifactName, resultsDir)
      core.info(`post: uploaded the results main left behind as ${artifactName} (ID ${id})`)
    } catch (error) {
      core.warning(`post: uploading the results left in ${resultsDir} failed: ${getErrorMessage(error)}`)
    }
  }
}

/**
 * stopEngine sends SIGTERM (the engine stops its service and writes what it
 * measured), waits, then SIGKILL. The services have the engine as parent
 * with a parent-death signal, so they do not outlive it. An engine started
 * through sudo is root's, so it is signalled through sudo too.
 */
export async function stopEngine(pid: number, viaSudo = false): Promise<void> {
  if (pid <= 0 || !alive(pid) || !isPerfgate(pid)) return
  core.info(`post: stopping the perfgate engine (PID ${pid})`)
  await signal(pid, 'SIGTERM', viaSudo)
  const deadline = Date.now() + stopGraceMs
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  if (alive(pid)) {
    core.warning(`post: the perfgate engine (PID ${pid}) did not stop within ${stopGraceMs / 1000}s; killing it`)
    await signal(pid, 'SIGKILL', viaSudo)
  }
}

/**
 * sweep runs `perfgate sweep` as main ran the engine (through sudo or
 * not): the engine alone knows the names and owners of what it creates.
 * Its list goes to the log; anything it could not remove is a warning.
 */
async function sweep(engine: state.EngineRun): Promise<void> {
  const command = engineCommand(engine.binary, sweepArgs(engine, existsSync(engine.config)), process.env, engine.viaSudo)
  try {
    const result = await exec.getExecOutput(command.file, command.args, { env: command.env, silent: true, ignoreReturnCode: true })
    if (result.stdout.trim()) core.info(result.stdout.trimEnd())
    if (result.exitCode !== 0) {
      core.warning(`post: \`perfgate sweep\` left something behind (exit ${result.exitCode}):\n${result.stderr.trim()}`)
    }
  } catch (error) {
    core.warning(`post: running \`perfgate sweep\` (${engine.binary}) failed: ${getErrorMessage(error)}`)
  }
}

/**
 * sweepArgs sweeps the target main measured on, and nothing else: the
 * config may be the pull request's, and under sudo the engine reads it as
 * root, so it connects to a Kubernetes cluster only for target kubernetes
 * (the `target` input, else, after a gate, the base commit's perfgate.yml,
 * whose plan the gate measured with, else the config's).
 */
export function sweepArgs(engine: state.EngineRun, configExists: boolean): string[] {
  return [
    'sweep',
    ...(engine.target ? ['--target', engine.target] : []),
    ...(configExists ? ['--config', engine.config] : []),
    ...(configExists && engine.base && !engine.target ? ['--base', engine.base] : []),
  ]
}

/** isPerfgate guards against a recycled PID: only a perfgate process is signalled. */
function isPerfgate(pid: number): boolean {
  try {
    // The engine itself, or sudo running it (the binary is then an argument).
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1')
      .split('\0')
      .some((arg) => arg === 'perfgate' || arg.endsWith('/perfgate'))
  } catch {
    return false
  }
}

/**
 * alive says whether a process with pid exists, by the engine's rule
 * (engine/internal/owner.Alive): a process this user may not signal
 * (EPERM), such as the engine running as root through sudo, exists.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** signal sends sig to pid, through `sudo -n kill` when only root may. */
async function signal(pid: number, sig: 'SIGTERM' | 'SIGKILL', viaSudo: boolean): Promise<void> {
  try {
    process.kill(pid, sig)
    return
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM' || !viaSudo) throw error
  }
  const result = await exec.getExecOutput('sudo', ['-n', 'kill', '-s', sig.slice(3), String(pid)], { silent: true, ignoreReturnCode: true })
  if (result.exitCode !== 0)
    throw new Error(`sudo -n kill -s ${sig.slice(3)} ${pid} failed (exit ${result.exitCode}): ${result.stderr.trim()}`)
}

/** run is post under the name @github/local-action calls a post entry point by. */
export const run = post
