import { execFile } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  backoff,
  freshDir,
  GaveUp,
  gitBlobSha,
  readHistoryBranch,
  writeHistoryBranch,
  WRITE_ATTEMPTS,
  type HistorySnapshot,
  type WriteOptions,
} from '../src/history-branch.js'
import { createOctokit } from '../src/octokit.js'
import { FakeGitHub } from './support/fake-github.js'
import { sharedEngine } from './support/shared-engine.js'
import { historyLine, nameOf } from './support/history-line.js'

const execFileAsync = promisify(execFile)

const where = { owner: 'acme', repo: 'shop', branch: 'perfgate-data' }
const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-history-branch-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

let gh: FakeGitHub
beforeEach(async () => {
  gh = new FakeGitHub()
  await gh.start()
  process.env.GITHUB_API_URL = gh.url
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

const octokit = () => createOctokit('t0ken')
const line = historyLine
const read = async (): Promise<HistorySnapshot> => readHistoryBranch(octokit(), where, await freshDir(tmp))

// The real engine merges the records: `perfgate history add`, the suite's
// one build of this repository's engine/ as the Action builds it.
const engine = sharedEngine()

async function addRecords(dir: string, records: string): Promise<void> {
  await execFileAsync(engine, ['history', 'add', '--history', dir, '--records', records])
}

/** record does what `perfgate run --history` does to a snapshot: appends the entry, and writes it alone as the records file. */
function record(snapshot: HistorySnapshot, id: string): string {
  appendFileSync(path.join(snapshot.dir, 'perfgate.jsonl'), `${line(id)}\n`)
  const records = path.join(mkdtempSync(path.join(tmp, 'results-')), 'history-entry.json')
  writeFileSync(records, `${line(id)}\n`)
  return records
}

const sleeps: number[] = []
const options = (records: string): WriteOptions => ({
  message: 'perfgate: record',
  records,
  addRecords,
  tempRoot: tmp,
  sleep: (ms) => {
    sleeps.push(ms)
    return Promise.resolve()
  },
})
beforeEach(() => void (sleeps.length = 0))

const ids = (text: string | undefined) =>
  (text ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => nameOf((JSON.parse(l) as { id: string }).id))
const historyFile = () => gh.git.files('perfgate-data')?.['history/perfgate.jsonl']

describe('readHistoryBranch', () => {
  it('reads an absent branch as an empty history, without listing anything', async () => {
    const snapshot = await read()
    expect(snapshot).toMatchObject({ branchExists: false })
    expect(snapshot.shas.size).toBe(0)
    expect(gh.count('repos/get-content')).toBe(0)
  })

  it('reads a branch without a history folder as empty', async () => {
    gh.git.write('perfgate-data', 'README.md', 'data')
    const snapshot = await read()
    expect(snapshot).toMatchObject({ branchExists: true })
    expect(snapshot.shas.size).toBe(0)
  })

  it('downloads every history file, larger than the contents API returns, by blob, and only history files', async () => {
    const big = Array.from({ length: 20_000 }, (_, i) => line(`e${i}`)).join('\n') + '\n'
    expect(big.length).toBeGreaterThan(1024 * 1024)
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', big)
    gh.git.write('perfgate-data', 'history/api.jsonl', `${line('a')}\n`)
    gh.git.write('perfgate-data', 'history/notes.txt', 'not history')
    gh.git.write('perfgate-data', 'history/old/x.jsonl', 'nested: not read')
    const snapshot = await read()
    expect(readFileSync(path.join(snapshot.dir, 'perfgate.jsonl'), 'utf8')).toBe(big)
    expect([...snapshot.shas.keys()].sort()).toEqual(['api.jsonl', 'perfgate.jsonl'])
    expect(snapshot.shas.get('perfgate.jsonl')).toBe(gitBlobSha(Buffer.from(big)))
    expect(gh.count('git/get-blob')).toBe(2)
  })

  it('reads every file from the commit the branch pointed at when the read began', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('a')}\n`)
    gh.before('GET /repos/acme/shop/contents/history', () => gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('moved')}\n`))
    const snapshot = await read()
    expect(ids(readFileSync(path.join(snapshot.dir, 'perfgate.jsonl'), 'utf8'))).toEqual(['a'])
  })
})

