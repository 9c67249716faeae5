/**
 * GitHub's published REST description (@octokit/openapi), used by the fake
 * API server to check every request the action makes (path, method, query
 * parameters, JSON body) and every answer the fake gives, so that the fake
 * answers like the real API and the action asks like a real client.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

type Schema = Record<string, unknown>
interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  required?: boolean
  schema?: Schema
}
interface Operation {
  operationId: string
  parameters?: (Parameter | { $ref: string })[]
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }
  responses: Record<string, { content?: Record<string, { schema: Schema }> } | { $ref: string }>
}
interface Spec {
  paths: Record<string, Record<string, Operation>>
  components: Record<string, Record<string, unknown>>
}

const SPEC_ID = 'https://api.github.com/openapi'

const spec = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
) as Spec
const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true })
addFormats.default(ajv)
ajv.addSchema({ $id: SPEC_ID, components: typedNullable(spec.components) })

interface Route {
  template: string
  pattern: RegExp
  names: string[]
  literals: number
}

/**
 * multiSegment names a template's path parameters that GitHub documents as
 * spanning several segments (x-multi-segment: a file's path, a git ref).
 */
function multiSegment(template: string): Set<string> {
  const names = new Set<string>()
  for (const op of Object.values(spec.paths[template])) {
    for (const p of op.parameters ?? []) {
      const param = deref<Parameter & { 'x-multi-segment'?: boolean }>(p)
      if (param.in === 'path' && param['x-multi-segment']) names.add(param.name)
    }
  }
  return names
}

const routes: Route[] = Object.keys(spec.paths)
  .map((template) => {
    const names: string[] = []
    const spanning = multiSegment(template)
    const pattern = new RegExp(
      '^' +
        template
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\{([^}]+)\}/g, (_m, name: string) => (names.push(name), spanning.has(name) ? '(.+)' : '([^/]+)')) +
        '$',
    )
    return { template, pattern, names, literals: template.split('/').filter((s) => s && !s.startsWith('{')).length }
  })
  // A literal segment beats a parameter: /pulls/comments before /pulls/{pull_number}.
  .sort((a, b) => b.literals - a.literals)

const compiled = new Map<string, ValidateFunction>()
function validator(key: string, schema: Schema): ValidateFunction {
  let v = compiled.get(key)
  if (!v) {
    v = ajv.compile(rebase(schema))
    compiled.set(key, v)
  }
  return v
}

/** rebase points the spec's local refs (#/components/...) at the registered spec. */
function rebase(schema: Schema): Schema {
  return typedNullable(JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components/', `"$ref":"${SPEC_ID}#/components/`)) as Schema)
}

/**
 * typedNullable rewrites OpenAPI's `nullable: true` beside a composition
 * without a type (an issue's milestone: allOf of a $ref) as "that, or
 * null", which Ajv can compile (Ajv only takes nullable next to a type),
 * and lets a nullable enum (an issue's state_reason) be null.
 */
function typedNullable<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => typedNullable(v)) as T
  if (!value || typeof value !== 'object') return value
  const out: Schema = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typedNullable(v)]))
  if (out.nullable === true && out.type === undefined) {
    const rest = Object.fromEntries(Object.entries(out).filter(([k]) => k !== 'nullable'))
    return { anyOf: [rest, { type: 'null' }] } as T
  }
  // Ajv reads an enum literally: null must be one of its values too.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null]
  return out as T
}

function deref<T>(value: T | { $ref: string }): T {
  if (value && typeof value === 'object' && '$ref' in value) {
    const [, , kind, name] = value.$ref.split('/')
    return spec.components[kind][name] as T
  }
  return value
}

export interface MatchedOperation {
  operationId: string
  template: string
  params: Record<string, string>
  operation: Operation
}

/**
 * checkRequest finds the documented operation for a request and returns the
 * problems with it (an empty list when the request is valid).
 */
