import { describe, expect, it } from 'vitest'
import { getInputs } from '../src/inputs.js'

const read = (values: Record<string, string>) => (name: string) => values[name] ?? ''

describe('getInputs', () => {
  it('applies the defaults', () => {
    expect(getInputs(read({ token: 't' }))).toEqual({
      config: 'perfgate.yml',
      baseRef: '',
      target: '',
      token: 't',
      comment: 'auto',
      failOn: 'regression',
      mode: 'gate',
      artifactName: 'perfgate-results',
      workingDirectory: '.',
      allowUnsafePullRequestTarget: false,
      history: { kind: 'branch' },
      historyBranch: 'perfgate-data',
      confirm: true,
      confirmBudget: 3,
      pairWith: 'last',
      acceptLabel: '',
      acceptBots: [],
      prebuilt: undefined,
    })
  })

  it('reads base-binary and head-binary: both or neither, workspace-relative, mode gate only', () => {
    expect(getInputs(read({ 'base-binary': 'bin/base', 'head-binary': 'bin/head' })).prebuilt).toEqual({
      base: 'bin/base',
      head: 'bin/head',
    })
    expect(() => getInputs(read({ 'base-binary': 'bin/base' }))).toThrow(
      /Invalid 'base-binary' and 'head-binary': "bin\/base" and ""\. Expected both \(two binaries built the same way\) or neither/,
    )
    expect(() => getInputs(read({ 'base-binary': '/usr/bin/base', 'head-binary': '../head' }))).toThrow(
      /Invalid 'base-binary': "\/usr\/bin\/base"\. Expected a path relative to the workspace[^\n]*\nInvalid 'head-binary': "\.\.\/head"/,
    )
    expect(() => getInputs(read({ mode: 'record', 'base-binary': 'a', 'head-binary': 'b' }))).toThrow(
      /Invalid 'base-binary' and 'head-binary' with mode "record"\. Expected them only with mode gate\./,
    )
  })

  it('reads accept-bots: app logins separated by commas or new lines', () => {
    expect(getInputs(read({ 'accept-bots': 'renovate[bot], dependabot[bot]\nmy-app\n' })).acceptBots).toEqual([
      'renovate[bot]',
      'dependabot[bot]',
      'my-app',
    ])
    expect(() => getInputs(read({ 'accept-bots': 'renovate[bot], -x, a b' }))).toThrow(
      /Invalid 'accept-bots': "-x", "a b"\. Expected app logins such as renovate\[bot\]/,
    )
  })

  it('reads accept-label: a label name, or empty to turn acceptance off', () => {
    expect(getInputs(read({ 'accept-label': 'perfgate:accept' })).acceptLabel).toBe('perfgate:accept')
    expect(getInputs(read({ 'accept-label': ' perf ok 🚀 ' })).acceptLabel).toBe('perf ok 🚀')
    expect(getInputs(read({ 'accept-label': '' })).acceptLabel).toBe('')
    expect(() => getInputs(read({ 'accept-label': 'x'.repeat(51) }))).toThrow(
      /Invalid 'accept-label': "x{51}"\. Expected a label name of at most 50 characters/,
    )
    expect(() => getInputs(read({ 'accept-label': 'a\u0007b' }))).toThrow(/Invalid 'accept-label'/)
  })

  it('reads the history inputs: none, a directory, a branch name, confirmation', () => {
    expect(getInputs(read({ history: 'none' })).history).toEqual({ kind: 'none' })
    expect(getInputs(read({ history: '/var/perf/history' })).history).toEqual({ kind: 'directory', path: '/var/perf/history' })
    expect(getInputs(read({ history: './branch' })).history).toEqual({ kind: 'directory', path: './branch' })
    expect(getInputs(read({ 'history-branch': 'data/perf', confirm: 'false', 'confirm-budget': '7', mode: 'trend' }))).toMatchObject({
      historyBranch: 'data/perf',
      confirm: false,
      confirmBudget: 7,
      mode: 'trend',
    })
  })

  it('reads every input', () => {
    const inputs = getInputs(
      read({
        config: 'bench/perfgate.yml',
        'base-ref': 'origin/main',
        target: 'docker',
        comment: 'on-regression',
        'fail-on': 'inconclusive',
        mode: 'record',
        'artifact-name': 'perf',
        'working-directory': 'services/api',
        'allow-unsafe-pull-request-target': 'true',
      }),
    )
    expect(inputs).toMatchObject({
      config: 'bench/perfgate.yml',
      baseRef: 'origin/main',
      target: 'docker',
      comment: 'on-regression',
      failOn: 'inconclusive',
      mode: 'record',
      artifactName: 'perf',
      workingDirectory: 'services/api',
      allowUnsafePullRequestTarget: true,
    })
  })

  it.each([
    ['mode', 'bench', `Invalid 'mode': "bench". Expected one of gate, record, trend, comment, publish.`],
    ['history-branch', '--orphan', `Invalid 'history-branch': "--orphan". Expected a branch name such as perfgate-data.`],
    ['history-branch', 'a..b', `Invalid 'history-branch': "a..b".`],
    ['history-branch', 'data.lock', `Invalid 'history-branch': "data.lock".`],
    ['history-branch', 'perf data', `Invalid 'history-branch': "perf data".`],
    ['confirm', 'yes', `Invalid 'confirm': "yes". Expected one of false, true.`],
    ['confirm-budget', '-1', `Invalid 'confirm-budget': "-1". Expected a whole number of paired gates from 0 to 20.`],
    ['confirm-budget', '2.5', `Invalid 'confirm-budget': "2.5".`],
    ['confirm-budget', '21', `Invalid 'confirm-budget': "21".`],
    ['comment', 'sometimes', `Invalid 'comment': "sometimes". Expected one of auto, always, never, on-regression.`],
    ['fail-on', 'error', `Invalid 'fail-on': "error". Expected one of regression, inconclusive, never.`],
    ['target', 'lambda', `Invalid 'target': "lambda". Expected one of local, docker, kind, kubernetes, or empty for the config's target.`],
    ['base-ref', '--upload-pack=evil', `Invalid 'base-ref': "--upload-pack=evil". Expected a branch, tag or commit SHA`],
    ['base-ref', 'main..feature', `Invalid 'base-ref': "main..feature".`],
    [
      'pair-with',
      '--output=x',
      `Invalid 'pair-with': "--output=x". Expected a branch, tag or commit SHA such as main or 4b825dc, not starting with '-', or last or none.`,
    ],
    ['config', '../../etc/passwd', `Invalid 'config': "../../etc/passwd". Expected a path relative to the workspace, without '..'.`],
    ['working-directory', '/srv', `Invalid 'working-directory': "/srv". Expected a path relative to the workspace`],
    ['artifact-name', 'perf/results', `Invalid 'artifact-name': "perf/results". Expected at most 200 characters without "/".`],
    ['allow-unsafe-pull-request-target', 'yes', `Invalid 'allow-unsafe-pull-request-target': "yes". Expected one of false, true.`],
  ])('names the input, the value and what is allowed: %s=%s', (name, value, message) => {
    expect(() => getInputs(read({ [name]: value }))).toThrow(message)
  })

  it('reports every bad input at once', () => {
    expect(() => getInputs(read({ mode: 'x', comment: 'y' }))).toThrow(/'comment'[\s\S]*'mode'/)
  })

  it('accepts revisions git understands', () => {
    for (const ref of ['main', 'origin/main', 'v1.2.3', 'HEAD~1', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'release/2026-11']) {
      expect(getInputs(read({ 'base-ref': ref })).baseRef).toBe(ref)
    }
  })
})

describe('engineEnvironment', () => {
  it("keeps the runner's environment but not the token or the runtime credentials", async () => {
    const { engineEnvironment } = await import('../src/perfgate.js')
    const env = engineEnvironment({
      PATH: '/usr/bin',
      HOME: '/root',
      GOFLAGS: '-mod=mod',
      INPUT_TOKEN: 'ghs_secret',
      ACTIONS_RUNTIME_TOKEN: 'x',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'y',
      ACTIONS_ID_TOKEN_REQUEST_URL: 'z',
      GITHUB_TOKEN: 'ghs',
      GITHUB_SHA: 'abc',
    })
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/root', GOFLAGS: '-mod=mod', GITHUB_SHA: 'abc' })
  })
})
