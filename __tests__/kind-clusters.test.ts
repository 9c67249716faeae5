import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { deleteOrphanedKindClusters } = await import('../src/kind-clusters.js')
const { hostIdentity, identity } = await import('../src/host-identity.js')

// A kind stand-in on PATH (kind cannot create clusters on the machine this
// is developed on): it lists the given clusters and records every command.
const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-kind-'))
const log = path.join(tmp, 'calls.log')
const originalPath = process.env.PATH

function fakeKind(clusters: string[], deleteExit = 0): void {
  const script = `#!/bin/sh
echo "$*" >> "${log}"
case "$1 $2" in
"get clusters") printf '%s\\n' ${clusters.join(' ')} ;;
"delete cluster") echo "deleting" >&2; exit ${deleteExit} ;;
esac
`
  writeFileSync(path.join(tmp, 'kind'), script)
  chmodSync(path.join(tmp, 'kind'), 0o755)
  writeFileSync(log, '')
  process.env.PATH = `${tmp}:${originalPath}`
}

const calls = () => readFileSync(log, 'utf8').trim().split('\n')

afterEach(() => {
  reset()
  process.env.PATH = originalPath
})

const host = 'a1b2c3d4e5f6'

describe('deleteOrphanedKindClusters', () => {
  it("deletes a dead perfgate's cluster of this host and leaves a live one's and others' alone", async () => {
    const dead = `perfgate-${host}-111-abcdef`
    fakeKind([
      dead,
      `perfgate-${host}-222-123456`, // alive
      'perfgate-0f0f0f0f0f0f-111-abcdef', // another runner's on the same Docker daemon
      'perfgate-123456789012-111-abcdef',
      'perfgate-111-abcdef', // no host identity
      'dev',
      'perfgate-x-1'
    ])
    const deleted = await deleteOrphanedKindClusters((pid) => pid === 222, host)
    expect(deleted).toEqual([dead])
    expect(calls()).toEqual(['get clusters', `delete cluster --name ${dead}`])
    expect(recorded.infos.join('\n')).toContain(`deleting kind cluster ${dead}`)
  })

  it('only warns when a delete fails', async () => {
    fakeKind([`perfgate-${host}-111-abcdef`], 1)
    expect(await deleteOrphanedKindClusters(() => false, host)).toEqual([])
    expect(recorded.warnings.join('\n')).toMatch(/kind delete cluster --name perfgate-a1b2c3d4e5f6-111-abcdef.* failed \(exit 1\): deleting/)
    expect(recorded.failed).toEqual([])
  })

  it('by default judges by this host identity', async () => {
    const ours = `perfgate-${hostIdentity()}-111-abcdef`
    fakeKind([ours])
    expect(await deleteOrphanedKindClusters(() => false)).toEqual([ours])
  })

  it('does nothing without kind', async () => {
    process.env.PATH = '/nonexistent'
    expect(await deleteOrphanedKindClusters(() => false)).toEqual([])
    expect(recorded.warnings).toEqual([])
  })
})

describe('identity', () => {
  // The same vector is checked by engine/internal/owner's TestIdentityIsStable.
  it('hashes machine and PID namespace as the engine does', () => {
    expect(identity('0123456789abcdef0123456789abcdef', 'pid:[4026531836]')).toBe('9710943f3cf2')
    expect(hostIdentity()).toMatch(/^[0-9a-f]{12}$/)
  })
})

process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))
