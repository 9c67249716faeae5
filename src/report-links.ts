import * as core from '@actions/core'
import * as exec from '@actions/exec'
import { getErrorMessage } from './errors.js'
import { engineEnvironment } from './perfgate.js'

/**
 * ReportLinks are what the comment links to: the workflow run, report.html
 * (unzipped), the results artifact, the base…head comparison and the source lines. Every value is
 * one the action itself knows (the event, the environment, its own base
 * resolution, the API), never one read from the results: in mode comment
 * the results come from a fork.
 */
export interface ReportLinks {
  /** repository is OWNER/NAME of the repository the run belongs to. */
  readonly repository?: string
  readonly serverUrl?: string
  readonly runId?: number | string
  readonly runAttempt?: number | string
  readonly artifactId?: number | string
  readonly artifactName?: string
  /** reportArtifactId is report.html's own artifact, uploaded unzipped: the comment opens the page. */
  readonly reportArtifactId?: number | string
  readonly baseSha?: string
  readonly headSha?: string
}

/** Acceptance says who accepted a regression on purpose, and by which label. */
export interface Acceptance {
  readonly label: string
  readonly by: string
}

// The same shapes the engine checks; a value that does not match is left out.
const REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/
const SERVER_URL = /^https:\/\/[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})(?::[0-9]{1,5})?$/
const ID = /^[1-9][0-9]{0,15}$/
const ARTIFACT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/
const SHA = /^[0-9a-f]{40}$/

/**
 * linkFlags turns the links into `perfgate report` flags, leaving out each
 * value that does not have its strict shape (a numeric ID, a 40-hex SHA,
 * OWNER/NAME, an https origin without a path).
 */
export function linkFlags(links: ReportLinks): string[] {
  const flags: string[] = []
  const add = (flag: string, value: string | number | undefined, valid: (v: string) => boolean): void => {
    const text = value === undefined ? '' : String(value)
    if (text !== '' && valid(text)) flags.push(flag, text)
  }
  const repository = links.repository ?? ''
  add('--repository', repository, (v) => REPOSITORY.test(v) && !/\/\.{1,2}$/.test(v))
  add('--server-url', (links.serverUrl ?? '').replace(/\/+$/, ''), (v) => SERVER_URL.test(v))
  add('--run-id', links.runId, (v) => ID.test(v) && Number.isSafeInteger(Number(v)))
  add('--run-attempt', links.runAttempt, (v) => ID.test(v) && Number.isSafeInteger(Number(v)))
  add('--artifact-id', links.artifactId, (v) => ID.test(v) && Number.isSafeInteger(Number(v)))
  add('--artifact-name', links.artifactName, (v) => ARTIFACT_NAME.test(v))
  add('--report-artifact-id', links.reportArtifactId, (v) => ID.test(v) && Number.isSafeInteger(Number(v)))
  add('--base-sha', links.baseSha, (v) => SHA.test(v))
  add('--head-sha', links.headSha, (v) => SHA.test(v))
  return flags
}

/**
 * acceptedFlags say that a regression was accepted on purpose. The label
 * and the login are passed as they are, as arguments (never through a
 * shell): the engine checks them against its own patterns and escapes what
 * it renders.
 */
export function acceptedFlags(acceptance: Acceptance | undefined): string[] {
  if (!acceptance || acceptance.label === '' || acceptance.by === '') return []
  return ['--accepted-label', acceptance.label, '--accepted-by', acceptance.by]
}

/** reportArgs is the whole `perfgate report` command line for the comment. */
export function reportArgs(reportJson: string, links: ReportLinks, acceptance?: Acceptance, extra: readonly string[] = []): string[] {
  return ['report', '--in', reportJson, '--format', 'md', ...extra, ...linkFlags(links), ...acceptedFlags(acceptance)]
}

/**
 * renderReport runs `perfgate report` with an argument array and returns
 * its Markdown, or the reason it failed. It never runs through sudo: it
 * only reads report.json.
 */
export async function renderReport(binary: string, args: string[], cwd: string): Promise<{ markdown: string } | { error: string }> {
  try {
    const out = await exec.getExecOutput(binary, args, {
      cwd,
      env: engineEnvironment(process.env),
      silent: true,
      ignoreReturnCode: true,
    })
    if (out.exitCode !== 0) return { error: `perfgate report exited ${out.exitCode}: ${out.stderr.trim().slice(0, 500)}` }
    return { markdown: out.stdout }
  } catch (error) {
    return { error: getErrorMessage(error) }
  }
}

/**
 * linkedReport renders the comment with links (and the acceptance, if
 * any). When that fails it falls back to the report already rendered
 * (the engine's report.md in mode gate), with a warning: the report is
 * never lost to a link.
 */
export async function linkedReport(
  binary: string,
  reportJson: string,
  links: ReportLinks,
  acceptance: Acceptance | undefined,
  fallback: string,
  cwd: string,
  extra: readonly string[] = [],
): Promise<string> {
  const rendered = await renderReport(binary, reportArgs(reportJson, links, acceptance, extra), cwd)
  if ('markdown' in rendered) return rendered.markdown
  core.warning(
    `Rendering the report with links${acceptance ? ' and the acceptance' : ''} failed (${rendered.error}); the summary and the comment show the report without them.`,
  )
  return fallback
}

/** linksOfThisRun are the links for a gate or record run of this workflow. */
export function linksOfThisRun(
  env: NodeJS.ProcessEnv,
  repo: { readonly owner: string; readonly repo: string },
  artifact: { readonly id?: number; readonly name: string; readonly reportId?: number },
  shas: { readonly base?: string; readonly head?: string },
): ReportLinks {
  return {
    repository: `${repo.owner}/${repo.repo}`,
    serverUrl: env.GITHUB_SERVER_URL,
    runId: env.GITHUB_RUN_ID,
    runAttempt: env.GITHUB_RUN_ATTEMPT,
    artifactId: artifact.id,
    artifactName: artifact.id === undefined ? undefined : artifact.name,
    reportArtifactId: artifact.reportId,
    baseSha: shas.base,
    headSha: shas.head,
  }
}
