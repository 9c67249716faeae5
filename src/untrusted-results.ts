import { unzipSync } from 'fflate'

/**
 * The second stage of the fork-safe setup reads an artifact that a fork's
 * code could have written, and mode publish one written by a job that ran
 * the repository's code. These limits and checks treat it as hostile:
 * only the named files are extracted (nothing is written under a name
 * taken from the archive), sizes are capped before anything is inflated,
 * and any entry that tries to escape the directory rejects the whole
 * artifact.
 */

/** MAX_ARTIFACT_BYTES caps the artifact's (compressed) size as listed and as downloaded. */
export const MAX_ARTIFACT_BYTES = 512 * 1024 * 1024
/** MAX_REPORT_BYTES caps report.json; the engine itself refuses more than 64 MiB. */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024

export class UntrustedArtifactError extends Error {
  constructor(message: string) {
    super(`refusing the results artifact: ${message}`)
    this.name = 'UntrustedArtifactError'
  }
}

/** checkListedSize refuses an artifact whose listed size is over the cap before downloading it. */
export function checkListedSize(name: string, sizeInBytes: number): void {
  if (!Number.isFinite(sizeInBytes) || sizeInBytes < 0 || sizeInBytes > MAX_ARTIFACT_BYTES) {
    throw new UntrustedArtifactError(`${name} claims ${sizeInBytes} bytes; the limit is ${MAX_ARTIFACT_BYTES} bytes`)
  }
}

/** unsafeEntryName says why a name in the archive is not a plain relative path, or ''. */
export function unsafeEntryName(name: string): string {
  if (name.includes('\0')) return 'contains a NUL byte'
  if (name.includes('\\')) return 'contains a backslash'
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is absolute'
  if (name.split('/').some((part) => part === '..')) return "climbs out with '..'"
  return ''
}

/**
 * extractFiles returns the named top-level files of the artifact's zip,
 * each capped at its limit, after checking every entry's name and each
 * wanted file's declared size. Each output buffer is the declared size,
 * so a lying size cannot inflate past it. A wanted file that is absent is
 * absent from the result.
 */
export function extractFiles(zip: Uint8Array, limits: Readonly<Record<string, number>>): Record<string, Uint8Array> {
  if (zip.byteLength > MAX_ARTIFACT_BYTES) {
    throw new UntrustedArtifactError(`the download is ${zip.byteLength} bytes; the limit is ${MAX_ARTIFACT_BYTES} bytes`)
  }
  try {
    return unzipSync(zip, {
      filter: (file) => {
        const why = unsafeEntryName(file.name)
        if (why) throw new UntrustedArtifactError(`entry ${JSON.stringify(file.name.slice(0, 200))} ${why}`)
        if (!Object.hasOwn(limits, file.name)) return false
        if (file.originalSize > limits[file.name]) {
          throw new UntrustedArtifactError(`${file.name} claims ${file.originalSize} bytes; the limit is ${limits[file.name]} bytes`)
        }
        return true
      },
    })
  } catch (error) {
    if (error instanceof UntrustedArtifactError) throw error
    throw new UntrustedArtifactError(`it is not a readable zip archive (${(error as Error).message})`)
  }
}

/** extractReport returns report.json's bytes from the artifact's zip (see extractFiles). */
export function extractReport(zip: Uint8Array): Uint8Array {
  const report = extractFiles(zip, { 'report.json': MAX_REPORT_BYTES })['report.json']
  if (!report) throw new UntrustedArtifactError('it has no report.json at its top level')
  return report
}
