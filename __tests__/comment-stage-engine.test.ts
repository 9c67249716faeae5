import { strToU8, zipSync } from 'fflate'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeGitHub } from './support/fake-github.js'
import { writeStandInEngine } from './support/stand-in-engine.js'

// Mode comment with a stand-in engine: this action's root is replaced by
// one whose engine sources print what the engine was given (its own path,
// its arguments, the secrets it could see) as the comment.
const fake = vi.hoisted(() => ({ root: '' }))
vi.mock('../src/paths.js', async (original) => ({ ...(await original<typeof import('../src/paths.js')>()), actionRoot: () => fake.root }))

const { runCommentStage } = await import('../src/comment-stage.js')
const { goVersion, sourceHash } = await import('../src/engine.js')
const { engineCacheKey } = await import('../src/engine-key.js')
const { toolDir } = await import('../src/paths.js')
const { describeEvent } = await import('../src/event.js')
const { getInputs } = await import('../src/inputs.js')

const headSha = 'f'.repeat(40)
const saved = { ...process.env }
let tmp: string
let gh: FakeGitHub

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-stage-engine-'))
  fake.root = path.join(tmp, 'action')
  writeStandInEngine(
    fake.root,
    `package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	if os.Getenv("STANDIN_REJECT_LINKS") == "1" && strings.Contains(strings.Join(os.Args, " "), "--repository") {
		fmt.Fprintln(os.Stderr, "flag provided but not defined: -repository")
		os.Exit(2)
	}
	fmt.Println("<!-- perfgate:report -->")
	fmt.Printf("binary=%s\\n", os.Args[0])
	fmt.Printf("args=%s\\n", strings.Join(os.Args[1:], " "))
	for _, kv := range os.Environ() {
		fmt.Printf("env=%s\\n", strings.SplitN(kv, "=", 2)[0])
	}
}
`,
  )
})
afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved)
  rmSync(tmp, { recursive: true, force: true })
})

beforeEach(async () => {
  gh = new FakeGitHub()
  await gh.start()
  const stamp = `${Date.now()}-${Math.random()}`
  Object.assign(process.env, {
    GITHUB_API_URL: gh.url,
    RUNNER_TEMP: path.join(tmp, 'runner-temp'),
    RUNNER_TOOL_CACHE: path.join(tmp, 'tool-cache'),
    GITHUB_STEP_SUMMARY: path.join(tmp, `summary-${stamp}.md`),
    GITHUB_OUTPUT: path.join(tmp, `output-${stamp}.txt`),
    INPUT_TOKEN: 't0ken',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_TOKEN: 'ghs_secret',
    ACTIONS_RUNTIME_TOKEN: 'runtime-secret',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc.example',
  })
  mkdirSync(process.env.RUNNER_TEMP!, { recursive: true })
  writeFileSync(process.env.GITHUB_STEP_SUMMARY!, '')
  writeFileSync(process.env.GITHUB_OUTPUT!, '')
  gh.pulls = [{ number: 7, headSha, headRepo: 'mallory/shop', state: 'open' }]
  gh.artifacts.set(42, [
    {
      id: 901,
      name: 'perfgate-results-attempt-1',
      sizeInBytes: 0,
      zip: zipSync({ 'report.json': strToU8('{"schema":1,"verdict":"pass"}') }),
    },
  ])
  gh.artifacts.get(42)![0].sizeInBytes = gh.artifacts.get(42)![0].zip.byteLength
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

const event = describeEvent({
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
      run_attempt: 2,
      conclusion: 'failure',
      pull_requests: [],
    },
  },
})
const inputs = getInputs((n) => ({ mode: 'comment', token: 't0ken', config: 'ci/perfgate.yml' })[n] ?? '')

/** comment runs the stage and returns what the stand-in engine said. */
async function comment(): Promise<{ binary: string; args: string; env: string[] }> {
  await runCommentStage(inputs, event)
  const body = (gh.comments.get(7) ?? [])[0]?.body ?? ''
  const lines = body.split('\n')
  return {
    binary: lines.find((l) => l.startsWith('binary='))?.slice('binary='.length) ?? '',
    args: lines.find((l) => l.startsWith('args='))?.slice('args='.length) ?? '',
    env: lines.filter((l) => l.startsWith('env=')).map((l) => l.slice('env='.length)),
  }
}

