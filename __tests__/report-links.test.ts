import { existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { acceptedFlags, linkedReport, linkFlags, linksOfThisRun, renderReport, reportArgs } = await import('../src/report-links.js')

const base = 'a'.repeat(40)
const head = 'b'.repeat(40)
const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-links-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
beforeEach(() => reset())

/** standIn writes an engine stand-in: a script that prints its arguments one a line, or fails. */
function standIn(name: string, body: string): string {
  const file = path.join(tmp, name)
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
  return file
}

describe('linkFlags', () => {
  it('passes every value with its strict shape, in a fixed order', () => {
    expect(
      linkFlags({
        repository: 'acme/shop',
        serverUrl: 'https://github.com/',
        runId: '4242',
        runAttempt: 2,
        artifactId: 901,
        artifactName: 'perfgate-results-attempt-2',
        reportArtifactId: 902,
        baseSha: base,
        headSha: head,
      }),
    ).toEqual([
      '--repository',
      'acme/shop',
      '--server-url',
      'https://github.com',
      '--run-id',
      '4242',
      '--run-attempt',
      '2',
      '--artifact-id',
      '901',
      '--artifact-name',
      'perfgate-results-attempt-2',
      '--report-artifact-id',
      '902',
      '--base-sha',
      base,
      '--head-sha',
      head,
    ])
  })

  it('leaves out each value that does not match, and what is missing', () => {
    expect(
      linkFlags({
        repository: 'acme/shop/../x',
        serverUrl: 'javascript:alert(1)',
        runId: '42; rm -rf /',
        runAttempt: '0',
        artifactId: '-1',
        artifactName: 'results name with spaces',
        reportArtifactId: '9)](https://evil.example',
        baseSha: base.toUpperCase(),
        headSha: 'b'.repeat(39),
      }),
    ).toEqual([])
    expect(linkFlags({ repository: 'acme/..', serverUrl: 'http://github.com', runId: 1e20, headSha: head })).toEqual(['--head-sha', head])
    expect(linkFlags({ serverUrl: 'https://ghe.example.com:8443', runId: '007' })).toEqual(['--server-url', 'https://ghe.example.com:8443'])
    expect(linkFlags({})).toEqual([])
  })
})

describe('reportArgs', () => {
  it('is report --in --format md, then the caller’s flags, the links and the acceptance', () => {
    expect(
      reportArgs('/r/report.json', { runId: 7 }, { label: 'perfgate:accept', by: 'alice' }, ['--reproduce-config', 'perfgate.yml']),
    ).toEqual([
      'report',
      '--in',
      '/r/report.json',
      '--format',
      'md',
      '--reproduce-config',
      'perfgate.yml',
      '--run-id',
      '7',
      '--accepted-label',
      'perfgate:accept',
      '--accepted-by',
      'alice',
    ])
    expect(acceptedFlags(undefined)).toEqual([])
    expect(acceptedFlags({ label: 'perfgate:accept', by: '' })).toEqual([])
  })

  it('passes a hostile label or login as one argument each, never through a shell', async () => {
    const marker = path.join(tmp, 'pwned')
    const hostile = { label: `$(touch ${marker}) \`touch ${marker}\`; <b>x</b>`, by: `evil"\n::error::boom|| touch ${marker}` }
    const echo = standIn('echo-args', 'for a in "$@"; do printf "[%s]\\n" "$a"; done')
    const out = await renderReport(echo, reportArgs('/r/report.json', {}, hostile), tmp)
    expect(out).toEqual({
      markdown: ['report', '--in', '/r/report.json', '--format', 'md', '--accepted-label', hostile.label, '--accepted-by', hostile.by]
        .map((a) => `[${a}]\n`)
        .join(''),
    })
    expect(existsSync(marker)).toBe(false)
  })
})

describe('linkedReport', () => {
  it('returns what the engine rendered', async () => {
    const engine = standIn('ok', 'echo "<!-- perfgate:report -->"; echo "linked $*"')
    const md = await linkedReport(engine, '/r/report.json', { runId: 5 }, undefined, 'fallback', tmp)
    expect(md).toBe('<!-- perfgate:report -->\nlinked report --in /r/report.json --format md --run-id 5\n')
    expect(recorded.warnings).toEqual([])
  })

  it("falls back to the engine's report.md with a warning when rendering fails", async () => {
    const engine = standIn('fails', 'echo "flag provided but not defined: -run-id" >&2; exit 2')
    const md = await linkedReport(engine, '/r/report.json', { runId: 5 }, { label: 'l', by: 'alice' }, 'the engine report', tmp)
    expect(md).toBe('the engine report')
    expect(recorded.warnings).toEqual([
      'Rendering the report with links and the acceptance failed (perfgate report exited 2: flag provided but not defined: -run-id); the summary and the comment show the report without them.',
    ])
  })

  it('falls back when the engine cannot even start', async () => {
    const md = await linkedReport(path.join(tmp, 'missing'), '/r/report.json', {}, undefined, 'kept', tmp)
    expect(md).toBe('kept')
    expect(recorded.warnings).toHaveLength(1)
  })
})

describe('linksOfThisRun', () => {
  it('takes the run from the environment, the repository from the context, the SHAs the action resolved', () => {
    const links = linksOfThisRun(
      { GITHUB_SERVER_URL: 'https://github.com', GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '3' },
      { owner: 'acme', repo: 'shop' },
      { id: 901, name: 'perfgate-results-attempt-3', reportId: 902 },
      { base, head },
    )
    expect(linkFlags(links)).toEqual([
      '--repository',
      'acme/shop',
      '--server-url',
      'https://github.com',
      '--run-id',
      '4242',
      '--run-attempt',
      '3',
      '--artifact-id',
      '901',
      '--artifact-name',
      'perfgate-results-attempt-3',
      '--report-artifact-id',
      '902',
      '--base-sha',
      base,
      '--head-sha',
      head,
    ])
  })

  it('names no artifact when the upload failed', () => {
    const links = linksOfThisRun({}, { owner: 'acme', repo: 'shop' }, { name: 'perfgate-results-attempt-1' }, {})
    expect(linkFlags(links)).toEqual(['--repository', 'acme/shop'])
  })
})
