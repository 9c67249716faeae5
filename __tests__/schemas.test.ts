/**
 * docs/schema's JSON Schemas, generated from the engine's types
 * (engine/internal/config/reference), checked the way editors and readers
 * use them: perfgate.yml files through the YAML a language server reads,
 * report.json files as the engine wrote them. The cases are shared with the
 * engine's schema_test.go, which checks that the parser agrees.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { readdirSync, readFileSync } from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = path.join(import.meta.dirname, '..')
const casesDir = path.join(root, 'engine/internal/config/reference/testdata/schema')
const cases = JSON.parse(readFileSync(path.join(casesDir, 'cases.json'), 'utf8')) as {
  valid: string[]
  invalid: { file: string; key: string }[]
}
const schemaLine =
  '# yaml-language-server: $schema=https://raw.githubusercontent.com/perfgate/perfgate/main/docs/schema/perfgate.schema.json'

type Schema = Record<string, unknown>

function readSchema(name: string): Schema {
  return JSON.parse(readFileSync(path.join(root, 'docs/schema', name), 'utf8')) as Schema
}

function compile(schema: Schema): ValidateFunction {
  // strict: the schemas use only draft-07's keywords, with no typos.
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true })
  addFormats.default(ajv)
  return ajv.compile(schema)
}

function problems(validate: ValidateFunction, data: unknown): string[] {
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
}

/**
 * asOlderReports is the report schema as the repository's reports must
 * meet it: they were written by engines older than the types (captured from
 * real runs), so they may lack keys added since, which schema 1 allows
 * (engine/internal/report/schema.go), and `required` is dropped; but every
 * key they have must be one the types name, with its type, so every object
 * is closed (the published schema stays open to keys a newer engine adds).
 */
function asOlderReports(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asOlderReports)
  if (typeof schema !== 'object' || schema === null) return schema
  const out = Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => k !== 'required')
      .map(([k, v]) => [k, k === 'properties' || k === 'definitions' ? mapValues(v, asOlderReports) : asOlderReports(v)]),
  )
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false
  return out
}

function mapValues(o: unknown, f: (v: unknown) => unknown): unknown {
  return Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, f(v)]))
}

/** reportFiles are the report.json files of the engine's testdata: captured from real runs (hints, history) or written for the renderers. */
function reportFiles(): string[] {
  const dirs = ['engine/internal/render/testdata', 'engine/internal/history/testdata']
  const files = dirs.flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.json'))
      .map((f) => path.join(dir, f)),
  )
  const hints = path.join('engine/internal/hints/testdata')
  for (const scenario of readdirSync(path.join(root, hints))) {
    files.push(path.join(hints, scenario, 'report.json'))
  }
  // minimal.json is a fragment (verdict and reason only): it tests that the
  // renderers survive a report lacking what older engines did not write.
  return files.filter((f) => path.basename(f) !== 'minimal.json' && isReport(f))
}

function isReport(file: string): boolean {
  try {
    const data = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as unknown
    return typeof data === 'object' && data !== null && 'schema' in data && 'verdict' in data
  } catch {
    return false
  }
}

/**
 * docExamples are the whole perfgate.yml files that README.md and docs/
 * show, as [document, index, text]: yaml blocks with version: 1 (the rule
 * of TestExamplesParse) or the schema line and more; other blocks are
 * workflows, fragments of a file, or the schema line alone.
 */
function docExamples(): [string, number, string][] {
  const docs = [
    'README.md',
    ...readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ]
  return docs.flatMap((doc) =>
    readFileSync(path.join(root, doc), 'utf8')
      .split('```yaml\n')
      .slice(1)
      .map((block) => block.split('```')[0])
      .filter((block) => `\n${block}`.includes('\nversion: 1\n') || (block.startsWith(schemaLine) && block.trim() !== schemaLine))
      .map((block, index): [string, number, string] => [doc, index, block]),
  )
}

describe('perfgate.schema.json', () => {
  const validate = compile(readSchema('perfgate.schema.json'))

  it.each(cases.valid)('accepts %s', (file) => {
    const text = readFileSync(path.join(root, file), 'utf8')
    expect(problems(validate, parse(text))).toEqual([])
  })

  it.each(docExamples())('accepts the perfgate.yml in %s, block %i', (_doc, _index, block) => {
    expect(problems(validate, parse(block))).toEqual([])
  })

  it.each(cases.invalid)('refuses $file, which the parser refuses at $key', ({ file }) => {
    const text = readFileSync(path.join(casesDir, file), 'utf8')
    expect(problems(validate, parse(text))).not.toEqual([])
  })

  it.each(['examples/perfgate.yml', 'examples/service-db/perfgate.yml'])('is named on the first line of %s', (file) => {
    expect(readFileSync(path.join(root, file), 'utf8').split('\n')[0]).toBe(schemaLine)
  })
})

describe('report.schema.json', () => {
  const schema = readSchema('report.schema.json')
  const validate = compile(schema)
  const validateOlder = compile(asOlderReports(schema) as Schema)
  const files = reportFiles()

  it('has reports to check', () => {
    expect(files.length).toBeGreaterThan(10)
  })

  it.each(files)('accepts %s, every key it has with its type', (file) => {
    const report = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as unknown
    expect(problems(validateOlder, report)).toEqual([])
  })

  it('refuses a report without its verdict, or with a config value of the wrong type', () => {
    const report = JSON.parse(readFileSync(path.join(root, files[0]), 'utf8')) as Record<string, unknown>
    const noVerdict = { ...report }
    delete noVerdict.verdict
    expect(problems(validate, noVerdict).join()).toContain('verdict')
    const config = report.config as Record<string, unknown>
    expect(problems(validate, { ...report, config: { ...config, pairs: 'ten' } }).join()).toContain('/config/pairs')
  })
})
