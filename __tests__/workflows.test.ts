import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

// The example workflows are what users copy. A job whose token can write
// the repository's contents or issues must never build or run the
// repository's code: that code (a pull request's, or a commit on main that
// a trend bisects) could read the token from the runner. Such a job checks
// out nothing, runs no shell step, and uses perfgate only in the modes that
// run no repository code (publish and comment).

const root = path.resolve(import.meta.dirname, '..')
const examples = path.join(root, 'examples/workflows')

type Permissions = string | Record<string, string> | undefined
interface Step {
  uses?: string
  run?: string
  with?: Record<string, unknown>
}
interface Job {
  permissions?: Permissions
  steps?: Step[]
}
interface Workflow {
  permissions?: Permissions
  jobs: Record<string, Job>
}

/** WRITE_SCOPES are the scopes that let code change what the repository holds or says. */
const WRITE_SCOPES = ['contents', 'issues']

/** writes lists the write scopes of WRITE_SCOPES a job's token has; unset permissions are the repository default, which may write. */
export function writes(job: Job, workflow: Workflow): string[] {
  const permissions = job.permissions ?? workflow.permissions
  if (permissions === undefined) return ['(default token permissions)']
  if (typeof permissions === 'string') return permissions === 'read-all' ? [] : [permissions]
  return WRITE_SCOPES.filter((scope) => permissions[scope] === 'write')
}

/** runsRepositoryCode says which step of a job builds or runs the repository's code, or ''. */
export function runsRepositoryCode(job: Job): string {
  for (const [i, step] of (job.steps ?? []).entries()) {
    const uses = step.uses ?? ''
    if (step.run !== undefined) return `step ${i + 1} runs a shell command`
    if (uses.startsWith('actions/checkout@')) return `step ${i + 1} checks out the repository`
    if (uses.startsWith('perfgate/perfgate@')) {
      const mode = typeof step.with?.mode === 'string' ? step.with.mode : 'gate'
      if (mode !== 'publish' && mode !== 'comment') return `step ${i + 1} runs perfgate in mode ${mode}`
    } else if (!uses.startsWith('actions/setup-go@')) {
      return `step ${i + 1} uses ${uses || 'an unknown action'}`
    }
  }
  return ''
}

const files = readdirSync(examples).filter((f) => f.endsWith('.yml'))

describe('the example workflows', () => {
  it.each(files)('%s: no job that can write contents or issues builds or runs repository code', (file) => {
    const workflow = parse(readFileSync(path.join(examples, file), 'utf8')) as Workflow
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const scopes = writes(job, workflow)
      if (scopes.length === 0) continue
      expect(runsRepositoryCode(job), `${file}: job ${name} can write ${scopes.join(', ')}`).toBe('')
    }
  })

  it('the check itself catches a writing job that checks out, runs a shell step or measures', () => {
    const workflow: Workflow = { permissions: {}, jobs: {} }
    const writer = (steps: Step[]): Job => ({ permissions: { contents: 'write' }, steps })
    expect(writes(writer([]), workflow)).toEqual(['contents'])
    expect(writes({ steps: [] }, { jobs: {} })).toEqual(['(default token permissions)'])
    expect(writes({ permissions: 'write-all' }, workflow)).toEqual(['write-all'])
    expect(writes({ permissions: { contents: 'read', 'pull-requests': 'write' } }, workflow)).toEqual([])
    expect(runsRepositoryCode(writer([{ uses: 'actions/checkout@v4' }]))).toMatch(/checks out/)
    expect(runsRepositoryCode(writer([{ run: 'make' }]))).toMatch(/shell command/)
    expect(runsRepositoryCode(writer([{ uses: 'perfgate/perfgate@v1', with: { mode: 'trend' } }]))).toMatch(/mode trend/)
    expect(runsRepositoryCode(writer([{ uses: 'perfgate/perfgate@v1' }]))).toMatch(/mode gate/)
    expect(runsRepositoryCode(writer([{ uses: 'someone/build@v1' }]))).toMatch(/uses someone\/build/)
    expect(runsRepositoryCode(writer([{ uses: 'actions/setup-go@v5' }, { uses: 'perfgate/perfgate@v1', with: { mode: 'publish' } }]))).toBe(
      '',
    )
  })

  it('the nightly measures with a token that only reads and publishes in a job of its own', () => {
    const workflow = parse(readFileSync(path.join(examples, 'nightly.yml'), 'utf8')) as Workflow
    const modes = (job: Job): string[] =>
      (job.steps ?? [])
        .filter((s) => s.uses?.startsWith('perfgate/perfgate@'))
        .map((s) => (typeof s.with?.mode === 'string' ? s.with.mode : 'gate'))
    const jobs = Object.values(workflow.jobs)
    const measuring = jobs.find((j) => modes(j).includes('trend'))
    const publishing = jobs.find((j) => modes(j).includes('publish'))
    expect(measuring && modes(measuring)).toEqual(['record', 'trend'])
    expect(measuring?.permissions).toEqual({ contents: 'read' })
    expect(publishing?.permissions).toMatchObject({ contents: 'write', issues: 'write' })
  })
})

// What users copy names perfgate by a commit SHA, which cannot be moved
// (a tag can), with a comment that says what the commit is: a release
// (# vX.Y.Z) or, before the first release, a commit of main that is not
// one. scripts/pin-action.sh writes these lines; the release workflow runs
// it with the released commit.
describe('the perfgate pin users copy', () => {
  const copied = [
    'README.md',
    'engine/internal/initconfig/workflow.go',
    ...readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
    ...files.map((f) => `examples/workflows/${f}`),
  ]
  const pins = copied.flatMap((file) =>
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .map((line, i) => ({ where: `${file}:${i + 1}`, line }))
      .filter(({ line }) => /^\s*(- )?uses: perfgate\/perfgate@/.test(line)),
  )
  const PIN =
    /^\s*(- )?uses: perfgate\/perfgate@([0-9a-f]{40}) # (v\d+\.\d+\.\d+|unreleased commit of main, not a release \(docs\/versioning\.md\))$/

  it('is in the README, every example workflow and the workflow perfgate init writes', () => {
    const where = new Set(pins.map((p) => p.where.split(':')[0]))
    for (const file of ['README.md', 'engine/internal/initconfig/workflow.go', ...files.map((f) => `examples/workflows/${f}`)]) {
      expect(where, file).toContain(file)
    }
  })

  it('is a 40-hex commit SHA with a comment saying which release it is, or that it is none', () => {
    for (const { where, line } of pins) expect(line, where).toMatch(PIN)
  })

  it('names one commit everywhere, and a commit of this repository', () => {
    const pinned = new Set(pins.map(({ line }) => line.match(PIN)?.slice(2).join(' ')))
    expect([...pinned]).toHaveLength(1)
    const sha = [...pinned][0]!.split(' ')[0]
    const shallow = spawnSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: root, encoding: 'utf8' })
    if (shallow.status !== 0 || shallow.stdout.trim() !== 'false') return // no history to look in (a shallow CI checkout)
    expect(spawnSync('git', ['cat-file', '-e', `${sha}^{commit}`], { cwd: root }).status, `${sha} is not a commit of this repository`).toBe(
      0,
    )
  })
})
