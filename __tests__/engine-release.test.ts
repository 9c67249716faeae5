import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { startReleaseServer, type ReleaseServer } from './support/release-server.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { buildEngine, buildFreshEngine, sourceHash } = await import('../src/engine.js')
const { releaseAssetName, checksumFor, releaseDownloadBase } = await import('../src/engine-release.js')
const { UserError } = await import('../src/errors.js')
type Runner = import('../src/engine.js').Runner

// A fake release download (support/release-server.ts) whose assets are
// shell scripts, so that a test can run what the action returned and see
// which one it got.
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')
const releaseAsset = '#!/bin/sh\necho "engine from release v1.2.3"\n'
const asset = releaseAssetName('linux', 'x64')!

let tmp: string
const files = mkdtempSync(path.join(tmpdir(), 'perfgate-release-server-'))
let server: ReleaseServer
let base: string
let requests: string[]

function serve(release: Record<string, string>): void {
  rmSync(files, { recursive: true, force: true })
  mkdirSync(path.join(files, 'v1.2.3'), { recursive: true })
  for (const [name, body] of Object.entries(release)) writeFileSync(path.join(files, 'v1.2.3', name), body)
}

beforeAll(async () => {
  server = await startReleaseServer(files)
  base = server.base
  requests = server.requests
})
afterAll(async () => {
  await server.close()
  rmSync(files, { recursive: true, force: true })
})

// An action checkout whose engine is a tiny Go command, so that building
// from source takes a second and says so when run.
let actionRoot: string
let runner: Runner
beforeEach(async () => {
  reset()
  requests.length = 0
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-release-'))
  actionRoot = path.join(tmp, 'action')
  mkdirSync(path.join(actionRoot, 'engine/cmd/perfgate'), { recursive: true })
  writeFileSync(path.join(actionRoot, 'engine/go.mod'), 'module example.com/perfgate\n\ngo 1.21.0\n')
  writeFileSync(
    path.join(actionRoot, 'engine/cmd/perfgate/main.go'),
    'package main\n\nfunc main() { println("engine built from source") }\n',
  )
  serve({ [asset]: releaseAsset, 'checksums.txt': `${sha256(releaseAsset)}  ${asset}\n` })
  runner = {
    pin: {
      version: '1.2.3',
      toolchain: 'go1.26.0',
      engineSourceHash: await sourceHash(path.join(actionRoot, 'engine')),
      assets: { [asset]: sha256(releaseAsset) },
    },
    platform: 'linux',
    arch: 'x64',
    ref: 'v1.2.3',
    downloadBase: base,
  }
})
afterEach(() => rmSync(tmp, { recursive: true, force: true }))

const runs = (binary: string): string => execFileSync(binary, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) + ''
const runsBoth = (binary: string): string => execFileSync('sh', ['-c', '"$0" 2>&1', binary], { encoding: 'utf8' })

