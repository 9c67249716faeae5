import * as core from '@actions/core'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import * as path from 'node:path'

/** The engine's exit codes (README "Exit codes"). */
export const EXIT = { pass: 0, regression: 1, usage: 2, infrastructure: 3, invalid: 4 } as const

/**
 * runPerfgate runs the engine with an argument array (never a shell line),
 * streaming its output to the log. A cancelled job (SIGINT, then SIGTERM
 * from the runner) is passed on as one SIGTERM: the engine then stops its
 * experiment, writes what it measured and exits, so the results can still
 * be uploaded. onStart receives the process ID for the post step, which
 * stops an engine still running when main was killed.
 */
export async function runPerfgate(binary: string, args: string[], cwd: string, onStart: (pid: number) => void = () => {}): Promise<number> {
  core.info(`$ perfgate ${args.join(' ')}`)
  // Its own process group: a signal sent to the action's whole group must
  // not reach the engine as well as the one forwarded below, because a
  // second signal makes the engine stop at once without writing results.
  const child = spawn(binary, args, { cwd, env: engineEnvironment(process.env), stdio: ['ignore', 'inherit', 'inherit'], detached: true })
  if (child.pid !== undefined) onStart(child.pid)
  let forwarded = false
  const forward = (signal: NodeJS.Signals): void => {
    if (forwarded) return
    forwarded = true
    core.warning(`Received ${signal}: stopping perfgate; the runs measured so far are kept and uploaded.`)
    child.kill('SIGTERM')
  }
  process.on('SIGINT', forward)
  process.on('SIGTERM', forward)
  try {
    return await new Promise<number>((resolve, reject) => {
      child.on('error', reject)
      child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + 15 : 1)))
    })
  } finally {
    process.off('SIGINT', forward)
    process.off('SIGTERM', forward)
  }
}

/**
 * engineEnvironment is the action's environment without its secrets. The
 * engine passes its environment on to the service it measures, which is
 * the pull request's code: it must not see the token (INPUT_TOKEN, inputs
 * in general) or the runner's credentials for artifacts, caches and OIDC.
 */
export function engineEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const secret = /^(INPUT_|ACTIONS_RUNTIME_TOKEN$|ACTIONS_ID_TOKEN_REQUEST_|ACTIONS_CACHE_URL$|ACTIONS_RESULTS_URL$|ACTIONS_RUNTIME_URL$|GITHUB_TOKEN$|GH_TOKEN$)/
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !secret.test(e[0])))
}

/** Verdicts report.json can hold, plus no-baseline from the action itself. */
export type Verdict = 'pass' | 'regression' | 'improvement' | 'inconclusive' | 'invalid' | 'error' | 'no-baseline'

const verdicts: readonly string[] = ['pass', 'regression', 'improvement', 'inconclusive', 'invalid', 'error', 'no-baseline']

/**
 * readVerdict reads the verdict and reason the engine wrote. The action
 * does not compute anything from the report; it only routes on the verdict.
 */
export async function readVerdict(resultsDir: string): Promise<{ verdict: Verdict; reason: string } | undefined> {
  const file = path.join(resultsDir, 'report.json')
  if (!existsSync(file)) return undefined
  try {
    const report = JSON.parse(await readFile(file, 'utf8')) as { verdict?: unknown; reason?: unknown }
    if (typeof report.verdict !== 'string' || !verdicts.includes(report.verdict)) return undefined
    return { verdict: report.verdict as Verdict, reason: typeof report.reason === 'string' ? report.reason : '' }
  } catch {
    return undefined
  }
}
