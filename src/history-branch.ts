import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import * as path from 'node:path'
import type { Octokit } from './octokit.js'

/** The folder of the data branch that holds one JSON Lines file per config. */
export const HISTORY_FOLDER = 'history'

/** HistoryBranch is the data branch the nightly history lives on. */
export interface HistoryBranch {
  readonly owner: string
  readonly repo: string
  readonly branch: string
}

/**
 * HistorySnapshot is the history as read from the branch into dir: each
 * file's blob SHA on the branch (to send with the write that replaces it,
 * so a concurrent write is detected), and whether the branch exists.
 */
export interface HistorySnapshot {
  readonly dir: string
  readonly branchExists: boolean
  readonly shas: ReadonlyMap<string, string>
}

/** status is the HTTP status of an Octokit error, or 0. */
export const status = (error: unknown): number => Number((error as { status?: unknown } | null)?.status) || 0

/**
 * readHistoryBranch downloads history/*.jsonl from the branch into dir. An
 * absent branch or folder is an empty history. Files are read as blobs by
 * SHA, which works up to 100 MB (the contents API's JSON stops at 1 MB),
 * and from one commit, so the files belong together.
 */
export async function readHistoryBranch(octokit: Octokit, where: HistoryBranch, dir: string): Promise<HistorySnapshot> {
  const { owner, repo, branch } = where
  await mkdir(dir, { recursive: true })
  let commit: string
  try {
    const { data } = await octokit.rest.git.getRef({ owner, repo, ref: `heads/${branch}` })
    commit = data.object.sha
  } catch (error) {
    if (status(error) === 404) return { dir, branchExists: false, shas: new Map() }
    throw error
  }
  let listing: unknown
  try {
    listing = (await octokit.rest.repos.getContent({ owner, repo, path: HISTORY_FOLDER, ref: commit })).data
  } catch (error) {
    if (status(error) === 404) return { dir, branchExists: true, shas: new Map() }
    throw error
  }
  if (!Array.isArray(listing))
    throw new Error(`${HISTORY_FOLDER} on branch ${branch} is not a folder; move it away or choose another history-branch`)
  const shas = new Map<string, string>()
  for (const item of listing as { type: string; name: string; sha: string }[]) {
    if (item.type !== 'file' || !isHistoryFile(item.name)) continue
    const { data: blob } = await octokit.rest.git.getBlob({ owner, repo, file_sha: item.sha })
    await writeFile(path.join(dir, item.name), Buffer.from(blob.content, blob.encoding === 'base64' ? 'base64' : 'utf8'))
    shas.set(item.name, item.sha)
  }
  return { dir, branchExists: true, shas }
}

/** isHistoryFile accepts a config's history file name: no folder, not hidden. */
function isHistoryFile(name: string): boolean {
  return name.endsWith('.jsonl') && path.basename(name) === name && !name.startsWith('.') && !name.includes('\\')
}

/** gitBlobSha is the SHA git gives a file's content: what the branch holds when nothing changed. */
export function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex')
}

/** changedFiles lists the history files in the snapshot's dir that differ from the branch. */
export async function changedFiles(snapshot: HistorySnapshot): Promise<{ name: string; content: Buffer; sha?: string }[]> {
  const out: { name: string; content: Buffer; sha?: string }[] = []
  for (const name of (await readdir(snapshot.dir)).filter(isHistoryFile).sort()) {
    const content = await readFile(path.join(snapshot.dir, name))
    const sha = snapshot.shas.get(name)
    if (sha !== gitBlobSha(content)) out.push({ name, content, sha })
  }
  return out
}

/** BRANCH_README is the branch's README: what the branch is, for someone who finds it. */
export function branchReadme(branch: string): string {
  return [
    `# ${branch}: perfgate's nightly history`,
    '',
    'This branch holds data, not code. The perfgate action writes it from the nightly workflow',
    '(`mode: record` appends one entry per run, `mode: trend` adds confirmations), and reads it',
    'to find change points and to show where main stands on pull requests.',
    '',
    `- \`${HISTORY_FOLDER}/<config>.jsonl\`: one JSON line per recording or confirmation, one file per perfgate.yml.`,
    '- The engine prunes old lines by its documented rule; do not edit the files by hand.',
    '- Read it locally: `git fetch origin ' + branch + ' && git worktree add ../history origin/' + branch + '`,',
    '  then `perfgate trend --config perfgate.yml --history ../history/history --out trend`.',
    '',
    'It shares no commits with the code branches; deleting it deletes the history.',
    '',
  ].join('\n')
}

/** Conflict is a write that lost a race: someone else wrote the branch between our read and our write. */
export class Conflict extends Error {}

/**
 * putChangedFiles writes each new or changed file with the blob SHA it
 * replaces, creating the branch (an orphan, with its README) when it does
 * not exist. It throws Conflict when another writer got there first.
 */
