import { describe, expect, it } from 'vitest'
import { goVersion, sourceHash } from '../src/engine.js'
import * as path from 'node:path'

describe('goVersion', () => {
  it('says to add actions/setup-go when there is no Go on PATH', async () => {
    const saved = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      await expect(goVersion()).rejects.toThrow(/`go` is not on PATH\. Add actions\/setup-go before perfgate/)
    } finally {
      process.env.PATH = saved
    }
  })

  it("reads the runner's Go version", async () => {
    expect(await goVersion()).toMatch(/^go1\.\d+/)
  })
})

describe('sourceHash', () => {
  it("is stable for the same sources, so the engine's cache key is", async () => {
    const engine = path.resolve(import.meta.dirname, '../engine')
    const first = await sourceHash(engine)
    expect(first).toMatch(/^[0-9a-f]{20}$/)
    expect(await sourceHash(engine)).toBe(first)
  })
})