describe('a released action', () => {
  it('downloads the asset for its version and arch, checks it against the pinned and the listed checksum, and runs it', async () => {
    const engine = await buildFreshEngine(actionRoot, tmp, runner)
    expect(runs(engine.path)).toBe('engine from release v1.2.3\n')
    expect(requests).toEqual(['/v1.2.3/checksums.txt', `/v1.2.3/${asset}`])
    expect(engine.goVersion).toBe('go1.26.0')
    expect(recorded.infos.join('\n')).toContain(
      `release v1.2.3's ${asset} from ${base}/v1.2.3/${asset}, sha256 ${sha256(releaseAsset)} verified`,
    )
  })

  it('downloads an arm64 runner its own asset', async () => {
    const arm = releaseAssetName('linux', 'arm64')!
    expect(arm).toBe('perfgate-linux-arm64')
    const armAsset = '#!/bin/sh\necho "arm64 engine"\n'
    serve({ [arm]: armAsset, 'checksums.txt': `${sha256(releaseAsset)}  ${asset}\n${sha256(armAsset)}  ${arm}\n` })
    const engine = await buildFreshEngine(actionRoot, tmp, {
      ...runner,
      arch: 'arm64',
      pin: { ...runner.pin, assets: { [arm]: sha256(armAsset) } },
    })
    expect(runs(engine.path)).toBe('arm64 engine\n')
  })

  it('keeps the asset in the tool cache, checks it again at every use, and downloads it again when it changed', async () => {
    const toolDir = path.join(tmp, 'tools')
    const first = await buildEngine(actionRoot, toolDir, runner)
    expect(first.cacheHit).toBe(false)
    const second = await buildEngine(actionRoot, toolDir, runner)
    expect(second).toMatchObject({ path: first.path, cacheHit: true })
    expect(requests.filter((r) => r.endsWith(asset))).toHaveLength(1)
    writeFileSync(first.path, '#!/bin/sh\necho planted\n')
    const third = await buildEngine(actionRoot, toolDir, runner)
    expect(third.cacheHit).toBe(false)
    expect(runs(third.path)).toBe('engine from release v1.2.3\n')
  })

  it('refuses an asset whose checksum is not the pinned one, naming the asset, its URL, both hashes and what to do', async () => {
    const altered = '#!/bin/sh\necho "altered on the server"\n'
    // checksums.txt altered with it: only the pin compiled into the action catches this.
    serve({ [asset]: altered, 'checksums.txt': `${sha256(altered)}  ${asset}\n` })
    const err = await buildFreshEngine(actionRoot, tmp, runner).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UserError)
    const message = (err as Error).message
    expect(message).toContain(`${asset} downloaded from ${base}/v1.2.3/${asset}`)
    expect(message).toContain(`expected sha256 ${sha256(releaseAsset)}, got ${sha256(altered)}`)
    expect(message).toMatch(/Do not use this binary\. Re-run the job; if it persists/)
    // Nothing was written where an engine would run from.
    for (const dir of readdirSync(tmp).filter((d) => d.startsWith('perfgate-engine-'))) {
      expect(readdirSync(path.join(tmp, dir))).toEqual([])
    }
  })

  it("refuses an asset when the release's checksums.txt disagrees with the pin", async () => {
    serve({ [asset]: releaseAsset, 'checksums.txt': `${sha256('something else')}  ${asset}\n` })
    await expect(buildEngine(actionRoot, path.join(tmp, 'tools'), runner)).rejects.toThrow(
      `the release's ${base}/v1.2.3/checksums.txt lists sha256 ${sha256('something else')} for ${asset}, but this action's v1.2.3 pins ${sha256(releaseAsset)}`,
    )
    serve({ [asset]: releaseAsset, 'checksums.txt': `${sha256(releaseAsset)}  perfgate-linux-riscv64\n` })
    await expect(buildEngine(actionRoot, path.join(tmp, 'tools'), runner)).rejects.toThrow(`checksums.txt has no line for ${asset}`)
  })

  it('builds from source when the release has no such file (404), and says why', async () => {
    serve({})
    const engine = await buildFreshEngine(actionRoot, tmp, runner)
    expect(runsBoth(engine.path)).toBe('engine built from source\n')
    expect(recorded.warnings.join('\n')).toContain(
      `release asset ${asset} could not be downloaded (downloading ${base}/v1.2.3/checksums.txt failed: HTTP 404 Not Found)`,
    )
    expect(recorded.infos.join('\n')).toMatch(
      new RegExp(
        `could not be downloaded from ${base}/v1.2.3/${asset}; building from source with go1\\.\\d+\\S*, the runner's Go \\(the engine needs go1\\.21\\.0 or newer\\)`,
      ),
    )
  })

  it('fails clearly when the download fails and there is no Go to build with', async () => {
    serve({})
    const saved = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      const err = await buildFreshEngine(actionRoot, tmp, runner).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(UserError)
      expect((err as Error).message).toMatch(
        new RegExp(
          `^the release asset ${asset} could not be downloaded from ${base}/v1\\.2\\.3/${asset}, and building the perfgate engine from source failed: .*\`go\` is not on PATH\\. Add actions/setup-go`,
        ),
      )
    } finally {
      process.env.PATH = saved
    }
  })
})

describe('where no release asset matches', () => {
  it('builds from source for an arch the release has no asset for, and never asks the server', async () => {
    const engine = await buildFreshEngine(actionRoot, tmp, { ...runner, arch: 's390x' })
    expect(runsBoth(engine.path)).toBe('engine built from source\n')
    expect(requests).toEqual([])
    expect(recorded.infos.join('\n')).toContain(`no release asset for linux/s390x in v1.2.3 (it has ${asset}); building from source with`)
  })

  it("builds from source when the action's engine is not the release's (a branch after it)", async () => {
    writeFileSync(
      path.join(actionRoot, 'engine/cmd/perfgate/main.go'),
      'package main\n\nfunc main() { println("engine built from main") }\n',
    )
    const engine = await buildEngine(actionRoot, path.join(tmp, 'tools'), { ...runner, ref: 'main' })
    expect(runsBoth(engine.path)).toBe('engine built from main\n')
    expect(requests).toEqual([])
    expect(recorded.infos.join('\n')).toContain(
      "no release asset for this action version (ref main): its engine sources differ from release v1.2.3's; building from source with",
    )
  })

  it('builds from source where nothing was released, saying it is not a release', async () => {
    const engine = await buildFreshEngine(actionRoot, tmp, {
      ...runner,
      ref: '',
      pin: { version: '', toolchain: '', engineSourceHash: '', assets: {} },
    })
    expect(runsBoth(engine.path)).toBe('engine built from source\n')
    expect(recorded.infos.join('\n')).toContain(
      'no release asset for this action version (no ref: a local copy of the action; no release is pinned in it); building from source with',
    )
  })
})

describe('release download helpers', () => {
  it('names the assets after Go, and none for what releases do not build', () => {
    expect(releaseAssetName('linux', 'x64')).toBe('perfgate-linux-amd64')
    expect(releaseAssetName('linux', 'ia32')).toBeUndefined()
    expect(releaseAssetName('darwin', 'arm64')).toBeUndefined()
  })

  it("reads sha256sum's format, text or binary mode", () => {
    const a = 'a'.repeat(64)
    const b = 'b'.repeat(64)
    expect(checksumFor(`${a}  perfgate-linux-amd64\n${b} *perfgate-linux-arm64\n`, 'perfgate-linux-arm64')).toBe(b)
    expect(checksumFor(`${a}  perfgate-linux-amd64\n`, 'perfgate-linux-arm64')).toBeUndefined()
  })

  it('downloads from GitHub unless PERFGATE_RELEASE_URL says otherwise', () => {
    expect(releaseDownloadBase({})).toBe('https://github.com/perfgate/perfgate/releases/download')
    expect(releaseDownloadBase({ PERFGATE_RELEASE_URL: 'http://127.0.0.1:8080/' })).toBe('http://127.0.0.1:8080')
  })
})
