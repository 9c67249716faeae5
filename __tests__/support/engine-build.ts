import { execFile } from 'node:child_process'
import * as path from 'node:path'
import { promisify } from 'node:util'

const engineDir = path.resolve(import.meta.dirname, '../../engine')

/**
 * buildEngine builds perfgate from this repository's engine/ into binary as
 * the Action builds it (static, -trimpath: src/engine.ts), so that Go's
 * cache already holds it after scripts/test.sh's build of the same; and
 * without blocking: a synchronous build stops the vitest worker from
 * answering its runner, whose calls time out after a fixed 60 s, and a cold
 * build beside CI's other builds takes longer (a run failed so, with every
 * test passing).
 */
export async function buildEngine(binary: string): Promise<void> {
  await promisify(execFile)('go', ['build', '-trimpath', '-o', binary, './cmd/perfgate'], {
    cwd: engineDir,
    env: { ...process.env, CGO_ENABLED: '0' },
    maxBuffer: 16 << 20,
  })
}
