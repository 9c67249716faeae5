import * as core from '@actions/core'

/**
 * What main leaves for post (actions/checkout's state-helper pattern):
 * whether main ran, the engine's process to stop if the job is cancelled,
 * and the results directory to upload if main never got to it.
 */
const keys = { isPost: 'isPost', pid: 'perfgatePid', resultsDir: 'resultsDir', artifactName: 'artifactName', uploaded: 'uploaded' } as const

export const isPost = (): boolean => core.getState(keys.isPost) === 'true'
export const markMainStarted = (): void => core.saveState(keys.isPost, 'true')

export const saveEnginePid = (pid: number): void => core.saveState(keys.pid, String(pid))
export const enginePid = (): number => Number(core.getState(keys.pid)) || 0

export function saveUploadPlan(resultsDir: string, artifactName: string): void {
  core.saveState(keys.resultsDir, resultsDir)
  core.saveState(keys.artifactName, artifactName)
}
export const uploadPlan = (): { resultsDir: string; artifactName: string } => ({
  resultsDir: core.getState(keys.resultsDir),
  artifactName: core.getState(keys.artifactName)
})

export const markUploaded = (): void => core.saveState(keys.uploaded, 'true')
export const wasUploaded = (): boolean => core.getState(keys.uploaded) === 'true'
