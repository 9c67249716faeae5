import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { claimSize } from './support/zip.js'
import { checkListedSize, extractReport, MAX_REPORT_BYTES, unsafeEntryName } from '../src/untrusted-results.js'

const report = '{"schema":1,"verdict":"pass"}'

describe('extractReport', () => {
  it('returns report.json and extracts nothing else', () => {
    const zip = zipSync({ 'report.json': strToU8(report), 'base/run-1/cpu.pb.gz': new Uint8Array(10), 'report.md': strToU8('# hi') })
    expect(new TextDecoder().decode(extractReport(zip))).toBe(report)
  })

  it.each(['../evil.sh', 'base/../../evil', '/etc/cron.d/x', 'C:/x', 'a\\..\\b', 'nul\0byte'])(
    'rejects the whole artifact for the entry %j',
    (name) => {
      const zip = zipSync({ 'report.json': strToU8(report), [name]: strToU8('x') })
      expect(() => extractReport(zip)).toThrow(/refusing the results artifact: entry/)
    },
  )

  it('rejects a report.json that claims 1 GB before inflating anything', () => {
    const zip = claimSize(zipSync({ 'report.json': strToU8(report) }), 'report.json', 1 << 30)
    expect(() => extractReport(zip)).toThrow(`report.json claims ${1 << 30} bytes; the limit is ${MAX_REPORT_BYTES} bytes`)
  })

  it('cannot be made to inflate past the size it declares', () => {
    const big = new Uint8Array(5 << 20) // compresses to a few KiB
    const zip = claimSize(zipSync({ 'report.json': big }), 'report.json', 1024)
    let out: Uint8Array | undefined
    try {
      out = extractReport(zip)
    } catch (error) {
      expect(String(error)).toContain('refusing the results artifact')
    }
    expect(out === undefined || out.byteLength <= 1024).toBe(true)
  })

  it('rejects an archive without report.json, and one that is not a zip', () => {
    expect(() => extractReport(zipSync({ 'notes.txt': strToU8('x') }))).toThrow('it has no report.json at its top level')
    expect(() => extractReport(strToU8('<html>not a zip</html>'))).toThrow('not a readable zip archive')
  })
})

describe('checkListedSize', () => {
  it('refuses an artifact listed at 1 GB before downloading it', () => {
    expect(() => checkListedSize('perfgate-results-attempt-1', 1 << 30)).toThrow('perfgate-results-attempt-1 claims 1073741824 bytes')
    expect(() => checkListedSize('x', 10_000)).not.toThrow()
  })
})

describe('unsafeEntryName', () => {
  it('accepts plain relative names', () => {
    expect(unsafeEntryName('base/run-1/cpu.pb.gz')).toBe('')
    expect(unsafeEntryName('report..json')).toBe('')
  })
})
