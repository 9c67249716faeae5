import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { git } from './support/git.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitIn, mergeBase, resolveRevision } from '../src/git-base.js'

// Real repositories: an origin whose main has moved on 120 commits past the
// point where feature left it, cloned the way actions/checkout does.
let root: string
let origin: string
let forkPoint: string
const commit = (cwd: string, file: string, n: number): void => {
  writeFileSync(path.join(cwd, file), String(n))
  git(cwd, 'add', file)
  git(cwd, 'commit', '-q', '-m', `${file} ${n}`)
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'perfgate-git-'))
  origin = path.join(root, 'origin')
  git(root, 'init', '-q', '-b', 'main', origin)
  for (let i = 0; i < 5; i++) commit(origin, 'main.txt', i)
  forkPoint = git(origin, 'rev-parse', 'HEAD')
  git(origin, 'checkout', '-q', '-b', 'feature')
  for (let i = 0; i < 3; i++) commit(origin, 'feature.txt', i)
  git(origin, 'checkout', '-q', 'main')
  for (let i = 5; i < 125; i++) commit(origin, 'main.txt', i)
  git(origin, 'checkout', '-q', '--orphan', 'orphan')
  commit(origin, 'orphan.txt', 0)
  git(origin, 'checkout', '-q', 'main')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const clone = (name: string, ...args: string[]): string => {
  const dir = path.join(root, name)
  git(root, 'clone', '-q', ...args, `file://${origin}`, dir)
  return dir
}

describe('mergeBase', () => {
  it('deepens a depth-1 clone of the pull request until it finds the fork point', async () => {
    const dir = clone('shallow', '--depth=1', '--branch', 'feature')
    expect(git(dir, 'rev-parse', '--is-shallow-repository')).toBe('true')
    expect(await mergeBase(gitIn(dir), 'main')).toEqual({ sha: forkPoint })
  })

  it('finds it at once in a full clone', async () => {
    const dir = clone('full', '--branch', 'feature')
    expect(await mergeBase(gitIn(dir), 'main')).toEqual({ sha: forkPoint })
  })

  it('reports no baseline for an orphan branch, not an error', async () => {
    const dir = clone('orphan', '--branch', 'orphan')
    const found = await mergeBase(gitIn(dir), 'main')
    expect(found).toEqual({ none: 'HEAD shares no history with main (an orphan branch or unrelated histories)' })
  })

  it('says how to fix a base branch that cannot be fetched', async () => {
    const dir = clone('nobranch', '--depth=1', '--branch', 'feature')
    await expect(mergeBase(gitIn(dir), 'no-such-branch')).rejects.toThrow(
      /Cannot fetch no-such-branch from origin.*fetch-depth: 0, or give base-ref/,
    )
  })
})

describe('resolveRevision', () => {
  it('fetches a base-ref the shallow clone does not have', async () => {
    const dir = clone('explicit', '--depth=1', '--branch', 'feature')
    expect(await resolveRevision(gitIn(dir), forkPoint)).toBe(forkPoint)
  })

  it('names a base-ref that does not exist', async () => {
    const dir = clone('missing', '--depth=1', '--branch', 'feature')
    await expect(resolveRevision(gitIn(dir), 'v9.9.9')).rejects.toThrow(/v9\.9\.9/)
  })
})
