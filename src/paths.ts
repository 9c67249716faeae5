import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

/** actionRoot is the action's own checkout: dist/.. when bundled, src/.. under local-action. */
export const actionRoot = (): string => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** toolDir is where built engines are kept between steps (and restored from the cache). */
export const toolDir = (env: Record<string, string | undefined> = process.env): string =>
  path.join(env.RUNNER_TOOL_CACHE || os.tmpdir(), 'perfgate')

/**
 * resultsDir is where a step keeps its results for one config (kind
 * 'results' for gate and record, 'trend' for trend): named after the
 * config's comment marker, so that the trend step of a job finds what
 * the record step before it wrote.
 */
export function resultsDir(kind: 'results' | 'trend', marker: string): string {
  const key = Buffer.from(marker).toString('hex').slice(-24)
  return path.join(process.env.RUNNER_TEMP || os.tmpdir(), kind === 'results' ? `perfgate-${key}` : `perfgate-trend-${key}`)
}
