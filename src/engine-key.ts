import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import * as path from 'node:path'
import { listFiles } from './files.js'

// What names the engine built from this action's sources, apart from
// engine.ts and its cache and download code (@actions/cache and its Azure
// storage client): the end-to-end tests' harness names a host-built engine
// with it (__tests__/support/local-action.ts), and under the VM's emulation
// the test file's collect time grew from 53 s to 92 s when the harness
// imported engine.ts for it (CI of 2026-11-29).

/**
 * sourceHash hashes the engine's Go sources, go.mod, go.sum and templates,
 * in a stable order: the built engine's cache key, and what tells whether a
 * release's assets are this action's engine (scripts/release-build.sh
 * computes the same hash for the pin; __tests__/release-build.test.ts checks
 * that both agree).
 */
export async function sourceHash(engineDir: string): Promise<string> {
  const hash = createHash('sha256')
  const files = (await listFiles(engineDir)).filter((f) => /\.go$|(^|\/)go\.(mod|sum)$|\.tmpl$/.test(f) && !f.includes('/testdata/')).sort()
  for (const f of files) {
    hash
      .update(f)
      .update('\0')
      .update(await readFile(path.join(engineDir, f)))
      .update('\0')
  }
  return hash.digest('hex').slice(0, 20)
}

/**
 * engineCacheKey names a build from source in the tool cache and in
 * actions/cache: this runner's platform and arch, the Go that built it and
 * the engine sources' hash (sourceHash).
 */
export function engineCacheKey(goVersion: string, sourceHash: string): string {
  return `perfgate-engine-${process.platform}-${process.arch}-${goVersion}-${sourceHash}`
}
