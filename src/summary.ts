import * as core from '@actions/core'
import { getErrorMessage } from './errors.js'

/**
 * writeSummary puts the report (Markdown already escaped by the engine) in
 * the job summary. The summary is a courtesy next to the artifact and the
 * comment: a failure to write it only warns.
 */
export async function writeSummary(markdown: string): Promise<void> {
  try {
    await core.summary.addRaw(markdown, true).write()
  } catch (error) {
    core.warning(`Writing the job summary failed: ${getErrorMessage(error)}`)
  }
}
