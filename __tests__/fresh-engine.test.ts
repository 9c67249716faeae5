import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { recorded, reset } from './support/core-fake.js'
import { writeStandInEngine } from './support/stand-in-engine.js'

// Modes record and trend with a stand-in engine: this action's root is
// replaced by one whose engine sources log the binary that ran and its
// arguments. A binary planted where the cached build is kept (the tool
// cache, which actions/cache restores) must never be what runs.
const fake = vi.hoisted(() => {
  // @actions/github reads the event when it is imported: mode record's run() sees a nightly.
  process.env.GITHUB_EVENT_NAME = 'schedule'
  process.env.GITHUB_REPOSITORY = 'acme/shop'
  process.env.GITHUB_SHA = 'c'.repeat(40)
  return { root: '' }
})
vi.mock('@actions/core', () => import('./support/core-fake.js'))
vi.mock('../src/paths.js', async (original) => ({ ...(await original<typeof import('../src/paths.js')>()), actionRoot: () => fake.root }))

const { buildEngine } = await import('../src/engine.js')
const { describeEvent } = await import('../src/event.js')
const { getInputs } = await import('../src/inputs.js')
const { runTrend, MAX_TREND_GATES } = await import('../src/trend.js')
const { run } = await import('../src/main.js')

const saved = { ...process.env }
let tmp: string
let log: string
let planted: string

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-fresh-engine-'))
  fake.root = path.join(tmp, 'action')
  writeStandInEngine(
    fake.root,
    `package main

import (
	"os"
	"path/filepath"
	"strings"
)

func main() {
	f, _ := os.OpenFile(os.Getenv("STANDIN_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	f.WriteString("ran " + os.Args[0] + " " + strings.Join(os.Args[1:], " ") + "\\n")
	f.Close()
	for i, a := range os.Args {
		if a == "--out" && os.Args[1] == "trend" {
			os.MkdirAll(os.Args[i+1], 0o755)
			os.WriteFile(filepath.Join(os.Args[i+1], "trend.json"), []byte(\`{"schema":1,"config":"perfgate","alarm":{"state":"none","title":""}}\`), 0o644)
		}
	}
}
`,
  )
  log = path.join(tmp, 'engine.log')
  Object.assign(process.env, {
    RUNNER_TEMP: path.join(tmp, 'runner-temp'),
    RUNNER_TOOL_CACHE: path.join(tmp, 'tool-cache'),
    GITHUB_WORKSPACE: path.join(tmp, 'workspace'),
    GITHUB_STEP_SUMMARY: path.join(tmp, 'summary.md'),
    STANDIN_LOG: log,
  })
  mkdirSync(process.env.RUNNER_TEMP!, { recursive: true })
  mkdirSync(path.join(process.env.GITHUB_WORKSPACE!, 'history'), { recursive: true })
  writeFileSync(process.env.GITHUB_STEP_SUMMARY!, '')
  // What an earlier job left in the tool cache (or saved under the cache
  // key): the cached build, replaced by a binary of its own.
  planted = (await buildEngine(fake.root, path.join(process.env.RUNNER_TOOL_CACHE!, 'perfgate'))).path
  writeFileSync(planted, `#!/bin/sh\necho "ran planted $*" >> "$STANDIN_LOG"\n`)
  chmodSync(planted, 0o755)
}, 120_000)
afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
  Object.assign(process.env, saved)
  rmSync(tmp, { recursive: true, force: true })
})
beforeEach(() => {
  reset()
  rmSync(log, { force: true })
})

const ran = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [])
const schedule = describeEvent({
  eventName: 'schedule',
  repo: { owner: 'acme', repo: 'shop' },
  sha: 'c'.repeat(40),
  payload: { schedule: '0 3 * * *', repository: { default_branch: 'main' } },
})

describe('modes record and trend run only an engine this step built', () => {
  it('trend builds a fresh engine, not the one in the tool cache, and bounds the gates of the run', async () => {
    // No artifact service here: the upload fails after the engine ran.
    await expect(
      runTrend(
        getInputs((n) => ({ mode: 'trend', history: 'history' })[n] ?? ''),
        schedule,
      ),
    ).rejects.toThrow(/Uploading the results/)
    const lines = ran()
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain('planted')
    expect(lines[0].startsWith(`ran ${process.env.RUNNER_TEMP}${path.sep}perfgate-engine-`)).toBe(true)
    expect(lines[0]).toContain(`--confirm --budget 3 --max-gates ${MAX_TREND_GATES}`)
  }, 120_000)

  it('record builds a fresh engine, not the one in the tool cache', async () => {
    recorded.inputs = { mode: 'record', history: 'none', 'pair-with': 'none' }
    await run()
    expect(recorded.failed.join('\n')).toMatch(/Uploading the results/)
    const lines = ran()
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain('planted')
    expect(lines[0].startsWith(`ran ${process.env.RUNNER_TEMP}${path.sep}perfgate-engine-`)).toBe(true)
    expect(lines[0]).toMatch(/ run --config /)
  }, 120_000)
})
