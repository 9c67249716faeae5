import * as core from '@actions/core'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import * as path from 'node:path'
import { checkReportKeys } from './report-keys.js'

/** The engine's exit codes (docs/cli.md, "Exit codes"). */
export const EXIT = { pass: 0, regression: 1, usage: 2, infrastructure: 3, invalid: 4 } as const

/**
 * runPerfgate runs the engine with an argument array (never a shell line),
 * streaming its output to the log. A cancelled job (SIGINT, then SIGTERM
 * from the runner) is passed on as one SIGTERM: the engine then stops its
 * experiment, writes what it measured and exits, so the results can still
 * be uploaded. onStart receives the process ID, and whether it is sudo's,
 * for the post step, which stops an engine still running when main was
 * killed and then sweeps what it left.
 */
export async function runPerfgate(
  binary: string,
  args: string[],
  cwd: string,
  onStart: (pid: number, viaSudo: boolean) => void = () => {},
): Promise<number> {
  const engineArgs = withGitHubLog(args)
  const invocation = engineInvocation(binary, engineArgs, { root: process.getuid?.() === 0, sudo: await canSudo(), env: process.env })
  core.info(`$ ${invocation.viaSudo ? 'sudo ' : ''}perfgate ${engineArgs.join(' ')}`)
  if (invocation.viaSudo) core.info('running the engine as root through sudo: CPU and memory limits need cgroups, which need root')
  // Its own process group: a signal sent to the action's whole group must
  // not reach the engine as well as the one forwarded below, because a
  // second signal makes the engine stop at once without writing results.
  const child = spawn(invocation.file, invocation.args, {
    cwd,
    env: invocation.env,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  })
  if (child.pid !== undefined) onStart(child.pid, invocation.viaSudo)
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
 * withGitHubLog asks `perfgate gate` and `perfgate run` to fold their log
 * for GitHub: a ::group:: around each build and the measurement (the
 * engine prints plain text without the flag, as on a laptop). Other
 * subcommands are left as they are.
 */
export function withGitHubLog(args: readonly string[]): string[] {
  if ((args[0] === 'gate' || args[0] === 'run') && !args.includes('--log-format')) return [...args, '--log-format', 'github']
  return [...args]
}

export interface EngineInvocation {
  readonly file: string
  readonly args: string[]
  readonly env: Record<string, string>
  readonly viaSudo: boolean
}

/**
 * engineInvocation decides how the engine is started. Its cgroup limits
 * need root; GitHub's hosted runners run steps as an unprivileged user with
 * password-less sudo, so there the engine runs through `sudo -n`. PATH is
 * passed explicitly (sudo resets it, and the engine needs the runner's Go).
 * Under sudo the engine does as root only what needs root: it builds the
 * pull request's code and runs git as the runner user (SUDO_UID), with the
 * runner's own Go caches, and runs the service as that user too, so no
 * root-owned file lands in the runner's caches or checkout. Without root
 * or sudo the engine runs unconfined and says so in its report.
 */
export function engineInvocation(
  binary: string,
  args: string[],
  host: { root: boolean; sudo: boolean; env: NodeJS.ProcessEnv },
): EngineInvocation {
  return engineCommand(binary, args, host.env, !host.root && host.sudo)
}

/** engineCommand runs the engine through `sudo -n` or directly, as engineInvocation decided once. */
export function engineCommand(binary: string, args: string[], hostEnv: NodeJS.ProcessEnv, viaSudo: boolean): EngineInvocation {
  const env = engineEnvironment(hostEnv)
  if (!viaSudo) return { file: binary, args, env, viaSudo: false }
  return {
    file: 'sudo',
    args: ['-n', '--preserve-env', 'env', `PATH=${env.PATH ?? ''}`, binary, ...args],
    env,
    viaSudo: true,
  }
}

/** canSudo says whether sudo runs without a password here. */
async function canSudo(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = spawn('sudo', ['-n', 'true'], { stdio: 'ignore' })
    probe.on('error', () => resolve(false))
    probe.on('close', (code) => resolve(code === 0))
  })
}

/**
 * engineEnvironment is the action's environment without its secrets. The
 * engine passes its environment on to the service it measures, which is
 * the pull request's code: it must not see the token (INPUT_TOKEN, inputs
 * in general) or the runner's credentials for artifacts, caches and OIDC.
 */
export function engineEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const secret =
    /^(INPUT_|ACTIONS_RUNTIME_TOKEN$|ACTIONS_ID_TOKEN_REQUEST_|ACTIONS_CACHE_URL$|ACTIONS_RESULTS_URL$|ACTIONS_RUNTIME_URL$|GITHUB_TOKEN$|GH_TOKEN$)/
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !secret.test(e[0])))
}

/** Verdicts report.json can hold, plus no-baseline from the action itself. */
export type Verdict = 'pass' | 'regression' | 'improvement' | 'inconclusive' | 'invalid' | 'error' | 'no-baseline'

const verdicts: readonly string[] = ['pass', 'regression', 'improvement', 'inconclusive', 'invalid', 'error', 'no-baseline']

/**
 * readVerdict reads the verdict and reason the engine wrote. The action
 * does not compute anything from the report; it only routes on the verdict.
 * A report that is not JSON reads as none; one whose keys the engine could
 * read differently (a repeated or case-variant key) throws a
 * ReportKeyError naming the key.
 */
export async function readVerdict(resultsDir: string): Promise<{ verdict: Verdict; reason: string } | undefined> {
  const file = path.join(resultsDir, 'report.json')
  if (!existsSync(file)) return undefined
  let text: string
  let report: { verdict?: unknown; reason?: unknown } | null
  try {
    text = await readFile(file, 'utf8')
    report = JSON.parse(text) as typeof report
  } catch {
    return undefined
  }
  checkReportKeys(text)
  if (typeof report?.verdict !== 'string' || !verdicts.includes(report.verdict)) return undefined
  return { verdict: report.verdict as Verdict, reason: typeof report.reason === 'string' ? report.reason : '' }
}
