import { defineConfig } from 'vitest/config'

// The Action's unit tests. They start real processes (git, the engine, Go
// builds of small stand-in engines) and run in CI beside the engine's race
// tests and the background builds on a 2-core machine, so the settings are
// for a loaded machine, not a quiet laptop:
// - forks (vitest's default, said here so it stays): a test file's
//   processes and process.env changes stay in its own process;
// - vitest limits every call from a worker to the main process to 60 s,
//   with no setting to raise it; a worker whose event loop is blocked for
//   that long (a synchronous build) fails the run with every test green.
//   So nothing long runs synchronously in a worker: the one build of the
//   real engine is the global setup's, in the main process
//   (support/engine-once.ts), and the rest is awaited;
// - a test or hook gets 120 s, not 5 and 10: the slowest (a Go build of a
//   stand-in engine, the release build's link) take seconds alone and
//   several times that under CI's load; a hang still fails, in minutes.
export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    globalSetup: ['__tests__/support/engine-once.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
    coverage: { include: ['src/**/*.ts'], exclude: ['src/index.ts'] },
  },
})
