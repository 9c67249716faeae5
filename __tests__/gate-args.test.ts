import { describe, expect, it } from 'vitest'
import { getInputs } from '../src/inputs.js'
import { gateArgs } from '../src/main.js'

const at = { config: 'perfgate.yml', baseSha: 'b'.repeat(40), workdir: '/w/svc', workspace: '/w', resultsDir: '/w/svc/results' }

describe('gateArgs', () => {
  it('builds both sides by default, and tells the engine fail-on', () => {
    const inputs = getInputs((name) => ({ 'fail-on': 'inconclusive' })[name] ?? '')
    expect(gateArgs(inputs, at)).toEqual([
      'gate',
      '--config',
      'perfgate.yml',
      '--base',
      'b'.repeat(40),
      '--head',
      '/w/svc',
      '--out',
      '/w/svc/results',
      '--fail-on',
      'inconclusive',
    ])
  })

  it('hands prebuilt binaries over as absolute paths in the workspace', () => {
    const inputs = getInputs((name) => ({ 'base-binary': 'out/base/server', 'head-binary': 'out/head/server' })[name] ?? '')
    expect(gateArgs(inputs, at).slice(-4)).toEqual(['--base-binary', '/w/out/base/server', '--head-binary', '/w/out/head/server'])
  })
})
