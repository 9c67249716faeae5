import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { extractReport } from '../../src/untrusted-results.js'
import { FakeGitHub } from '../support/fake-github.js'
import { git } from '../support/git.js'
import { actionRoot, runAction } from '../support/local-action.js'

// A new user's path, on a service we did not write (issue 22): go-httpbin,
// as the Go module proxy serves it, gets its perfgate.yml and workflow from
// `perfgate init` alone, unedited, and a pull request that plants work in
// one handler is gated by the real action (local-action, the fake GitHub
// API) with the inputs of the workflow init wrote: its defaults. The test
// prints how long each step took. It measures a whole default gate (3 to 6
// minutes on 2 cores), so it runs only when asked, with the module in the
// module cache:
//
//   (cd engine && go mod download github.com/mccutchen/go-httpbin/v2@v2.15.0)
//   PERFGATE_ADOPTION=1 npx vitest run --config vitest.e2e.config.ts __tests__/e2e/adoption.e2e.ts   # as root
//
// PERFGATE_ADOPTION_GO=go1.22.12 puts that Go first on the action's PATH,
// as a team's setup-go with an older Go would: the engine (which needs the
// Go its go.mod pins) must still build, with the pinned toolchain Go
// downloads itself, and say so; the service builds with the team's Go.
const httpbin = path.join(
  execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim(),
  'github.com/mccutchen/go-httpbin/v2@v2.15.0',
)
const wanted = process.env.PERFGATE_ADOPTION === '1'
const teamGo = process.env.PERFGATE_ADOPTION_GO ?? ''

/** goBin is the bin directory of Go version, which the go command downloads (from the module proxy) if it must. */
function goBin(version: string): string {
  const root = execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8', env: { ...process.env, GOTOOLCHAIN: version } }).trim()
  return path.join(root, 'bin')
}

// The planted change: 64 allocations of 512 bytes in GET /get, kept alive
// past the handler so the compiler cannot drop them.
const getHandler = 'func (h *HTTPBin) Get(w http.ResponseWriter, r *http.Request) {\n'
const planted =
  getHandler +
  '\tbufs := make([][]byte, 0, 64)\n\tfor i := 0; i < 64; i++ {\n\t\tbufs = append(bufs, make([]byte, 512))\n\t}\n\tplantedSink = bufs\n'

let tmp: string | undefined
let gh: FakeGitHub | undefined
afterAll(async () => {
  await gh?.stop()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

describe.runIf(wanted)('a new user gates go-httpbin with what perfgate init wrote', () => {
  it('init writes the files, and the action gates a pull request and comments', async () => {
    expect(existsSync(httpbin), `${httpbin} is not in the module cache: go mod download github.com/mccutchen/go-httpbin/v2@v2.15.0`).toBe(
      true,
    )
    const started = Date.now()
    tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-adoption-'))
    const origin = path.join(tmp, 'origin')
    cpSync(httpbin, origin, { recursive: true })
    execFileSync('chmod', ['-R', 'u+w', origin])
    chmodSync(origin, 0o755)
    git(origin, 'init', '-q', '-b', 'main')

    // Step 1 of the README: perfgate init, nothing edited after it.
    const initStarted = Date.now()
    // Awaited, not execFileSync: a cold `go run` compiles perfgate for
    // minutes, and a worker blocked past vitest's 60 s limit on its calls
    // to the main process fails the run (CONTRIBUTING.md).
    const { stdout: said } = await promisify(execFile)('go', ['run', './cmd/perfgate', 'init', '--dir', origin, '--write'], {
      cwd: path.join(actionRoot, 'engine'),
      encoding: 'utf8',
    })
    const initSeconds = (Date.now() - initStarted) / 1000
    expect(existsSync(path.join(origin, 'perfgate.yml'))).toBe(true)
    expect(existsSync(path.join(origin, '.github/workflows/perfgate.yml'))).toBe(true)
    git(origin, 'add', '-A')
    git(origin, 'commit', '-q', '-m', 'go-httpbin v2.15.0 with what perfgate init wrote')

    // The pull request.
    git(origin, 'checkout', '-q', '-b', 'feature')
    const handlers = path.join(origin, 'httpbin/handlers.go')
    const source = readFileSync(handlers, 'utf8')
    expect(source, 'go-httpbin changed its Get handler').toContain(getHandler)
    writeFileSync(handlers, source.replace(getHandler, planted) + '\nvar plantedSink [][]byte\n')
    git(origin, 'commit', '-q', '-am', 'get: keep 64 buffers per request')
    const headSha = git(origin, 'rev-parse', 'HEAD')
    const workspace = path.join(tmp, 'workspace')
    git(tmp, 'clone', '-q', '--depth=1', '--branch', 'feature', `file://${origin}`, workspace)

    gh = new FakeGitHub()
    await gh.start()
    gh.pulls = [{ number: 7, headSha, headRepo: 'acme/httpbin', state: 'open' }]
    const actionStarted = Date.now()
    const result = await runAction(
      { tmp, gh, workspace, sha: headSha },
      {
        name: 'adoption',
        env: teamGo ? { PATH: `${goBin(teamGo)}:${process.env.PATH}` } : undefined,
        payload: {
          action: 'synchronize',
          number: 7,
          pull_request: {
            number: 7,
            head: { sha: headSha, ref: 'feature', repo: { full_name: 'acme/httpbin' } },
            base: { ref: 'main', repo: { full_name: 'acme/httpbin' } },
          },
          repository: { full_name: 'acme/httpbin', name: 'httpbin', owner: { login: 'acme' } },
        },
      },
    )
    const actionSeconds = (Date.now() - actionStarted) / 1000
    const comments = gh.comments.get(7) ?? []
    console.log(
      `perfgate init: ${initSeconds.toFixed(0)} s; the action (engine, builds, gate, comment): ${actionSeconds.toFixed(0)} s; ` +
        `in all ${((Date.now() - started) / 1000).toFixed(0)} s\n--- what init said ---\n${said}\n--- the comment ---\n${comments[0]?.body ?? '(none)'}`,
    )
    expect(result.output).not.toMatch(/go: .*requires go|toolchain not available/)
    if (teamGo) {
      expect(result.output).toMatch(new RegExp(`pinned by the engine's go\\.mod \\(the runner's ${teamGo.replaceAll('.', '\\.')} is older`))
      const zip = readFileSync(path.join(result.dir, 'artifacts', 'perfgate-results-attempt-1.zip'))
      const report = JSON.parse(new TextDecoder().decode(extractReport(zip))) as { build: { head: { build_info: string } } }
      // go version -m's first line: "<binary>: go1.22.12".
      expect(report.build.head.build_info.split('\n')[0], "the service is built with the team's Go").toMatch(new RegExp(`: ${teamGo}$`))
    }
    expect(comments, result.output).toHaveLength(1)
    expect(comments[0].body).toMatch(/### (❌|✅|❔) perfgate: (regression|pass|inconclusive)/)
    expect(gh.problems).toEqual([])
  })
})
