import { spawn } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import * as path from 'node:path'
import { engineCacheKey, sourceHash } from '../../src/engine-key.js'
import { engineToolchain } from '../../src/engine-toolchain.js'
import { toolDir } from '../../src/paths.js'
import type { FakeGitHub } from './fake-github.js'

// The real action (src/main.ts and src/post.ts, run by @github/local-action)
// in a scenario's checkout, with the fake GitHub API: the harness of the
// end-to-end scenarios (__tests__/e2e).
export const actionRoot = path.resolve(import.meta.dirname, '../..')
const localAction = path.join(actionRoot, 'node_modules/.bin/local-action')
// The engine's end-to-end experiment, with its fewest rounds that can call a
// regression: 4 at alpha 0.5 over the six gating metrics (2^-4 <= 0.5/6),
// which a plant that raises allocations by half in every round always
// reaches (these scenarios test the Action's plumbing, not the gate's
// power). PERFGATE_E2E_RATE lowers its rate where the service is slow:
// scripts/vm/suite.sh runs these scenarios in an emulated VM, where the
// example service needs ~40 times the CPU per request and 200 req/s makes
// every round (rightly) invalid.
const lowered: [RegExp, string][] = [
  [/^ {2}rate: 200$/m, `  rate: ${Number(process.env.PERFGATE_E2E_RATE) || 200}`],
  [/^pairs: 6$/m, 'pairs: 4'],
  [/^ {2}alpha: 0\.1$/m, '  alpha: 0.5'],
]
let experiment = readFileSync(path.join(actionRoot, 'engine/cmd/perfgate/testdata/decisive-experiment.yml'), 'utf8')
for (const [from, to] of lowered) {
  if (!from.test(experiment)) throw new Error(`decisive-experiment.yml changed: no line matches ${from}`)
  experiment = experiment.replace(from, to)
}
// One profile round, not three: no scenario reads the attribution, and
// under the VM's TCG a round costs ~6 s, ~26 s when it relinks.
if (/^profile_rounds:/m.test(experiment)) throw new Error('decisive-experiment.yml sets profile_rounds: this line must change it')
experiment += 'profile_rounds: 1\n'
// The decisive experiment keeps each side's one build for every round
// (layout: build): what these scenarios test (the Action's steps, sudo, the
// cancelled job's signal) does not depend on layouts, and relinking both
// sides costs ~1.7 s a round here and ~50 s under the VM's TCG. The engine's
// own end-to-end tests check relinking on the host, and
// scripts/vm/gate-as-runner.sh as the runner, through sudo.
// Where the engine can be confined (root, or password-less sudo as on
// GitHub's runners and in scripts/vm), a gate must never run unconfined.
export const confinable = process.getuid?.() === 0 || process.env.PERFGATE_E2E_VIA_SUDO === '1'

/** e2eExperiment is the perfgate.yml of the scenarios' repositories. */
export const e2eExperiment = experiment

export interface Scenario {
  /** name keys the scenario's directories. */
  name: string
  attempt?: number
  event?: string
  payload?: Record<string, unknown>
  inputs?: Record<string, string>
  ref?: string
  /** job names the job the scenario is a step of: steps of one job share RUNNER_TEMP, as on a runner. */
  job?: string
  /** onOutput sees the output as it grows, e.g. to cancel the job midway. */
  onOutput?: (output: string) => void
  /** env sets or overrides the runner's variables, e.g. another GITHUB_RUN_ID. */
  env?: Record<string, string>
}

/** Checkout is where a scenario runs: the fake API, the scenarios' scratch directory, the checked-out workspace and its commit. */
export interface Checkout {
  readonly tmp: string
  readonly gh: FakeGitHub
  readonly workspace: string
  readonly sha: string
}

/** ActionResult is what a scenario's run printed and left. */
export interface ActionResult {
  output: string
  artifacts: string[]
  summary: string
  dir: string
}

/**
 * runAction runs a scenario; a run whose local-action process itself died
 * of a signal (status 128 + signal: 139 SIGSEGV and 132 SIGILL were seen)
 * is run again, at most MAX_CRASHES times. Node crashes so now and then under
 * emulation (scripts/vm runs these scenarios under qemu's TCG); that is the
 * emulator, not the action: the action's own failures end Node with
 * status 1, and the engine is a child whose death Node survives.
 */
/**
 * MAX_CRASHES is how often a scenario is run again after such a death.
 * Deaths cluster: CI of 2026-11-27 saw the cancel scenario's local-action
 * die of SIGILL three times in a row before its first round, and the
 * same scenario pass on the next VM run without one.
 */
const MAX_CRASHES = 4

export async function runAction(at: Checkout, scenario: Scenario): Promise<ActionResult> {
  for (let crashes = 0; ; crashes++) {
    const result = await runActionOnce(at, scenario)
    const status = Number(/Command failed: npm exec tsx[\s\S]*status: (\d+)/.exec(result.output)?.[1] ?? 0)
    if (crashes === MAX_CRASHES || status <= 128) return result
    console.warn(`scenario ${scenario.name}: local-action died of signal ${status - 128} (status ${status}); running it again`)
    rmSync(result.dir, { recursive: true, force: true })
  }
}

