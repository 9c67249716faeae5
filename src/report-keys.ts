/**
 * report.json must read the same to the engine (Go's encoding/json) and
 * to the action (JSON.parse). They disagree on keys: Go matches a key to a
 * field without regard to case, JSON.parse matches exactly; both keep the
 * last of repeated keys. So {"verdict":"pass","Verdict":"regression"} is a
 * regression in the engine's comment and a pass to the action. Both sides
 * refuse such a report (engine/internal/report/keys.go is the Go half;
 * engine/internal/report/testdata/keys holds the cases both test).
 */

/** FIELDS_READ are the top-level fields the action reads from report.json. */
const FIELDS_READ = ['schema', 'verdict', 'reason']

export class ReportKeyError extends Error {
  constructor(message: string) {
    super(`${message}; refusing a report that JSON readers disagree on`)
    this.name = 'ReportKeyError'
  }
}

/**
 * checkReportKeys throws a ReportKeyError naming the key when, in any
 * object of the JSON text, a key repeats, two keys differ only in case,
 * or a key differs only in case from a field the action reads. The text
 * must already be valid JSON (JSON.parse it first).
 */
export function checkReportKeys(text: string): void {
  interface Frame {
    readonly object: boolean
    readonly path: string
    readonly seen: Map<string, string>
    key: string
    index: number
  }
  const stack: Frame[] = []
  let expectKey = false
  const valuePath = (): string => {
    const parent = stack[stack.length - 1]
    if (!parent) return ''
    return parent.object ? join(parent.path, parent.key) : `${parent.path}[${parent.index}]`
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      const end = stringEnd(text, i)
      const frame = stack[stack.length - 1]
      if (frame?.object && expectKey) {
        const key = JSON.parse(text.slice(i, end)) as string
        checkKey(frame.seen, key, frame.path, stack.length === 1)
        frame.key = key
        expectKey = false
      }
      i = end - 1
    } else if (c === '{' || c === '[') {
      stack.push({ object: c === '{', path: valuePath(), seen: new Map(), key: '', index: 0 })
      expectKey = c === '{'
    } else if (c === '}' || c === ']') {
      stack.pop()
      expectKey = false
    } else if (c === ',') {
      const frame = stack[stack.length - 1]
      if (frame?.object) expectKey = true
      else if (frame) frame.index++
    }
  }
}

function checkKey(seen: Map<string, string>, key: string, path: string, topLevel: boolean): void {
  const folded = foldKey(key)
  const earlier = seen.get(folded)
  if (earlier === key) throw new ReportKeyError(`report.json repeats the key ${showKey(key)} ${where(path)}`)
  if (earlier !== undefined)
    throw new ReportKeyError(`report.json has the keys ${showKey(earlier)} and ${showKey(key)} ${where(path)}, which differ only in case`)
  seen.set(folded, key)
  const field = topLevel ? FIELDS_READ.find((f) => f !== key && foldKey(f) === folded) : undefined
  if (field) throw new ReportKeyError(`report.json has the key ${showKey(key)} ${where(path)}, but the field is spelled "${field}"`)
}

/** stringEnd is the index just past the JSON string that starts at start. */
function stringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === '\\') j++
    else if (text[j] === '"') return j + 1
  }
  return text.length
}

/**
 * foldKey folds case code point by code point (upper, then lower, where
 * each maps to a single code point), so that keys Go's encoding/json
 * matches alike (simple case folding: K and the Kelvin sign, s and ſ, ß
 * and ẞ) fold alike. It also folds a few that Go keeps apart (ı and i):
 * refusing too much is safe, too little is not.
 */
export function foldKey(key: string): string {
  let out = ''
  for (const c of key) {
    const upper = c.toUpperCase()
    const single = [...upper].length === 1 ? upper : c
    const lower = single.toLowerCase()
    out += [...lower].length === 1 ? lower : single
  }
  return out
}

function join(path: string, key: string): string {
  const name = /^[A-Za-z0-9_]{1,64}$/.test(key) ? key : showKey(key)
  return path ? `${path}.${name}` : name
}

/** showKey quotes a key for a message, cut to 64 characters: it may be hostile. */
function showKey(key: string): string {
  return JSON.stringify([...key].length > 64 ? `${[...key].slice(0, 64).join('')}…` : key)
}

function where(path: string): string {
  return path ? `in ${path}` : 'at the top level'
}