export async function putChangedFiles(octokit: Octokit, where: HistoryBranch, snapshot: HistorySnapshot, message: string): Promise<number> {
  const files = await changedFiles(snapshot)
  if (files.length === 0) return 0
  if (!snapshot.branchExists) {
    await createOrphanBranch(octokit, where, files, message)
    return files.length
  }
  const { owner, repo, branch } = where
  for (const f of files) {
    try {
      await octokit.rest.repos.createOrUpdateFileContents({
        owner,
        repo,
        branch,
        path: `${HISTORY_FOLDER}/${f.name}`,
        message,
        content: f.content.toString('base64'),
        ...(f.sha ? { sha: f.sha } : {}),
        // A 409 is an answer here, not a hiccup: retrying the same write cannot succeed.
        request: { retries: 0 },
      })
    } catch (error) {
      // 409: the file's SHA moved; 422: it was created meanwhile (no sha
      // sent); 404: the branch was deleted meanwhile.
      if ([404, 409, 422].includes(status(error))) throw new Conflict(`${f.name}: ${(error as Error).message}`, { cause: error })
      throw error
    }
  }
  return files.length
}

/** createOrphanBranch makes the branch's first commit (README and files, no parents) and points the branch at it. */
async function createOrphanBranch(
  octokit: Octokit,
  where: HistoryBranch,
  files: { name: string; content: Buffer }[],
  message: string,
): Promise<void> {
  const { owner, repo, branch } = where
  // Contents inline in the tree (the history is UTF-8 JSON lines): one
  // request instead of one per blob, and every write request is rate-limited.
  const tree = [
    { path: 'README.md', content: branchReadme(branch) },
    ...files.map((f) => ({ path: `${HISTORY_FOLDER}/${f.name}`, content: f.content.toString('utf8') })),
  ].map((entry) => ({ ...entry, mode: '100644' as const, type: 'blob' as const }))
  const { data: created } = await octokit.rest.git.createTree({ owner, repo, tree })
  const { data: commit } = await octokit.rest.git.createCommit({ owner, repo, message, tree: created.sha, parents: [] })
  try {
    await octokit.rest.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: commit.sha, request: { retries: 0 } })
  } catch (error) {
    // 422 "Reference already exists": another writer created it first.
    if ([409, 422].includes(status(error))) throw new Conflict(`branch ${branch}: ${(error as Error).message}`, { cause: error })
    throw error
  }
}

/** freshDir is a new empty directory for one more read of the branch. */
export const freshDir = (parent: string): Promise<string> => mkdtemp(path.join(parent, 'perfgate-history-'))

/** WriteOptions say how to write the history back, and how to redo it after losing a race. */
export interface WriteOptions {
  readonly message: string
  /** records is the file of JSON lines this run added, re-applied to a fresh read after a conflict. */
  readonly records: string
  /** addRecords merges the records into a history directory: `perfgate history add`. */
  readonly addRecords: (dir: string, records: string) => Promise<void>
  /** tempRoot is where fresh reads go. */
  readonly tempRoot: string
  /** sleep waits between attempts; tests pass one that does not. */
  readonly sleep?: (ms: number) => Promise<void>
  readonly attempts?: number
}

/** The most times a write is tried while other writers keep winning. */
export const WRITE_ATTEMPTS = 5

/** GaveUp is a write that lost the race every time. */
export class GaveUp extends Error {}

/**
 * writeHistoryBranch writes the snapshot's changed files to the branch.
 * When another writer wins the race (the branch moved between our read
 * and our write), it reads the branch again, merges this run's records
 * into what it finds (idempotent: a line already there changes nothing)
 * and tries again, at most `attempts` times with growing, jittered
 * delays, then throws GaveUp. Other errors (a 403 from a read-only token)
 * propagate for the caller to judge.
 */
export async function writeHistoryBranch(
  octokit: Octokit,
  where: HistoryBranch,
  snapshot: HistorySnapshot,
  options: WriteOptions,
): Promise<{ written: number; attempts: number }> {
  const attempts = options.attempts ?? WRITE_ATTEMPTS
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  let current = snapshot
  let lastConflict = ''
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      await sleep(backoff(attempt - 1))
      current = await readHistoryBranch(octokit, where, await freshDir(options.tempRoot))
      await options.addRecords(current.dir, options.records)
    }
    try {
      return { written: await putChangedFiles(octokit, where, current, options.message), attempts: attempt }
    } catch (error) {
      if (!(error instanceof Conflict)) throw error
      lastConflict = error.message
    }
  }
  throw new GaveUp(
    `Writing the perfgate history to branch ${where.branch} failed ${attempts} times: each time another job wrote the branch between this job's read and its write (last: ${lastConflict}). Nothing on the branch was lost, and this run's records are still in the measuring job's artifacts (history-entry.json, history-records.jsonl): re-running this job adds them, as does \`perfgate history add --history DIR --records FILE\` with each file. Give every workflow that writes the history one concurrency group (see examples/workflows/nightly.yml), then re-run this job.`,
  )
}

/** backoff is the delay before retry n (1-based): 1 s, 2 s, 4 s, 8 s, plus up to 1 s of jitter so two losers do not collide again. */
export function backoff(retry: number, random: () => number = Math.random): number {
  return 1000 * 2 ** (retry - 1) + Math.floor(random() * 1000)
}
