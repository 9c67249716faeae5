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

describe('engineInvocation', () => {
  const env = { PATH: '/opt/go/bin:/usr/bin', RUNNER_TEMP: '/home/runner/work/_temp', HOME: '/home/runner', INPUT_TOKEN: 'ghs_x' }

  it('runs the engine directly as root, and without sudo (unconfined, the engine says so)', async () => {
    const { engineInvocation } = await import('../src/perfgate.js')
    for (const host of [
      { root: true, sudo: true },
      { root: false, sudo: false },
    ]) {
      const inv = engineInvocation('/t/perfgate', ['gate', '--base', 'abc'], { ...host, env })
      expect(inv).toMatchObject({ file: '/t/perfgate', args: ['gate', '--base', 'abc'], viaSudo: false })
      expect(inv.env.INPUT_TOKEN).toBeUndefined()
    }
  })

  it("goes through sudo on a hosted runner, with the runner's Go (the engine builds as the runner, with the runner's caches)", async () => {
    const { engineInvocation } = await import('../src/perfgate.js')
    const inv = engineInvocation('/t/perfgate', ['gate'], { root: false, sudo: true, env })
    expect(inv.file).toBe('sudo')
    expect(inv.args).toEqual(['-n', '--preserve-env', 'env', 'PATH=/opt/go/bin:/usr/bin', '/t/perfgate', 'gate'])
    expect(inv.env.INPUT_TOKEN).toBeUndefined()
  })
})

describe('withGitHubLog', () => {
  it('asks gate and run for the GitHub log format, and leaves other subcommands alone', async () => {
    const { withGitHubLog } = await import('../src/perfgate.js')
    expect(withGitHubLog(['gate', '--config', 'perfgate.yml', '--out', '/r'])).toEqual([
      'gate',
      '--config',
      'perfgate.yml',
      '--out',
      '/r',
      '--log-format',
      'github',
    ])
    expect(withGitHubLog(['run', '--src', '.'])).toEqual(['run', '--src', '.', '--log-format', 'github'])
    expect(withGitHubLog(['trend', '--history', 'h'])).toEqual(['trend', '--history', 'h'])
    expect(withGitHubLog(['sweep'])).toEqual(['sweep'])
    expect(withGitHubLog(['gate', '--log-format', 'plain'])).toEqual(['gate', '--log-format', 'plain'])
  })
})
