import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import type { TestProject } from 'vitest/node'
import { buildEngine } from '../../src/engine.js'

// The unit suite's one build of this action's engine (vitest.config.ts's
// globalSetup): built here, once, by the Action's own buildEngine (static,
// -trimpath, into a tool directory under the key the Action gives it), and
// handed to every test that runs the real engine (support/shared-engine.ts).
// It runs in vitest's main process before any worker starts, so however
// long a cold build takes on a loaded machine, no worker's event loop
// waits on it: a test file that built the engine itself, synchronously and
// with other flags (so compiling every package again), blocked its worker
// for 148 s, past vitest's fixed 60 s limit on calls to the main process,
// and a run whose 339 tests all passed failed (issue 58). Tests that are
// about building the engine (engine-release, release-build, fresh-engine,
// comment-stage-engine) still build, each its own small or release engine.

/** noRelease is a pin of no release: the engine is always built from source here, never downloaded. */
const noRelease = { version: '', toolchain: '', engineSourceHash: '', assets: {} }

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tools = await mkdtemp(path.join(tmpdir(), 'perfgate-unit-engine-'))
  const actionRoot = path.resolve(import.meta.dirname, '../..')
  const runner = { pin: noRelease, platform: process.platform, arch: process.arch, ref: '', downloadBase: '' }
  const started = Date.now()
  const engine = await buildEngine(actionRoot, tools, runner)
  console.log(`the unit tests' engine: ${engine.path}, built once in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  project.provide('perfgateEngine', engine.path)
  return () => rm(tools, { recursive: true, force: true })
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** perfgateEngine is the path of the engine engine-once.ts built for the whole run. */
    perfgateEngine: string
  }
}
