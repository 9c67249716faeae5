import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { engineToolchain, goVersion, goVersionAtLeast, pinnedToolchain, toolchainHint } from '../src/engine-toolchain.js'

describe('pinnedToolchain', () => {
  it("reads go.mod's toolchain line, else its go line as a release", () => {
    expect(pinnedToolchain('module m\n\ngo 1.26.0\n\ntoolchain go1.26.3\n')).toBe('go1.26.3')
    expect(pinnedToolchain('module m\n\ngo 1.26.0\n')).toBe('go1.26.0')
    expect(pinnedToolchain('module m\n\ngo 1.26\n')).toBe('go1.26.0')
    expect(() => pinnedToolchain('module m\n')).toThrow(/no `go 1.N.M` line/)
  })

  it("pins what this action's engine/go.mod says", async () => {
    const { readFileSync } = await import('node:fs')
    const goMod = readFileSync(path.resolve(import.meta.dirname, '../engine/go.mod'), 'utf8')
    expect(pinnedToolchain(goMod)).toMatch(/^go1\.2[6-9]\.\d+$/)
  })
})

describe('goVersionAtLeast', () => {
  it.each([
    ['go1.26.0', 'go1.26.0', true],
    ['go1.26.8', 'go1.26.0', true],
    ['go1.27.0', 'go1.26.3', true],
    ['go1.26', 'go1.26.0', true],
    ['go1.24.3', 'go1.26.0', false],
    ['go1.26.2', 'go1.26.3', false],
    ['go1.26rc1', 'go1.26.0', false],
    ['devel go1.27-abcdef', 'go1.26.0', false],
  ])('%s against %s: %s', (have, want, atLeast) => {
    expect(goVersionAtLeast(have, want)).toBe(atLeast)
  })
})

describe('engineToolchain', () => {
  const withGoMod = async (goMod: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perfgate-toolchain-'))
    try {
      writeFileSync(path.join(dir, 'go.mod'), goMod)
      return await engineToolchain(dir, { ...process.env, GOTOOLCHAIN: 'go1.21.0' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it("keeps the runner's Go when it is the pinned one or newer, whatever GOTOOLCHAIN the job set", async () => {
    const local = await goVersion({ ...process.env, GOTOOLCHAIN: 'local' })
    const toolchain = await withGoMod('module m\n\ngo 1.21.0\n')
    expect(toolchain).toEqual({
      goVersion: local,
      runnerGo: local,
      env: { GOTOOLCHAIN: 'local' },
      why: `${local}, the runner's Go (the engine needs go1.21.0 or newer)`,
    })
    expect(toolchainHint(toolchain)).toBe('')
  })

  it('names the pinned Go for GOTOOLCHAIN when the runner has an older one, so that Go downloads it', async () => {
    const local = await goVersion({ ...process.env, GOTOOLCHAIN: 'local' })
    const toolchain = await withGoMod('module m\n\ngo 1.26.0\n\ntoolchain go1.99.1\n')
    expect(toolchain.env).toEqual({ GOTOOLCHAIN: 'go1.99.1' })
    expect(toolchain.why).toBe(`go1.99.1, pinned by the engine's go.mod (the runner's ${local} is older; Go downloads go1.99.1 itself)`)
  })

  it('says to set up a newer Go where the runner has one that cannot download toolchains', () => {
    expect(toolchainHint({ goVersion: 'go1.26.0', runnerGo: 'go1.20.14', env: { GOTOOLCHAIN: 'go1.26.0' }, why: '' })).toContain(
      "The runner's go1.20.14 cannot download go1.26.0 (Go 1.21 or newer can)",
    )
  })
})
