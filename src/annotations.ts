import * as core from '@actions/core'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import * as path from 'node:path'

/**
 * GitHub shows at most 10 warning annotations per step; perfgate uses them
 * all only when there is more to say, the last one saying how many more.
 */
export const MAX_ANNOTATIONS = 10

/** The longest message put in one annotation, in characters. */
const MAX_MESSAGE = 1000

export interface Annotation {
  readonly title: string
  readonly message: string
}

/**
 * reportAnnotations reads the report's structured warnings (`warnings`)
 * and invalid runs (`runs[]` with `valid: false` and `invalid_reasons`)
 * as annotations, capped so that a bad run does not flood the check. The
 * texts are the report's own (they may quote the service's output):
 * core.warning escapes them as workflow-command data.
 */
export function reportAnnotations(report: unknown, max = MAX_ANNOTATIONS): Annotation[] {
  const r = typeof report === 'object' && report !== null ? (report as Record<string, unknown>) : {}
  const all: Annotation[] = []
  for (const w of Array.isArray(r.warnings) ? r.warnings : []) {
    if (typeof w === 'string' && w.trim() !== '') all.push({ title: 'perfgate: warning', message: clip(w) })
  }
  for (const run of Array.isArray(r.runs) ? r.runs : []) {
    if (typeof run !== 'object' || run === null) continue
    const { valid, invalid_reasons: reasons, side, pair } = run as Record<string, unknown>
    if (valid !== false) continue
    const why = Array.isArray(reasons) ? reasons.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []
    const which = [typeof side === 'string' ? side : '', typeof pair === 'number' ? `round ${pair}` : ''].filter(Boolean).join(' ')
    all.push({
      title: 'perfgate: invalid run',
      message: clip(`${which || 'a run'} is invalid and was not compared: ${why.length > 0 ? why.join('; ') : 'no reason given'}`),
    })
  }
  if (all.length <= max) return all
  const shown = all.slice(0, max - 1)
  return [
    ...shown,
    {
      title: 'perfgate: more warnings',
      message: `${all.length - shown.length} more warnings and invalid runs are in report.json (warnings, runs[].invalid_reasons) in the results artifact.`,
    },
  ]
}

function clip(text: string): string {
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`
}

/** annotateReport turns the results directory's report.json into warning annotations; a missing or unreadable report adds none. */
export async function annotateReport(resultsDir: string): Promise<number> {
  const file = path.join(resultsDir, 'report.json')
  if (!existsSync(file)) return 0
  let report: unknown
  try {
    report = JSON.parse(await readFile(file, 'utf8'))
  } catch {
    return 0
  }
  const annotations = reportAnnotations(report)
  for (const a of annotations) core.warning(a.message, { title: a.title })
  return annotations.length
}
