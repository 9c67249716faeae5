import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readVerdict } from '../src/perfgate.js'
import { checkReportKeys, foldKey } from '../src/report-keys.js'

// The cases `perfgate report` is tested on too (engine/internal/report/keys_test.go).
const dir = path.join(import.meta.dirname, '../engine/internal/report/testdata/keys')
const cases = JSON.parse(readFileSync(path.join(dir, 'cases.json'), 'utf8')) as {
  accepted: string[]
  refused: { file: string; key: string }[]
}

async function verdictOf(text: string): ReturnType<typeof readVerdict> {
  const results = mkdtempSync(path.join(tmpdir(), 'perfgate-keys-'))
  try {
    writeFileSync(path.join(results, 'report.json'), text)
    return await readVerdict(results)
  } finally {
    rmSync(results, { recursive: true, force: true })
  }
}

describe('readVerdict on reports JSON readers disagree on', () => {
  it('has cases', () => {
    expect(cases.accepted.length).toBeGreaterThan(0)
    expect(cases.refused.length).toBeGreaterThan(0)
  })

  it.each(cases.accepted)('accepts %s', async (file) => {
    expect(await verdictOf(readFileSync(path.join(dir, file), 'utf8'))).toEqual({ verdict: 'regression', reason: 'allocs regressed' })
  })

  it.each(cases.refused)('refuses $file, naming the key $key', async ({ file, key }) => {
    await expect(verdictOf(readFileSync(path.join(dir, file), 'utf8'))).rejects.toThrow(JSON.stringify(key))
  })
})

describe('checkReportKeys', () => {
  it.each([
    ['{"a":{"b":[{"c":1},{"c":2,"C":3}]}}', '"c" and "C" in a.b[1]'],
    ['{"a":[[{"x":1}],[{"x":1,"x":2}]]}', 'repeats the key "x" in a[1][0]'],
    ['{"a":"{\\"verdict\\":1,","b":{"key":1,"\\u212Aey":2}}', `"key" and "${'\u212A'}ey" in b`],
    ['{"reason":"x","REASON":"y"}', '"reason" and "REASON" at the top level'],
    ['{"Reason":"y"}', 'the key "Reason" at the top level, but the field is spelled "reason"'],
    [`{"${'v'.repeat(500)}":1,"${'V'.repeat(500)}":2}`, '…"'],
  ])('refuses %s', (text, message) => {
    expect(() => checkReportKeys(text)).toThrow(message)
  })

  it.each([
    '{}',
    '[]',
    '"x"',
    '{"a":{"Reason":1},"b":[{"a":1},{"a":2}],"c":"\\"a\\":1,\\"A\\":2"}',
    '{"env":{"GOGC":"1","GOMEMLIMIT":"2"}}',
  ])('accepts %s', (text) => {
    expect(() => checkReportKeys(text)).not.toThrow()
  })

  it('folds the keys Go matches alike', () => {
    for (const [a, b] of [
      ['verdict', 'VERDICT'],
      ['schema', 'ſchema'],
      ['key', '\u212Aey'],
      ['σ', 'ς'],
      ['ß', 'ẞ'],
      ['ǅ', 'ǆ'],
    ]) {
      expect(foldKey(a)).toBe(foldKey(b))
    }
  })
})
