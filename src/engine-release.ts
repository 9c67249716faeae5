import { createHash } from 'node:crypto'
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import * as path from 'node:path'
import { getErrorMessage, UserError } from './errors.js'
import pinned from './engine-release-pin.json' with { type: 'json' }

/**
 * ReleasePin is what a release compiles into the Action: its version, the
 * hash of the engine sources the assets were built from (sourceHash in
 * engine.ts) and each asset's sha256. scripts/release-build.sh writes it;
 * the maintainer commits it as src/engine-release-pin.json with the tag, and
 * .github/workflows/release.yml publishes only assets that rebuild to these
 * checksums. A downloaded asset is checked against this table, which comes
 * with the Action's own code at the tag, and not only against the server's
 * checksums.txt, which comes from the same server as the asset. On main
 * between releases the pin still names the last release: its source hash
 * then tells whether that release's engine is this checkout's.
 */
export interface ReleasePin {
  /** version is X.Y.Z, or empty where nothing was ever released. */
  readonly version: string
  readonly toolchain: string
  readonly engineSourceHash: string
  readonly assets: Readonly<Record<string, string>>
}

/** releasePin is this Action's own pin. */
export const releasePin: ReleasePin = pinned

/**
 * releaseDownloadBase is where releases' assets are downloaded from.
 * PERFGATE_RELEASE_URL replaces it in tests (a local server); a workflow
 * has no reason to set it.
 */
export function releaseDownloadBase(env: Record<string, string | undefined> = process.env): string {
  return (env.PERFGATE_RELEASE_URL || 'https://github.com/perfgate/perfgate/releases/download').replace(/\/+$/, '')
}

/** releaseAssetName is the asset built for a Node platform and arch, if releases build one. */
export function releaseAssetName(platform: string, arch: string): string | undefined {
  const goarch: Record<string, string> = { x64: 'amd64', arm64: 'arm64' }
  if (platform !== 'linux' || !goarch[arch]) return undefined
  return `perfgate-linux-${goarch[arch]}`
}

/** ReleaseAsset is a release's engine for this runner, with the sha256 pinned for it. */
export interface ReleaseAsset {
  readonly version: string
  readonly toolchain: string
  readonly name: string
  readonly url: string
  readonly checksumsUrl: string
  readonly sha256: string
}

/** NoReleaseAsset says why this runner builds the engine from source instead. */
export interface NoReleaseAsset {
  readonly reason: string
}

/**
 * chooseReleaseAsset picks the pinned release's asset for a runner, or says
 * why none serves: the action is not a release, its engine sources are not
 * the release's (a branch or commit after it), or the release has no asset
 * for this platform.
 */
export function chooseReleaseAsset(
  pin: ReleasePin,
  engineSourceHash: string,
  runner: { platform: string; arch: string; ref: string },
  base: string,
): ReleaseAsset | NoReleaseAsset {
  const at = runner.ref ? `ref ${runner.ref}` : 'no ref: a local copy of the action'
  if (!pin.version) return { reason: `no release asset for this action version (${at}; no release is pinned in it)` }
  if (pin.engineSourceHash !== engineSourceHash) {
    return { reason: `no release asset for this action version (${at}): its engine sources differ from release v${pin.version}'s` }
  }
  const name = releaseAssetName(runner.platform, runner.arch)
  const sha256 = name ? pin.assets[name] : undefined
  if (!name || !sha256) {
    return {
      reason: `no release asset for ${runner.platform}/${runner.arch} in v${pin.version} (it has ${Object.keys(pin.assets).join(', ') || 'none'})`,
    }
  }
  const dir = `${base}/v${pin.version}`
  return { version: pin.version, toolchain: pin.toolchain, name, url: `${dir}/${name}`, checksumsUrl: `${dir}/checksums.txt`, sha256 }
}

/**
 * ReleaseUnavailable is a download that did not happen (no such file, the
 * network): the caller may build from source instead. A download that
 * happened and does not verify is a UserError, never a reason to go on.
 */
export class ReleaseUnavailable extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReleaseUnavailable'
  }
}

/** sha256Hex is the hex sha256 of some bytes. */
export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** fileMatches says whether a file exists and has the given sha256. */
export async function fileMatches(file: string, sha256: string): Promise<boolean> {
  try {
    return sha256Hex(await readFile(file)) === sha256
  } catch {
    return false
  }
}

async function download(url: string): Promise<Uint8Array> {
  let response: Response
  try {
    response = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(5 * 60_000) })
  } catch (error) {
    throw new ReleaseUnavailable(`downloading ${url} failed: ${getErrorMessage(error)}`)
  }
  if (!response.ok) throw new ReleaseUnavailable(`downloading ${url} failed: HTTP ${response.status} ${response.statusText}`.trim())
  try {
    return new Uint8Array(await response.arrayBuffer())
  } catch (error) {
    throw new ReleaseUnavailable(`downloading ${url} failed while reading it: ${getErrorMessage(error)}`)
  }
}

/** checksumFor reads an asset's sha256 from a checksums.txt in sha256sum's format. */
export function checksumFor(checksums: string, name: string): string | undefined {
  for (const line of checksums.split('\n')) {
    const m = /^([0-9a-f]{64}) [ *]?(\S+)\s*$/.exec(line)
    if (m && m[2] === name) return m[1]
  }
  return undefined
}

/**
 * downloadReleaseAsset downloads an asset and the release's checksums.txt,
 * and writes the asset as an executable to destination only if its sha256
 * equals both the pinned one and the one checksums.txt lists.
 */
export async function downloadReleaseAsset(asset: ReleaseAsset, destination: string): Promise<void> {
  const checksums = new TextDecoder().decode(await download(asset.checksumsUrl))
  const listed = checksumFor(checksums, asset.name)
  const bytes = await download(asset.url)
  const actual = sha256Hex(bytes)
  const fix =
    'Do not use this binary. Re-run the job; if it persists, the release was altered: report it at https://github.com/perfgate/perfgate/issues and, meanwhile, use the action at a commit SHA (it then builds the engine from source).'
  if (actual !== asset.sha256) {
    throw new UserError(
      `the perfgate engine ${asset.name} downloaded from ${asset.url} does not match the checksum pinned in this action's v${asset.version}: expected sha256 ${asset.sha256}, got ${actual}. ${fix}`,
    )
  }
  if (listed !== asset.sha256) {
    throw new UserError(
      `the release's ${asset.checksumsUrl} ${listed ? `lists sha256 ${listed}` : 'has no line'} for ${asset.name}, but this action's v${asset.version} pins ${asset.sha256} (the download has ${actual}). ${fix}`,
    )
  }
  await mkdir(path.dirname(destination), { recursive: true })
  const partial = `${destination}.partial-${process.pid}`
  await writeFile(partial, bytes)
  await chmod(partial, 0o755)
  await rename(partial, destination)
}
