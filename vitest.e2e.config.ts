import { defineConfig } from 'vitest/config'

// The action end to end through @github/local-action: real engine, real
// service, real cgroups (run as root), the fake GitHub API. Minutes, not
// seconds: kept apart from the unit tests.
export default defineConfig({
  test: {
    include: ['__tests__/e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false
  }
})
