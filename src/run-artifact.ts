import * as core from '@actions/core'
import type { Octokit } from './octokit.js'
import { checkListedSize } from './untrusted-results.js'

/** RunArtifact is one artifact of a workflow run, downloaded as its zip. */
export interface RunArtifact {
  readonly id: number
  readonly name: string
  readonly zip: Uint8Array
}

/**
 * downloadNewestAttempt finds the newest attempt of the run's artifact
 * named `${baseName}-attempt-N` (N at most maxAttempt: a later attempt's
 * is not this one's), checks its listed size before downloading, and
 * downloads it. undefined means the run has none.
 */
export async function downloadNewestAttempt(
  octokit: Octokit,
  run: { readonly owner: string; readonly repo: string; readonly runId: number },
  baseName: string,
  maxAttempt = Number.POSITIVE_INFINITY,
): Promise<RunArtifact | undefined> {
  const { owner, repo, runId } = run
  const artifacts = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 })
  const prefix = `${baseName}-attempt-`
  const attemptOf = (name: string): number => Number(name.slice(prefix.length))
  const artifact = artifacts
    .filter((a) => a.name.startsWith(prefix) && /^\d+$/.test(a.name.slice(prefix.length)) && attemptOf(a.name) <= maxAttempt && !a.expired)
    .sort((a, b) => attemptOf(b.name) - attemptOf(a.name))[0]
  if (!artifact) return undefined
  checkListedSize(artifact.name, artifact.size_in_bytes)
  const { data } = await octokit.rest.actions.downloadArtifact({ owner, repo, artifact_id: artifact.id, archive_format: 'zip' })
  const zip = new Uint8Array(data as ArrayBuffer)
  core.info(`downloaded ${artifact.name} (${zip.byteLength} bytes)`)
  return { id: artifact.id, name: artifact.name, zip }
}
