import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'

/**
 * git runs git in cwd for the tests' throwaway repositories: a fixed
 * identity, and never an enclosing repository (GIT_CEILING_DIRECTORIES).
 */
export function git(cwd: string, ...args: string[]): string {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@x',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@x',
    GIT_CEILING_DIRECTORIES: tmpdir(),
  }
  return execFileSync('git', args, { cwd, encoding: 'utf8', env }).trim()
}
