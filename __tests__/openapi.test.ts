import { describe, expect, it } from 'vitest'
import { checkRequest, checkResponse, sample } from './support/openapi.js'

// The fake API is only as strict as this check: show that it rejects what
// GitHub would.
describe("the fake API's check against GitHub's REST description", () => {
  it('accepts a documented request', () => {
    const { op, problems } = checkRequest('POST', '/repos/acme/shop/issues/7/comments', new URLSearchParams(), { body: 'hi' })
    expect(problems).toEqual([])
    expect(op?.operationId).toBe('issues/create-comment')
  })

  it('rejects an unknown route, a wrong body, a bad parameter and an undocumented query', () => {
    expect(checkRequest('GET', '/repos/acme/shop/no-such-thing', new URLSearchParams(), undefined).problems[0]).toContain('not in GitHub')
    expect(checkRequest('POST', '/repos/acme/shop/issues/7/comments', new URLSearchParams(), { body: 42 }).problems.join()).toContain(
      'body',
    )
    expect(checkRequest('POST', '/repos/acme/shop/issues/7/comments', new URLSearchParams(), undefined).problems.join()).toContain(
      'missing JSON body',
    )
    expect(checkRequest('GET', '/repos/acme/shop/pulls/seven', new URLSearchParams(), undefined).problems.join()).toContain('pull_number')
    expect(
      checkRequest(
        'GET',
        '/repos/acme/shop/issues/7/comments',
        new URLSearchParams({ per_page: '100', sort: 'x' }),
        undefined,
      ).problems.join(),
    ).toContain('undocumented query parameter sort')
  })

  it("checks the fake's own answers", () => {
    const { op } = checkRequest('GET', '/repos/acme/shop/pulls/7', new URLSearchParams(), undefined)
    expect(checkResponse(op!, 200, sample('pulls/get'))).toEqual([])
    expect(checkResponse(op!, 200, { number: 7 }).join()).toContain('pulls/get 200 answer')
  })
})