/** runActionOnce runs main and post through local-action and returns what it printed, the artifacts and the job summary. */
async function runActionOnce(at: Checkout, scenario: Scenario): Promise<ActionResult> {
  const { tmp, gh, workspace } = at
  const attempt = scenario.attempt ?? 1
  const run = path.join(tmp, `${scenario.name}-${attempt}`)
  const runnerTemp = scenario.job ? path.join(tmp, `job-${scenario.job}`, 'runner') : path.join(run, 'runner')
  for (const dir of [path.join(run, 'artifacts'), path.join(run, 'runner'), runnerTemp, path.join(tmp, 'cache'), path.join(tmp, 'tools')])
    mkdirSync(dir, { recursive: true })
  await seedEngine(toolDir({ RUNNER_TOOL_CACHE: path.join(tmp, 'tools') }))
  const event = path.join(run, 'event.json')
  writeFileSync(event, JSON.stringify(scenario.payload ?? {}))
  const summary = path.join(run, 'summary.md')
  writeFileSync(summary, '')
  const inputs = Object.fromEntries(
    Object.entries({ config: 'perfgate.yml', token: 't0ken', ...scenario.inputs }).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]),
  )
  const env: Record<string, string> = {
    ...inputs,
    GITHUB_EVENT_NAME: scenario.event ?? 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_SHA: at.sha,
    GITHUB_REF_NAME: scenario.ref ?? '7/merge',
    GITHUB_WORKSPACE: workspace,
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: String(attempt),
    GITHUB_STEP_SUMMARY: summary,
    RUNNER_TEMP: runnerTemp,
    RUNNER_TOOL_CACHE: path.join(tmp, 'tools'),
    // local-action's cache stand-in writes its tar manifest here: keep it out of the checkout.
    LOCAL_ACTION_WORKSPACE: path.join(run, 'runner'),
    LOCAL_ACTION_ARTIFACT_PATH: path.join(run, 'artifacts'),
    LOCAL_ACTION_CACHE_PATH: path.join(tmp, 'cache'),
    ...scenario.env,
  }
  const dotenv = path.join(run, '.env')
  writeFileSync(
    dotenv,
    Object.entries(env)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join('\n') + '\n',
  )
  const output = await new Promise<string>((resolve, reject) => {
    // local-action ignores GITHUB_API_URL from the .env file: it must be in the environment.
    const child = spawn(localAction, ['run', actionRoot, 'src/main.ts', dotenv, '--post', 'src/post.ts'], {
      // local-action finds its own tsx through npm exec, from the action's directory.
      cwd: actionRoot,
      env: { ...process.env, ...env, GITHUB_API_URL: gh.url, NO_COLOR: '1', FORCE_COLOR: '0' },
    })
    let out = ''
    const started = Date.now()
    const timed = timedLog(run)
    const grow = (d: Buffer): void => {
      out += d.toString()
      timed?.(d.toString(), (Date.now() - started) / 1000)
      scenario.onOutput?.(out)
    }
    child.stdout.on('data', grow)
    child.stderr.on('data', grow)
    child.on('error', reject)
    child.on('close', () => resolve(out))
  })
  return { output, artifacts: readdirSync(path.join(run, 'artifacts')), summary: readFileSync(summary, 'utf8'), dir: run }
}

/**
 * seedEngine puts the engine PERFGATE_E2E_ENGINE names into the scenarios'
 * tool cache, where the Action's mode gate finds a build of its sources
 * (the second run of a workflow on GitHub restores it from actions/cache):
 * scripts/vm/suite.sh gives the perfgate it built on the host, from these
 * sources with the Action's flags, because the Action's own build takes
 * ~100 s under the VM's emulation. The host's scenarios build it as the
 * Action does, which stays tested there.
 */
async function seedEngine(engines: string): Promise<void> {
  const prebuilt = process.env.PERFGATE_E2E_ENGINE
  if (!prebuilt) return
  const engineDir = path.join(actionRoot, 'engine')
  const { goVersion } = await engineToolchain(engineDir, process.env)
  const binary = path.join(engines, engineCacheKey(goVersion, await sourceHash(engineDir)), 'perfgate')
  if (existsSync(binary)) return
  mkdirSync(path.dirname(binary), { recursive: true })
  copyFileSync(prebuilt, binary)
}

/**
 * timedLog returns, when PERFGATE_E2E_TIMED_LOG names a directory, a writer
 * of a scenario's output into a file there, each line after the seconds
 * since the scenario started: scripts/vm/suite.sh prints the log groups'
 * starts from it, so that CI's log shows what each step of the Action
 * costs under emulation.
 */
function timedLog(run: string): ((chunk: string, seconds: number) => void) | undefined {
  const dir = process.env.PERFGATE_E2E_TIMED_LOG
  if (!dir) return undefined
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${path.basename(run)}.log`)
  writeFileSync(file, '')
  let partial = ''
  return (chunk, seconds) => {
    const lines = (partial + chunk).split('\n')
    partial = lines.pop() ?? ''
    if (lines.length > 0) appendFileSync(file, lines.map((l) => `${seconds.toFixed(1).padStart(7)} ${l}\n`).join(''))
  }
}

/**
 * listArtifacts makes what earlier scenarios uploaded the artifacts of the
 * fake API's run 4242 (every scenario's GITHUB_RUN_ID), as GitHub lists
 * the artifacts of a run's earlier jobs to a later one: mode publish
 * downloads them from there.
 */
export function listArtifacts(gh: FakeGitHub, uploaders: ActionResult[]): void {
  let id = 900
  gh.artifacts.set(
    4242,
    uploaders.flatMap((r) =>
      r.artifacts.map((file) => {
        const zip = new Uint8Array(readFileSync(path.join(r.dir, 'artifacts', file)))
        return { id: id++, name: file.replace(/\.zip$/, ''), sizeInBytes: zip.byteLength, zip }
      }),
    ),
  )
}
