import { unzipSync } from 'fflate'

/**
 * The second stage of the fork-safe setup reads an artifact that a fork's
 * code could have written. These limits and checks treat it as hostile:
 * only report.json is extracted (nothing is written under a name taken
 * from the archive), sizes are capped before anything is inflated, and any
 * entry that tries to escape the directory rejects the whole artifact.
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
 * extractReport returns report.json's bytes from the artifact's zip, after
 * checking every entry's name and report.json's declared size. The output
 * buffer is the declared size, so a lying size cannot inflate past it.
 */
export function extractReport(zip: Uint8Array): Uint8Array {
  if (zip.byteLength > MAX_ARTIFACT_BYTES) {
    throw new UntrustedArtifactError(`the download is ${zip.byteLength} bytes; the limit is ${MAX_ARTIFACT_BYTES} bytes`)
  }
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(zip, {
      filter: (file) => {
        const why = unsafeEntryName(file.name)
        if (why) throw new UntrustedArtifactError(`entry ${JSON.stringify(file.name.slice(0, 200))} ${why}`)
        if (file.name !== 'report.json') return false
        if (file.originalSize > MAX_REPORT_BYTES) {
          throw new UntrustedArtifactError(`report.json claims ${file.originalSize} bytes; the limit is ${MAX_REPORT_BYTES} bytes`)
        }
        return true
      },
    })
  } catch (error) {
    if (error instanceof UntrustedArtifactError) throw error
    throw new UntrustedArtifactError(`it is not a readable zip archive (${(error as Error).message})`)
  }
  const report = files['report.json']
  if (!report) throw new UntrustedArtifactError('it has no report.json at its top level')
  return report
}
