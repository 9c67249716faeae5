import * as realCore from '@actions/core'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { annotateReport, MAX_ANNOTATIONS, reportAnnotations } = await import('../src/annotations.js')
// The real toolkit, for what it prints: annotations.ts hands it untrusted text.
const core = await vi.importActual<typeof realCore>('@actions/core')

const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-annotations-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
beforeEach(() => reset())

const invalidRun = (side: string, pair: number, reasons: unknown) => ({ side, pair, valid: false, invalid_reasons: reasons })

describe('reportAnnotations', () => {
  it('turns warnings and invalid runs into titled annotations, valid runs into none', () => {
    expect(
      reportAnnotations({
        warnings: ['UNCONFINED: no cgroup', '', 42],
        runs: [
          { side: 'base', pair: 1, valid: true },
          invalidRun('head', 2, ['achieved rate 180/s < 99% of 200/s', 'errors 2%']),
          invalidRun('base', 3, null),
          'not a run',
        ],
      }),
    ).toEqual([
      { title: 'perfgate: warning', message: 'UNCONFINED: no cgroup' },
      {
        title: 'perfgate: invalid run',
        message: 'head round 2 is invalid and was not compared: achieved rate 180/s < 99% of 200/s; errors 2%',
      },
      { title: 'perfgate: invalid run', message: 'base round 3 is invalid and was not compared: no reason given' },
    ])
  })

  it('reads nothing from what is not a report', () => {
    expect(reportAnnotations(null)).toEqual([])
    expect(reportAnnotations({ warnings: 'x', runs: {} })).toEqual([])
  })

  it('caps the annotations, the last one saying how many more are in report.json', () => {
    const runs = Array.from({ length: 30 }, (_, i) => invalidRun('head', i + 1, ['crashed']))
    const annotations = reportAnnotations({ warnings: ['w1', 'w2'], runs })
    expect(annotations).toHaveLength(MAX_ANNOTATIONS)
    expect(annotations.slice(0, 2).map((a) => a.message)).toEqual(['w1', 'w2'])
    expect(annotations[MAX_ANNOTATIONS - 1]).toEqual({
      title: 'perfgate: more warnings',
      message: '23 more warnings and invalid runs are in report.json (warnings, runs[].invalid_reasons) in the results artifact.',
    })
  })

  it('clips a very long message', () => {
    const [a] = reportAnnotations({ warnings: ['x'.repeat(5000)] })
    expect(a.message).toHaveLength(1000)
    expect(a.message.endsWith('…')).toBe(true)
  })
})

describe('annotateReport', () => {
  it('warns once per annotation with its title; a missing or broken report.json adds none', async () => {
    const dir = mkdtempSync(path.join(tmp, 'results-'))
    expect(await annotateReport(dir)).toBe(0)
    writeFileSync(path.join(dir, 'report.json'), '{not json')
    expect(await annotateReport(dir)).toBe(0)
    writeFileSync(path.join(dir, 'report.json'), JSON.stringify({ warnings: ['UNCONFINED: x'], runs: [invalidRun('base', 1, ['oom'])] }))
    expect(await annotateReport(dir)).toBe(2)
    expect(recorded.warnings).toEqual(['UNCONFINED: x', 'base round 1 is invalid and was not compared: oom'])
  })
})

describe("the toolkit's escaping of untrusted text", () => {
  it('keeps a warning with newlines and :: on one line, and its title inside its property', () => {
    const lines: string[] = []
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk))
      return true
    })
    try {
      core.warning('stderr: boom\n::error::forged\r\n%0A::add-mask::x', { title: 'perfgate: a, b :: c\n::error::t' })
      core.notice('accepted by x"\n::error::forged')
    } finally {
      write.mockRestore()
    }
    const out = lines.join('')
    expect(out.split('\n').filter(Boolean)).toEqual([
      '::warning title=perfgate%3A a%2C b %3A%3A c%0A%3A%3Aerror%3A%3At::stderr: boom%0A::error::forged%0D%0A%250A::add-mask::x',
      '::notice::accepted by x"%0A::error::forged',
    ])
  })
})
