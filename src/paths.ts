import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

/** actionRoot is the action's own checkout: dist/.. when bundled, src/.. under local-action. */
export const actionRoot = (): string => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** toolDir is where built engines are kept between steps (and restored from the cache). */
export const toolDir = (): string => path.join(process.env.RUNNER_TOOL_CACHE || os.tmpdir(), 'perfgate')