export function checkRequest(
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): { op?: MatchedOperation; problems: string[] } {
  const problems: string[] = []
  const route = routes.find((r) => r.pattern.test(path) && spec.paths[r.template][method.toLowerCase()])
  if (!route) return { problems: [`${method} ${path} is not in GitHub's REST description`] }
  const operation = spec.paths[route.template][method.toLowerCase()]
  const values = route.pattern.exec(path)!.slice(1)
  const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(values[i])]))
  const declared = (operation.parameters ?? []).map((p) => deref<Parameter>(p))
  for (const p of declared) {
    const raw = p.in === 'path' ? params[p.name] : p.in === 'query' ? query.get(p.name) : null
    if (raw === null || raw === undefined) {
      if (p.required && p.in !== 'header') problems.push(`missing required ${p.in} parameter ${p.name}`)
      continue
    }
    if (p.schema && p.in !== 'header') {
      const value =
        p.schema.type === 'integer' || p.schema.type === 'number' ? Number(raw) : p.schema.type === 'boolean' ? raw === 'true' : raw
      const v = validator(`${operation.operationId}:${p.name}`, p.schema)
      if (!v(value)) problems.push(`${p.in} parameter ${p.name}=${raw}: ${ajv.errorsText(v.errors)}`)
    }
  }
  for (const key of query.keys()) {
    if (!declared.some((p) => p.in === 'query' && p.name === key)) problems.push(`undocumented query parameter ${key}`)
  }
  const json = operation.requestBody?.content['application/json']
  if (json) {
    if (body === undefined) {
      if (operation.requestBody?.required) problems.push('missing JSON body')
    } else {
      const v = validator(`${operation.operationId}:body`, json.schema)
      if (!v(body)) problems.push(`body: ${ajv.errorsText(v.errors)}`)
    }
  } else if (body !== undefined) {
    problems.push('a body where the operation takes none')
  }
  return { op: { operationId: operation.operationId, template: route.template, params, operation }, problems }
}

/** checkResponse returns the problems with an answer the fake gives, against the documented schema for its status. */
export function checkResponse(op: MatchedOperation, status: number, body: unknown): string[] {
  const response = op.operation.responses[String(status)]
  if (!response) return [`${op.operationId} documents no ${status} response`]
  const schema = deref<{ content?: Record<string, { schema: Schema }> }>(response).content?.['application/json']?.schema
  if (!schema || body === undefined) return []
  const v = validator(`${op.operationId}:${status}`, schema)
  return v(body) ? [] : [`${op.operationId} ${status} answer: ${ajv.errorsText(v.errors)}`]
}

/**
 * sample builds the smallest value that satisfies a response schema (every
 * required property, placeholder values of the right type and format), for
 * the fake to fill in before setting the fields a test cares about.
 */
export function sample(operationId: string, status = 200): Record<string, unknown> {
  for (const methods of Object.values(spec.paths)) {
    for (const op of Object.values(methods)) {
      if (op.operationId !== operationId) continue
      const schema = deref<{ content?: Record<string, { schema: Schema }> }>(op.responses[String(status)]).content?.['application/json']
        ?.schema
      if (!schema) throw new Error(`${operationId} has no JSON ${status} response`)
      const value = build(schema, 0)
      return (Array.isArray(value) ? build((schema.items as Schema) ?? {}, 0) : value) as Record<string, unknown>
    }
  }
  throw new Error(`no operation ${operationId}`)
}

/** sampleComponent is sample for a named schema, e.g. "repository". */
export function sampleComponent(name: string): Record<string, unknown> {
  return build(spec.components.schemas[name] as Schema, 0) as Record<string, unknown>
}

function build(schemaOrRef: Schema, depth: number): unknown {
  const schema = deref<Schema>(schemaOrRef)
  if (depth > 12) return null
  if (schema.allOf) return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => build(s, depth + 1)))
  if (schema.anyOf) return build((schema.anyOf as Schema[])[0], depth + 1)
  if (schema.oneOf) return build((schema.oneOf as Schema[])[0], depth + 1)
  if (schema.enum) return (schema.enum as unknown[])[0]
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      const props = (schema.properties ?? {}) as Record<string, Schema>
      for (const name of (schema.required ?? []) as string[]) {
        const prop = props[name] ? deref<Schema>(props[name]) : {}
        out[name] = prop.nullable ? null : build(prop, depth + 1)
      }
      return out
    }
    case 'array':
      return []
    case 'integer':
    case 'number':
      return 1
    case 'boolean':
      return false
    case 'string':
      switch (schema.format) {
        case 'date-time':
          return '2026-11-23T00:00:00Z'
        case 'uri':
          return 'https://api.github.com/placeholder'
        case 'email':
          return 'octocat@example.com'
        default:
          return 'placeholder'
      }
    default:
      return schema.nullable ? null : {}
  }
}
