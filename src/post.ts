import * as core from '@actions/core'
import { existsSync, readFileSync } from 'node:fs'
import { uploadResults } from './artifact.js'
import { getErrorMessage } from './errors.js'
import { deleteOrphanedKindClusters } from './kind-clusters.js'
import * as state from './state.js'

/** How long the engine gets to stop its service and write its results. */
const stopGraceMs = 10_000

/**
 * post runs after the job's steps, also when they failed or the job was
 * cancelled. It stops an engine that is still running, deletes kind
 * clusters a killed engine left, and uploads results that main did not get
 * to upload. It only warns: cleanup must never turn a result into a failure.
 */
export async function post(): Promise<void> {
  try {
    await stopEngine(state.enginePid())
  } catch (error) {
    core.warning(`Stopping the perfgate engine failed: ${getErrorMessage(error)}`)
  }
  await deleteOrphanedKindClusters(alive)
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
 * with a parent-death signal, so they do not outlive it.
 */
export async function stopEngine(pid: number): Promise<void> {
  if (pid <= 0 || !alive(pid) || !isPerfgate(pid)) return
  core.info(`post: stopping the perfgate engine (PID ${pid})`)
  process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + stopGraceMs
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  if (alive(pid)) {
    core.warning(`post: the perfgate engine (PID ${pid}) did not stop within ${stopGraceMs / 1000}s; killing it`)
    process.kill(pid, 'SIGKILL')
  }
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** run is post under the name @github/local-action calls a post entry point by. */
export const run = post