describe('writeHistoryBranch', () => {
  it('creates the branch on the first write: an orphan commit with a README and the history', async () => {
    const snapshot = await read()
    const outcome = await writeHistoryBranch(octokit(), where, snapshot, options(record(snapshot, 'e1')))
    expect(outcome).toEqual({ written: 1, attempts: 1 })
    const files = gh.git.files('perfgate-data')!
    expect(Object.keys(files).sort()).toEqual(['README.md', 'history/perfgate.jsonl'])
    expect(files['README.md']).toContain('perfgate')
    expect(ids(files['history/perfgate.jsonl'])).toEqual(['e1'])
    const head = gh.git.commits.get(gh.git.branches.get('perfgate-data')!)!
    expect(head.parents).toEqual([])
    expect(gh.requests.find((r) => r.operationId === 'git/create-ref')?.body).toMatchObject({ ref: 'refs/heads/perfgate-data' })
  })

  it('updates a file with the SHA it replaces, and leaves unchanged files alone', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    gh.git.write('perfgate-data', 'history/api.jsonl', `${line('a1')}\n`)
    const before = gh.git.files('perfgate-data')!
    const snapshot = await read()
    const outcome = await writeHistoryBranch(octokit(), where, snapshot, options(record(snapshot, 'e2')))
    expect(outcome).toEqual({ written: 1, attempts: 1 })
    const puts = gh.requests.filter((r) => r.operationId === 'repos/create-or-update-file-contents')
    expect(puts).toHaveLength(1)
    expect(puts[0].body).toMatchObject({ branch: 'perfgate-data', sha: gitBlobSha(Buffer.from(before['history/perfgate.jsonl'])) })
    expect(ids(historyFile())).toEqual(['e1', 'e2'])
    expect(gh.git.files('perfgate-data')!['history/api.jsonl']).toBe(before['history/api.jsonl'])
  })

  it('writes nothing when the branch already holds the files', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    const snapshot = await read()
    const records = path.join(tmp, 'empty.jsonl')
    writeFileSync(records, '')
    expect(await writeHistoryBranch(octokit(), where, snapshot, options(records))).toEqual({ written: 0, attempts: 1 })
    expect(gh.count('repos/create-or-update-file-contents')).toBe(0)
  })

  it('keeps both entries when another writer lands between the read and the write (409), after one retry', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    const snapshot = await read()
    const records = record(snapshot, 'mine')
    gh.before('PUT /repos/acme/shop/contents/history/perfgate.jsonl', () =>
      gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n${line('theirs')}\n`),
    )
    const outcome = await writeHistoryBranch(octokit(), where, snapshot, options(records))
    expect(outcome).toEqual({ written: 1, attempts: 2 })
    expect(ids(historyFile())).toEqual(['e1', 'theirs', 'mine'])
    expect(sleeps).toHaveLength(1)
    expect(gh.count('repos/create-or-update-file-contents')).toBe(2)
  })

  it('keeps both entries of two writers that run at once', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    const [a, b] = [await read(), await read()]
    const outcomes = await Promise.all([
      writeHistoryBranch(octokit(), where, a, options(record(a, 'night-a'))),
      writeHistoryBranch(octokit(), where, b, options(record(b, 'night-b'))),
    ])
    expect(outcomes.map((o) => o.attempts).sort()).toEqual([1, 2])
    expect(ids(historyFile()).sort()).toEqual(['e1', 'night-a', 'night-b'])
  })

  it('keeps both entries of two first writers that both create the branch (422: reference exists)', async () => {
    const [a, b] = [await read(), await read()]
    const outcomes = await Promise.all([
      writeHistoryBranch(octokit(), where, a, options(record(a, 'first-a'))),
      writeHistoryBranch(octokit(), where, b, options(record(b, 'first-b'))),
    ])
    expect(outcomes.map((o) => o.attempts).sort()).toEqual([1, 2])
    expect(ids(historyFile()).sort()).toEqual(['first-a', 'first-b'])
    expect(Object.keys(gh.git.files('perfgate-data')!)).toContain('README.md')
  })

  it('gives up after five attempts that all lose, saying what to do', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    const snapshot = await read()
    for (let i = 0; i < WRITE_ATTEMPTS; i++) {
      gh.before('PUT /repos/acme/shop/contents/history/perfgate.jsonl', () =>
        gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${historyFile()}${line(`other-${i}`)}\n`),
      )
    }
    const failed = writeHistoryBranch(octokit(), where, snapshot, options(record(snapshot, 'mine')))
    await expect(failed).rejects.toBeInstanceOf(GaveUp)
    await expect(failed).rejects.toThrow(/failed 5 times.*concurrency group/s)
    expect(gh.count('repos/create-or-update-file-contents')).toBe(WRITE_ATTEMPTS)
    expect(sleeps).toHaveLength(WRITE_ATTEMPTS - 1)
    expect(ids(historyFile())).not.toContain('mine')
  })

  it('lets a 403 (a read-only token) through for the caller to judge, without retrying', async () => {
    gh.git.write('perfgate-data', 'history/perfgate.jsonl', `${line('e1')}\n`)
    const snapshot = await read()
    gh.fail('PUT /repos/acme/shop/contents/history/perfgate.jsonl', { status: 403, message: 'Resource not accessible by integration' })
    await expect(writeHistoryBranch(octokit(), where, snapshot, options(record(snapshot, 'mine')))).rejects.toMatchObject({ status: 403 })
    expect(gh.count('repos/create-or-update-file-contents')).toBe(1)
  })
})

describe('backoff', () => {
  it('doubles from one second, with less than a second of jitter', () => {
    expect([1, 2, 3, 4].map((n) => backoff(n, () => 0))).toEqual([1000, 2000, 4000, 8000])
    expect(backoff(1, () => 0.999)).toBe(1999)
  })
})
