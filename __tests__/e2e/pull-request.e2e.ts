import { execFileSync, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeGitHub } from '../support/fake-github.js'

// The real action (src/main.ts and src/post.ts, run by @github/local-action)
// on a pull_request event: a repository whose feature branch plants a
// per-request fmt.Sprintf in the example service, checked out shallow like
// actions/checkout does. The engine is built from engine/, the service is
// measured under cgroup limits, and the comment goes to the fake GitHub API.
const actionRoot = path.resolve(import.meta.dirname, '../..')
const localAction = path.join(actionRoot, 'node_modules/.bin/local-action')
const experiment = `version: 1
service:
  package: ./cmd/server
  args: ["-addr", "{addr}"]
load:
  rate: 200
  warmup: 1s
  duration: 1s
  requests:
    - GET /search?q=alpha
    - GET /search?q=steel
    - method: POST
      path: /order
      headers: {Content-Type: application/json}
      body: '{"id":1,"qty":2}'
pairs: 6
gate:
  alpha: 0.1
validity:
  min_cpu_samples: 0
`

let tmp: string
let gh: FakeGitHub
let headSha: string
let workspace: string

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CEILING_DIRECTORIES: tmpdir() } }).trim()

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-action-e2e-'))
  const origin = path.join(tmp, 'origin')
  cpSync(path.join(actionRoot, 'examples/service'), origin, { recursive: true })
  writeFileSync(path.join(origin, 'perfgate.yml'), experiment)
  git(origin, 'init', '-q', '-b', 'main')
  git(origin, 'add', '-A')
  git(origin, 'commit', '-q', '-m', 'the example service')
  git(origin, 'checkout', '-q', '-b', 'feature')
  git(origin, 'apply', path.join(actionRoot, 'examples/regressions/alloc-sprintf.patch'))
  git(origin, 'commit', '-q', '-am', 'search: trace results')
  headSha = git(origin, 'rev-parse', 'HEAD')
  workspace = path.join(tmp, 'workspace')
  git(tmp, 'clone', '-q', '--depth=1', '--branch', 'feature', `file://${origin}`, workspace)

  gh = new FakeGitHub()
  await gh.start()
  gh.pulls = [{ number: 7, headSha, headRepo: 'acme/shop', state: 'open' }]
}, 120_000)

afterAll(async () => {
  await gh?.stop()
  rmSync(tmp, { recursive: true, force: true })
})

/** runAction runs main and post through local-action and returns its output. */
async function runAction(attempt: number): Promise<{ output: string; artifacts: string[] }> {
  const run = path.join(tmp, `attempt-${attempt}`)
  for (const dir of [path.join(run, 'artifacts'), path.join(run, 'runner'), path.join(tmp, 'cache'), path.join(tmp, 'tools')]) mkdirSync(dir, { recursive: true })
  const event = path.join(run, 'event.json')
  writeFileSync(
    event,
    JSON.stringify({
      action: 'synchronize',
      number: 7,
      pull_request: { number: 7, head: { sha: headSha, ref: 'feature', repo: { full_name: 'acme/shop' } }, base: { ref: 'main', repo: { full_name: 'acme/shop' } } },
      repository: { full_name: 'acme/shop', name: 'shop', owner: { login: 'acme' } }
    })
  )
  const env: Record<string, string> = {
    INPUT_CONFIG: 'perfgate.yml',
    INPUT_TOKEN: 't0ken',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_SHA: headSha,
    GITHUB_WORKSPACE: workspace,
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: String(attempt),
    RUNNER_TEMP: path.join(run, 'runner'),
    RUNNER_TOOL_CACHE: path.join(tmp, 'tools'),
    // local-action's cache stand-in writes its tar manifest here: keep it out of the checkout.
    LOCAL_ACTION_WORKSPACE: path.join(run, 'runner'),
    LOCAL_ACTION_ARTIFACT_PATH: path.join(run, 'artifacts'),
    LOCAL_ACTION_CACHE_PATH: path.join(tmp, 'cache')
  }
  const dotenv = path.join(run, '.env')
  writeFileSync(dotenv, Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('\n') + '\n')
  const output = await new Promise<string>((resolve, reject) => {
    // local-action ignores GITHUB_API_URL from the .env file: it must be in the environment.
    const child = spawn(localAction, ['run', actionRoot, 'src/main.ts', dotenv, '--post', 'src/post.ts'], {
      // local-action finds its own tsx through npm exec, from the action's directory.
      cwd: actionRoot,
      env: { ...process.env, ...env, GITHUB_API_URL: gh.url, NO_COLOR: '1', FORCE_COLOR: '0' }
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('close', () => resolve(out))
  })
  return { output, artifacts: readdirSync(path.join(run, 'artifacts')) }
}

describe('the action on a pull request with a planted regression', () => {
  it('fails the step, keeps the results, and writes one comment; a second run updates it', async () => {
    const first = await runAction(1)
    // local-action exits 0 even when the action fails: read what it printed.
    expect(first.output, first.output).toMatch(/performance regression: .*allocs \+/)
    expect(first.output).toMatch(/verdict[^\n]*regression/)
    expect(first.artifacts).toEqual(['perfgate-results-attempt-1.zip'])
    const comments = gh.comments.get(7) ?? []
    expect(comments).toHaveLength(1)
    expect(comments[0].body.split('\n')[0]).toBe('<!-- perfgate:report config=perfgate.yml -->')
    expect(comments[0].body).toContain('perfgate: regression')
    expect(comments[0].body).toContain('httpapi\\.\\(\\*Server\\)\\.handleSearch')
    expect(git(workspace, 'status', '--porcelain')).toBe('')
    expect(gh.count('issues/create-comment')).toBe(1)
    const id = comments[0].id

    const second = await runAction(2)
    expect(second.output).toMatch(/performance regression/)
    expect(second.output).toMatch(/perfgate engine: .*from cache|perfgate engine: .*built/)
    expect(second.artifacts).toEqual(['perfgate-results-attempt-2.zip'])
    expect(gh.comments.get(7)?.map((c) => c.id)).toEqual([id])
    expect(gh.count('issues/create-comment')).toBe(1)
    expect(gh.count('issues/update-comment')).toBe(1)
    expect(gh.problems).toEqual([])
    expect(existsSync(path.join(workspace, 'results'))).toBe(false)
  })
})
