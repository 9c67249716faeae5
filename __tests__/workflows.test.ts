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
