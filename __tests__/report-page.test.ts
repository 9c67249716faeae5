import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'

// A stand-in for the artifact service's client: it records each upload (the
// name, the files, the options and the file's content when it was uploaded)
// and answers with an ID, or fails as a service without unzipped uploads.
const uploads: { name: string; files: string[]; options: unknown; content: string }[] = []
let failWith: string | undefined
vi.mock('@actions/core', () => import('./support/core-fake.js'))
vi.mock('@actions/artifact', () => ({
  DefaultArtifactClient: class {
    uploadArtifact(name: string, files: string[], _root: string, options: unknown): Promise<{ id?: number }> {
      if (failWith) return Promise.reject(new Error(failWith))
      uploads.push({ name, files, options, content: readFileSync(files[0], 'utf8') })
      return Promise.resolve({ id: 9001 })
    }
  },
}))
const { reportPageName, uploadReportPage } = await import('../src/report-page.js')

const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-report-page-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const savedRunnerTemp = process.env.RUNNER_TEMP
beforeEach(() => {
  reset()
  uploads.length = 0
  failWith = undefined
  process.env.RUNNER_TEMP = path.join(tmp, 'runner')
  mkdirSync(process.env.RUNNER_TEMP, { recursive: true })
})
afterAll(() => {
  if (savedRunnerTemp === undefined) delete process.env.RUNNER_TEMP
  else process.env.RUNNER_TEMP = savedRunnerTemp
})

function resultsWith(page: string | undefined): string {
  const dir = mkdtempSync(path.join(tmp, 'results-'))
  writeFileSync(path.join(dir, 'report.json'), '{}')
  if (page !== undefined) writeFileSync(path.join(dir, 'report.html'), page)
  return dir
}

describe('uploadReportPage', () => {
  it('uploads report.html alone, unzipped, named after the results artifact, and sets the output', async () => {
    const id = await uploadReportPage(resultsWith('<html>the page</html>'), 'perfgate-results-attempt-2')
    expect(id).toBe(9001)
    expect(uploads).toHaveLength(1)
    const [upload] = uploads
    // The service names an unzipped artifact after its file: the file carries the unique name.
    expect(upload.name).toBe('perfgate-report-perfgate-results-attempt-2.html')
    expect(upload.files).toHaveLength(1)
    expect(path.basename(upload.files[0])).toBe('perfgate-report-perfgate-results-attempt-2.html')
    expect(upload.files[0].startsWith(process.env.RUNNER_TEMP!)).toBe(true)
    expect(upload.content).toBe('<html>the page</html>')
    expect(upload.options).toMatchObject({ skipArchive: true })
    expect(recorded.outputs['report-artifact-id']).toBe('9001')
    expect(recorded.warnings).toEqual([])
  })

  it('only warns when the service refuses it: the zipped results stay the record', async () => {
    failWith = 'CreateArtifact: response from backend was not ok'
    const id = await uploadReportPage(resultsWith('<html></html>'), 'perfgate-results-attempt-1')
    expect(id).toBeUndefined()
    expect(recorded.warnings).toHaveLength(1)
    expect(recorded.warnings[0]).toContain(
      'Uploading report.html unzipped as artifact perfgate-report-perfgate-results-attempt-1.html failed',
    )
    expect(recorded.warnings[0]).toContain('CreateArtifact: response from backend was not ok')
    expect(recorded.warnings[0]).toContain('the results artifact')
    expect(recorded.failed).toEqual([])
    expect(recorded.errors).toEqual([])
    expect(recorded.outputs['report-artifact-id']).toBeUndefined()
  })

  it('uploads nothing when the engine wrote no page', async () => {
    expect(await uploadReportPage(resultsWith(undefined), 'perfgate-results-attempt-1')).toBeUndefined()
    expect(uploads).toEqual([])
    expect(recorded.warnings).toEqual([])
  })

  it('names each step and attempt apart', () => {
    expect(reportPageName('perfgate-results-attempt-1')).not.toBe(reportPageName('perfgate-results-attempt-2'))
    expect(reportPageName('api-results-attempt-1')).not.toBe(reportPageName('perfgate-results-attempt-1'))
  })
})
