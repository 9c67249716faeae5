import { afterEach, describe, expect, it } from 'vitest'
import { linkFlags } from '../src/trend.js'

const event = { owner: 'acme', repo: 'shop' } as Parameters<typeof linkFlags>[0]

describe('linkFlags', () => {
  afterEach(() => {
    delete process.env.GITHUB_RUN_ID
    delete process.env.GITHUB_SERVER_URL
  })

  it('passes the repository, the artifact, the run and the server the alarm links to', () => {
    process.env.GITHUB_RUN_ID = '12345'
    process.env.GITHUB_SERVER_URL = 'https://ghe.example.com'
    expect(linkFlags(event, 'perfgate-results-trend-attempt-1')).toEqual([
      '--artifact-name',
      'perfgate-results-trend-attempt-1',
      '--repository',
      'acme/shop',
      '--run-id',
      '12345',
      '--server-url',
      'https://ghe.example.com',
    ])
  })

  it('leaves out a run ID or server that is not one', () => {
    process.env.GITHUB_RUN_ID = '12; rm -rf /'
    process.env.GITHUB_SERVER_URL = 'javascript:alert(1)'
    expect(linkFlags(event, 'a')).toEqual(['--artifact-name', 'a', '--repository', 'acme/shop'])
  })
})
