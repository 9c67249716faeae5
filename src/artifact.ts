import { DefaultArtifactClient } from '@actions/artifact'
import * as path from 'node:path'
import { listFiles } from './files.js'

/**
 * artifactName makes the name unique per run attempt, so that re-running a
 * job uploads next to the first attempt's results instead of colliding.
 */
export function artifactName(base: string, attempt = process.env.GITHUB_RUN_ATTEMPT || '1'): string {
  return `${base}-attempt-${attempt}`
}

/** uploadResults uploads every file under dir and returns the artifact ID. */
export async function uploadResults(name: string, dir: string): Promise<number> {
  const files = (await listFiles(dir)).map((f) => path.join(dir, f))
  if (files.length === 0) throw new Error(`nothing to upload: ${dir} holds no files`)
  const { id } = await new DefaultArtifactClient().uploadArtifact(name, files, dir, { retentionDays: 30 })
  if (id === undefined) throw new Error(`the artifact service gave no ID for ${name}`)
  return id
}

/**
 * uploadUnzipped uploads one file as an artifact without archiving it, so
 * that GitHub serves the file itself (an HTML page opens in the browser).
 * The artifact service names such an artifact after the file's basename,
 * so the file's name is the artifact's name.
 */
export async function uploadUnzipped(file: string): Promise<number> {
  const { id } = await new DefaultArtifactClient().uploadArtifact(path.basename(file), [file], path.dirname(file), {
    retentionDays: 30,
    skipArchive: true,
  })
  if (id === undefined) throw new Error(`the artifact service gave no ID for ${path.basename(file)}`)
  return id
}
