import { copyFile, mkdtemp } from 'node:fs/promises'
import * as path from 'node:path'
import { inject } from 'vitest'
import type * as engineModule from '../../src/engine.js'

/**
 * sharedEngine is the path of this action's engine as the Action builds it,
 * built once for the whole unit run (support/engine-once.ts). Run it or
 * copy it; never remove or replace it: every test file shares it.
 */
export function sharedEngine(): string {
  return inject('perfgateEngine')
}

/**
 * withSharedEngine is src/engine.js for the tests of a mode that builds its
 * engine fresh (comment, publish): buildFreshEngine's contract kept (a new
 * directory under tempRoot holding `perfgate`, which the mode removes when
 * done) with a copy of the shared engine in place of a new build. The build
 * itself, and that it never takes a cached binary, is what
 * engine-release.test.ts, fresh-engine.test.ts and
 * comment-stage-engine.test.ts test, with an engine that builds in a second.
 */
export function withSharedEngine(original: typeof engineModule): typeof engineModule {
  return {
    ...original,
    buildFreshEngine: async (_actionRoot, tempRoot) => {
      const binary = path.join(await mkdtemp(path.join(tempRoot, 'perfgate-engine-')), 'perfgate')
      await copyFile(sharedEngine(), binary)
      return { path: binary, goVersion: await original.goVersion(), cacheHit: false }
    },
  }
}
