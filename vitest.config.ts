import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    coverage: { include: ['src/**/*.ts'], exclude: ['src/index.ts'] }
  }
})
