import * as core from '@actions/core'
import { existsSync } from 'node:fs'
import { copyFile, mkdtemp } from 'node:fs/promises'
import * as os from 'node:os'
import * as path from 'node:path'
import { uploadUnzipped } from './artifact.js'
import { getErrorMessage } from './errors.js'

/**
 * reportPageName is the unzipped report's file name, which is also its
 * artifact's name: derived from the results artifact's name (unique per
 * run attempt, and per step through artifact-name), so that two steps or
 * two attempts never collide.
 */
export function reportPageName(resultsArtifactName: string): string {
  return `perfgate-report-${resultsArtifactName}.html`
}

/**
 * uploadReportPage uploads the results' report.html on its own, unzipped,
 * so that the comment can open it in one click, and returns its artifact
 * ID. It is a convenience: the zipped results artifact, which holds the
 * same page, stays the record. So a failure (an artifact service without
 * unzipped uploads, as on GitHub Enterprise Server before it supports
 * them) only warns, and the comment links the zipped artifact alone.
 */
export async function uploadReportPage(resultsDir: string, resultsArtifactName: string): Promise<number | undefined> {
  const page = path.join(resultsDir, 'report.html')
  if (!existsSync(page)) {
    core.info('no report.html in the results: the comment links the results artifact only')
    return undefined
  }
  const name = reportPageName(resultsArtifactName)
  try {
    const id = await core.group('Upload report.html unzipped', async () => {
      // The artifact takes the file's name: copy the page under the
      // artifact's name, outside the results (which stay as uploaded).
      const dir = await mkdtemp(path.join(process.env.RUNNER_TEMP || os.tmpdir(), 'perfgate-report-'))
      const named = path.join(dir, name)
      await copyFile(page, named)
      return uploadUnzipped(named)
    })
    core.setOutput('report-artifact-id', String(id))
    core.info(`report.html uploaded unzipped as artifact ${name} (ID ${id}): the comment links it`)
    return id
  } catch (error) {
    core.warning(
      `Uploading report.html unzipped as artifact ${name} failed: ${getErrorMessage(error)}. The comment links the results artifact only, which holds report.html too; an artifact service without unzipped uploads (GitHub Enterprise Server before it supports them) fails this way.`,
    )
    return undefined
  }
}
