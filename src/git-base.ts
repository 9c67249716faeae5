import * as exec from '@actions/exec'
import { UserError } from './errors.js'

/** Git runs git with arguments in the repository and never throws on exit codes. */
export type Git = (args: string[]) => Promise<exec.ExecOutput>

export function gitIn(cwd: string): Git {
  return (args) => exec.getExecOutput('git', args, { cwd, silent: true, ignoreReturnCode: true })
}

export type BaseRevision = { readonly sha: string } | { readonly none: string }

/** deepenSteps are the successive --deepen amounts tried on a shallow clone. */
const deepenSteps = [50, 200, 1000]

/**
 * mergeBase finds the commit where HEAD left branch: the base a pull
 * request is compared with. A shallow clone (actions/checkout's default
 * fetch-depth: 1) is deepened step by step, then unshallowed. No merge base
 * in a full history (an orphan branch, unrelated histories) is no baseline,
 * not an error.
 */
export async function mergeBase(git: Git, branch: string): Promise<BaseRevision> {
  const remoteRef = `refs/remotes/origin/${branch}`
  const refspec = `+refs/heads/${branch}:${remoteRef}`
  if ((await git(['rev-parse', '--verify', '--quiet', remoteRef])).exitCode !== 0) {
    await fetch(git, ['fetch', '--no-tags', '--depth=50', 'origin', refspec], branch)
  }
  for (let step = 0; ; step++) {
    const found = await git(['merge-base', remoteRef, 'HEAD'])
    if (found.exitCode === 0) return { sha: found.stdout.trim() }
    if (found.exitCode !== 1) {
      throw new Error(`git merge-base ${remoteRef} HEAD failed (exit ${found.exitCode}): ${found.stderr.trim()}`)
    }
    const shallow = (await git(['rev-parse', '--is-shallow-repository'])).stdout.trim() === 'true'
    if (!shallow) {
      return { none: `HEAD shares no history with ${branch} (an orphan branch or unrelated histories)` }
    }
    const deepen = step < deepenSteps.length ? [`--deepen=${deepenSteps[step]}`] : ['--unshallow']
    await fetch(git, ['fetch', '--no-tags', ...deepen, 'origin', refspec], branch)
  }
}

/**
 * resolveRevision turns an explicit base-ref into a commit, fetching it
 * from origin when the checkout does not have it.
 */
export async function resolveRevision(git: Git, ref: string): Promise<string> {
  const local = await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])
  if (local.exitCode === 0) return local.stdout.trim()
  await fetch(git, ['fetch', '--no-tags', 'origin', ref], ref)
  const fetched = await git(['rev-parse', '--verify', '--quiet', 'FETCH_HEAD^{commit}'])
  if (fetched.exitCode !== 0) {
    throw new UserError(
      `base-ref ${JSON.stringify(ref)} is not a commit of this repository, and fetching it from origin gave none. Give a branch, tag or commit SHA that exists.`,
    )
  }
  return fetched.stdout.trim()
}

async function fetch(git: Git, args: string[], what: string): Promise<void> {
  const out = await git(args)
  if (out.exitCode !== 0) {
    throw new UserError(
      `Cannot fetch ${what} from origin to find the base (git ${args.join(' ')} exited ${out.exitCode}: ${out.stderr.trim()}). Check out with actions/checkout and fetch-depth: 0, or give base-ref.`,
    )
  }
}
