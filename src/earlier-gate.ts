import { getErrorMessage } from './errors.js'
import type { Octokit } from './octokit.js'
import { reportPageName } from './report-page.js'
import { downloadNewestAttempt, type RunArtifact } from './run-artifact.js'

/** EarlierGate is a finished run of this workflow for the same head commit, and its results artifact. */
export interface EarlierGate {
  readonly runId: number
  readonly runAttempt: number
  readonly artifact: RunArtifact
}

/** Where to look: this run (left out), its workflow, the pull request and the commit it measures. */
export interface EarlierGateQuery {
  readonly owner: string
  readonly repo: string
  /** workflowRef is GITHUB_WORKFLOW_REF: owner/repo/.github/workflows/file.yml@ref. */
  readonly workflowRef: string
  readonly currentRunId: number
  readonly pullNumber: number
  readonly headSha: string
  /** artifactName is the artifact-name input (the attempt suffix is added by the upload). */
  readonly artifactName: string
}

/**
 * findReportPage is the ID of the run's report.html uploaded unzipped next
 * to the results artifact (report-page.ts), or undefined: it is a
 * convenience, so a failure to list it only leaves the link out.
 */
export async function findReportPage(
  octokit: Octokit,
  run: { readonly owner: string; readonly repo: string; readonly runId: number },
  resultsArtifactName: string,
): Promise<number | undefined> {
  const name = reportPageName(resultsArtifactName)
  try {
    const { data } = await octokit.rest.actions.listWorkflowRunArtifacts({
      owner: run.owner,
      repo: run.repo,
      run_id: run.runId,
      name,
      per_page: 10,
    })
    return data.artifacts.find((a) => a.name === name && !a.expired)?.id
  } catch {
    return undefined
  }
}

/**
 * RUNS_LOOKED_AT caps how many earlier runs of the commit are asked for an
 * artifact: each label event that re-rendered uploaded none, so the newest
 * measurement may sit behind a few of them.
 */
const RUNS_LOOKED_AT = 10

/**
 * findEarlierGate looks for the newest earlier run of this workflow on a
 * pull_request event for the same head commit (and, when GitHub lists the
 * run's pull requests, for this one) that kept a results artifact under
 * the same name, and downloads it. It returns why not instead of throwing:
 * the caller then measures as usual.
 */
export async function findEarlierGate(octokit: Octokit, q: EarlierGateQuery): Promise<EarlierGate | { none: string }> {
  const workflow = workflowFile(q.workflowRef)
  if (!workflow) return { none: `GITHUB_WORKFLOW_REF (${JSON.stringify(q.workflowRef)}) names no workflow file to look for its runs in` }
  let runs: { id: number; run_attempt?: number; head_sha: string; event: string; pull_requests: { number: number }[] | null }[]
  try {
    const { data } = await octokit.rest.actions.listWorkflowRuns({
      owner: q.owner,
      repo: q.repo,
      workflow_id: workflow,
      head_sha: q.headSha,
      event: 'pull_request',
      per_page: 30,
    })
    runs = data.workflow_runs
  } catch (error) {
    return { none: `listing the runs of ${workflow} failed (${getErrorMessage(error)}); give the job \`permissions: actions: read\`` }
  }
  const candidates = runs
    .filter((r) => r.id !== q.currentRunId && r.head_sha === q.headSha && r.event === 'pull_request')
    .filter((r) => !r.pull_requests?.length || r.pull_requests.some((p) => p.number === q.pullNumber))
    .sort((a, b) => b.id - a.id)
    .slice(0, RUNS_LOOKED_AT)
  if (candidates.length === 0)
    return { none: `no earlier run of ${workflow} measured ${q.headSha.slice(0, 12)} for pull request #${q.pullNumber}` }
  for (const run of candidates) {
    let artifact: RunArtifact | undefined
    try {
      artifact = await downloadNewestAttempt(octokit, { owner: q.owner, repo: q.repo, runId: run.id }, q.artifactName)
    } catch (error) {
      return {
        none: `reading the artifacts of run ${run.id} failed (${getErrorMessage(error)}); give the job \`permissions: actions: read\``,
      }
    }
    if (artifact) return { runId: run.id, runAttempt: attemptOf(artifact.name, run.run_attempt), artifact }
  }
  return {
    none: `none of the ${candidates.length} earlier run(s) of ${workflow} for ${q.headSha.slice(0, 12)} has an artifact ${q.artifactName}-attempt-N (not uploaded, expired or deleted)`,
  }
}

/** thisWorkflowFile is this run's workflow file (GITHUB_WORKFLOW_REF's), undefined when it names none. */
export function thisWorkflowFile(): string | undefined {
  return workflowFile(process.env.GITHUB_WORKFLOW_REF ?? '') || undefined
}

/** workflowFile is the workflow's file name in GITHUB_WORKFLOW_REF, which the API takes as workflow_id; '' when there is none. */
export function workflowFile(workflowRef: string): string {
  const path = workflowRef.split('@')[0]
  const match = /\/\.github\/workflows\/([^/]+\.ya?ml)$/.exec(path)
  return match ? match[1] : ''
}

/** attemptOf reads the attempt from the artifact's name (name-attempt-N), else the run's. */
function attemptOf(artifactName: string, runAttempt: number | undefined): number {
  const n = Number(/-attempt-(\d+)$/.exec(artifactName)?.[1])
  return Number.isSafeInteger(n) && n > 0 ? n : (runAttempt ?? 1)
}
