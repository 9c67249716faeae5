import * as core from '@actions/core'
import { uploadResults } from './artifact.js'
import { getErrorMessage } from './errors.js'
import * as state from './state.js'

/** KeptResults is the uploaded artifact's ID, or why the upload failed ('' when it did not). */
export interface KeptResults {
  readonly artifactId?: number
  readonly error: string
}

/**
 * keepResults uploads a results directory as the run's artifact and
 * returns an error message instead of throwing: the step still reports
 * (summary, comment, history, issue), then fails.
 */
export async function keepResults(name: string, dir: string): Promise<KeptResults> {
  try {
    const id = await core.group('Upload the results', () => uploadResults(name, dir))
    state.markUploaded()
    core.setOutput('artifact-id', String(id))
    core.info(`results uploaded as artifact ${name} (ID ${id})`)
    return { artifactId: id, error: '' }
  } catch (error) {
    const message = `Uploading the results as artifact ${name} failed: ${getErrorMessage(error)}. The raw results are lost when this job ends; the report is in the job summary.`
    core.error(message)
    return { error: message }
  }
}
