import * as core from '@actions/core'

/**
 * What main leaves for post (actions/checkout's state-helper pattern):
 * whether main ran, the engine main started (to stop it if the job is
 * cancelled, and to run its sweep the same way, through sudo or not), and
 * the results directory to upload if main never got to it.
 */
const keys = {
  isPost: 'isPost',
  pid: 'perfgatePid',
  engine: 'perfgateEngine',
  resultsDir: 'resultsDir',
  artifactName: 'artifactName',
  uploaded: 'uploaded',
} as const

export const isPost = (): boolean => core.getState(keys.isPost) === 'true'
export const markMainStarted = (): void => core.saveState(keys.isPost, 'true')

export const saveEnginePid = (pid: number): void => core.saveState(keys.pid, String(pid))
export const enginePid = (): number => Number(core.getState(keys.pid)) || 0

/** EngineRun is how main ran the engine: post runs `perfgate sweep` the same way. */
export interface EngineRun {
  /** The engine binary. */
  readonly binary: string
  /** Whether it ran through sudo (engineInvocation). */
  readonly viaSudo: boolean
  /** perfgate.yml as an absolute path: its target says what to sweep, and its kubernetes section which cluster. */
  readonly config: string
  /** The `target` input, which overrides the config's target; '' for the config's. */
  readonly target: string
  /** The commit a gate measured against (its --base), whose perfgate.yml gave the target; '' outside a gate. */
  readonly base: string
}

export const saveEngineRun = (run: EngineRun): void => core.saveState(keys.engine, JSON.stringify(run))

/** engineRun is what saveEngineRun saved, or undefined when main never started the engine. */
export function engineRun(): EngineRun | undefined {
  const saved = core.getState(keys.engine)
  if (!saved) return undefined
  let run: Partial<EngineRun>
  try {
    run = JSON.parse(saved) as Partial<EngineRun>
  } catch {
    return undefined
  }
  if (typeof run.binary !== 'string' || typeof run.viaSudo !== 'boolean' || typeof run.config !== 'string') return undefined
  const text = (value: unknown): string => (typeof value === 'string' ? value : '')
  return { binary: run.binary, viaSudo: run.viaSudo, config: run.config, target: text(run.target), base: text(run.base) }
}

export function saveUploadPlan(resultsDir: string, artifactName: string): void {
  core.saveState(keys.resultsDir, resultsDir)
  core.saveState(keys.artifactName, artifactName)
}
export const uploadPlan = (): { resultsDir: string; artifactName: string } => ({
  resultsDir: core.getState(keys.resultsDir),
  artifactName: core.getState(keys.artifactName),
})

export const markUploaded = (): void => core.saveState(keys.uploaded, 'true')
export const wasUploaded = (): boolean => core.getState(keys.uploaded) === 'true'
