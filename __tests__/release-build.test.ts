import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { promisify } from 'node:util'
import * as prettier from 'prettier'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startReleaseServer, type ReleaseServer } from './support/release-server.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { buildFreshEngine, sourceHash } = await import('../src/engine.js')
const { releaseAssetName } = await import('../src/engine-release.js')
const { engineToolchain } = await import('../src/engine-toolchain.js')
type ReleasePin = import('../src/engine-release.js').ReleasePin

// scripts/release-build.sh as release.yml runs it, for this machine's arch
// only, and with the Go the Action would build the engine with
// (PERFGATE_RELEASE_GOTOOLCHAIN): test.sh compiled the engine with it and
// the same flags just before, so this is a link, not a compile (~7 s). The
// release's own build uses engine/go.mod's toolchain; release.yml checks on
// every tag that it rebuilds to the checksums pinned in src/.
const repo = path.resolve(import.meta.dirname, '..')
const asset = releaseAssetName(process.platform, process.arch)
let tmp: string
let out: string
let server: ReleaseServer
let toolchain: string

describe.skipIf(!asset)('scripts/release-build.sh', () => {
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-release-build-'))
    out = path.join(tmp, 'v0.0.0')
    toolchain = (await engineToolchain(path.join(repo, 'engine'), process.env)).env.GOTOOLCHAIN
    // Not execFileSync: a build the machine makes slow must not block this
    // worker past vitest's fixed 60 s limit on its calls to the main process.
    await promisify(execFile)(
      'bash',
      [path.join(repo, 'scripts/release-build.sh'), '0.0.0', out, `linux/${asset?.replace('perfgate-linux-', '')}`],
      {
        env: { ...process.env, PERFGATE_RELEASE_GOTOOLCHAIN: toolchain },
      },
    )
    server = await startReleaseServer(tmp)
  }, 600_000)
  afterAll(async () => {
    await server?.close()
    rmSync(tmp, { recursive: true, force: true })
  })

  it('builds a static engine that runs, and checksums.txt that sha256sum verifies', () => {
    expect(execFileSync('sha256sum', ['-c', 'checksums.txt'], { cwd: out, encoding: 'utf8' })).toBe(`${asset}: OK\n`)
    const usage = spawnSync(path.join(out, asset!), [], { encoding: 'utf8' })
    expect(usage.stderr).toContain('perfgate gates pull requests on the performance of Go HTTP services')
    expect(execFileSync('file', [path.join(out, asset!)], { encoding: 'utf8' })).toMatch(/statically linked/)
  })

  it("writes the pin the action compiles in: the version, the checksums and the engine's source hash as src/engine.ts computes it", async () => {
    const pin = JSON.parse(readFileSync(path.join(out, 'engine-release-pin.json'), 'utf8')) as ReleasePin
    const [sum, name] = readFileSync(path.join(out, 'checksums.txt'), 'utf8').trim().split(/\s+/)
    expect(pin).toEqual({
      version: '0.0.0',
      toolchain: 'local',
      engineSourceHash: await sourceHash(path.join(repo, 'engine')),
      assets: { [name]: sum },
    })
  })

  it('writes the pin as prettier formats src/ (lint checks the committed one)', async () => {
    const options = await prettier.resolveConfig(path.join(repo, 'src/engine-release-pin.json'))
    const text = readFileSync(path.join(out, 'engine-release-pin.json'), 'utf8')
    expect(await prettier.check(text, { ...options, filepath: path.join(repo, 'src/engine-release-pin.json') })).toBe(true)
  })

  it('gives assets the action downloads, verifies and runs', async () => {
    const pin = JSON.parse(readFileSync(path.join(out, 'engine-release-pin.json'), 'utf8')) as ReleasePin
    const engine = await buildFreshEngine(repo, tmp, {
      pin,
      platform: process.platform,
      arch: process.arch,
      ref: 'v0.0.0',
      downloadBase: server.base,
    })
    expect(server.requests).toEqual(['/v0.0.0/checksums.txt', `/v0.0.0/${asset}`])
    expect(readFileSync(engine.path).equals(readFileSync(path.join(out, asset!)))).toBe(true)
    expect(spawnSync(engine.path, [], { encoding: 'utf8' }).stderr).toContain('perfgate gates pull requests')
  })

  it('refuses a version that is not X.Y.Z', () => {
    const bad = spawnSync('bash', [path.join(repo, 'scripts/release-build.sh'), '1.2', path.join(tmp, 'bad')], { encoding: 'utf8' })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('release-build: 1.2 is not a version X.Y.Z')
  })
})
