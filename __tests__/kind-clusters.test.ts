import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'

vi.mock('@actions/core', () => import('./support/core-fake.js'))
const { deleteOrphanedKindClusters } = await import('../src/kind-clusters.js')

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

describe('deleteOrphanedKindClusters', () => {
  it("deletes a dead perfgate's cluster and leaves a live one's and others' alone", async () => {
    fakeKind(['perfgate-111-abcdef', 'perfgate-222-123456', 'dev', 'perfgate-x-1'])
    const deleted = await deleteOrphanedKindClusters((pid) => pid === 222)
    expect(deleted).toEqual(['perfgate-111-abcdef'])
    expect(calls()).toEqual(['get clusters', 'delete cluster --name perfgate-111-abcdef'])
    expect(recorded.infos.join('\n')).toContain('deleting kind cluster perfgate-111-abcdef')
  })

  it('only warns when a delete fails', async () => {
    fakeKind(['perfgate-111-abcdef'], 1)
    expect(await deleteOrphanedKindClusters(() => false)).toEqual([])
    expect(recorded.warnings.join('\n')).toMatch(/kind delete cluster --name perfgate-111-abcdef.* failed \(exit 1\): deleting/)
    expect(recorded.failed).toEqual([])
  })

  it('does nothing without kind', async () => {
    process.env.PATH = '/nonexistent'
    expect(await deleteOrphanedKindClusters(() => false)).toEqual([])
    expect(recorded.warnings).toEqual([])
  })
})

process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))