describe('runCommentStage runs only an engine it has just built', () => {
  it('builds into a fresh temporary directory every time, outside the tool cache, and removes it', async () => {
    const first = await comment()
    gh.comments.clear()
    const second = await comment()
    for (const { binary } of [first, second]) {
      expect(binary.startsWith(process.env.RUNNER_TEMP! + path.sep)).toBe(true)
      expect(binary.startsWith(process.env.RUNNER_TOOL_CACHE!)).toBe(false)
      expect(existsSync(path.dirname(binary))).toBe(false)
    }
    expect(first.binary).not.toBe(second.binary)
  }, 120_000)

  it('never runs an engine binary found in the tool cache', async () => {
    // What an earlier pull request's job on a self-hosted runner could leave
    // where buildEngine looks for a cached build of these sources.
    const engineDir = path.join(fake.root, 'engine')
    const planted = path.join(toolDir(), engineCacheKey(await goVersion(), await sourceHash(engineDir)), 'perfgate')
    const ran = path.join(tmp, 'planted-ran')
    mkdirSync(path.dirname(planted), { recursive: true })
    writeFileSync(planted, `#!/bin/sh\ntouch '${ran}'\necho '<!-- perfgate:report -->'\necho 'PLANTED: all good, merge it'\n`)
    chmodSync(planted, 0o755)
    try {
      const { binary } = await comment()
      const body = (gh.comments.get(7) ?? [])[0]?.body ?? ''
      expect(body).not.toContain('PLANTED')
      expect(binary.startsWith(process.env.RUNNER_TEMP! + path.sep)).toBe(true)
      expect(existsSync(ran)).toBe(false)
    } finally {
      rmSync(path.dirname(planted), { recursive: true, force: true })
    }
  }, 120_000)

  it('gives it the environment without the secrets', async () => {
    const { env } = await comment()
    expect(env).toContain('PATH')
    expect(env.filter((k) => /^(INPUT_|GITHUB_TOKEN$|ACTIONS_RUNTIME_TOKEN$|ACTIONS_ID_TOKEN_REQUEST_)/.test(k))).toEqual([])
  }, 120_000)

  it("passes the reproduce command's values and the links from the workflow, the event and the API, not the artifact", async () => {
    gh.pulls[0].baseSha = 'b'.repeat(40)
    const { args } = await comment()
    expect(args).toMatch(
      new RegExp(
        `^report --in \\S+/report\\.json --format md --reproduce-config ci/perfgate\\.yml --reproduce-head ${headSha} ` +
          `--repository acme/shop --server-url https://github\\.com --run-id 42 --run-attempt 2 ` +
          `--artifact-id 901 --artifact-name perfgate-results-attempt-1 --base-sha ${'b'.repeat(40)} --head-sha ${headSha}$`,
      ),
    )
  }, 120_000)

  it('leaves out a link value without its strict shape (the placeholder base SHA of the fake pull request)', async () => {
    process.env.GITHUB_SERVER_URL = 'https://github.com/evil path'
    const { args } = await comment()
    expect(args).not.toContain('--base-sha')
    expect(args).not.toContain('--server-url')
    expect(args).toContain('--run-id 42')
  }, 120_000)

  it('renders without the links, with a warning, when the engine refuses them', async () => {
    process.env.STANDIN_REJECT_LINKS = '1'
    try {
      const { args } = await comment()
      expect(args).toMatch(
        new RegExp(`^report --in \\S+/report\\.json --format md --reproduce-config ci/perfgate\\.yml --reproduce-head ${headSha}$`),
      )
    } finally {
      delete process.env.STANDIN_REJECT_LINKS
    }
  }, 120_000)

  it('says the regression was accepted when the pull request has the accept label, and who added it', async () => {
    gh.artifacts.get(42)![0].zip = zipSync({ 'report.json': strToU8('{"schema":1,"verdict":"regression","reason":"cpu +20%"}') })
    gh.artifacts.get(42)![0].sizeInBytes = gh.artifacts.get(42)![0].zip.byteLength
    gh.addLabel(7, 'perfgate:accept', 'alice')
    const accepting = getInputs((n) => ({ mode: 'comment', token: 't0ken', 'accept-label': 'perfgate:accept' })[n] ?? '')
    await runCommentStage(accepting, event)
    const body = (gh.comments.get(7) ?? [])[0]?.body ?? ''
    expect(body).toMatch(/^args=report .* --accepted-label perfgate:accept --accepted-by alice$/m)
    expect(gh.count('issues/list-labels-on-issue')).toBe(1)
    expect(gh.count('issues/list-events-for-timeline')).toBe(1)
  }, 120_000)
})
