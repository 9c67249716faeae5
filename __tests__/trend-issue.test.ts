import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createOctokit } from '../src/octokit.js'
import { AlarmRefused, raiseAlarm, RESOLVED_COMMENT, TREND_LABEL, trendMarker, type Alarm } from '../src/trend-issue.js'
import { FakeGitHub } from './support/fake-github.js'

const marker = trendMarker('perfgate')
const runUrl = 'https://github.com/acme/shop/actions/runs/42'
const repository = { owner: 'acme', repo: 'shop' }

let gh: FakeGitHub
beforeEach(async () => {
  gh = new FakeGitHub()
  await gh.start()
  process.env.GITHUB_API_URL = gh.url
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

const alarm = (over: Partial<Alarm> = {}): Alarm => ({
  config: 'perfgate',
  state: 'open',
  title: 'perfgate: cpu +12% at 1a2b3c4d5e6f (perfgate)',
  body: `${marker}\n### A confirmed step\n\ncpu/req +12%`,
  ...over,
})
const raise = (a: Alarm) => raiseAlarm(createOctokit('t0ken'), repository, a, runUrl)
const writes = () => gh.count('issues/create') + gh.count('issues/update') + gh.count('issues/create-comment')
const ours = (over: Partial<Parameters<FakeGitHub['addIssue']>[0]> = {}) =>
  gh.addIssue({ title: 'old', body: `${marker}\nold step`, state: 'open', login: 'github-actions[bot]', labels: [TREND_LABEL], ...over })

describe('raiseAlarm', () => {
  it('does nothing, not even a lookup, when the state is none', async () => {
    expect(await raise(alarm({ state: 'none' }))).toMatchObject({ action: 'none' })
    expect(gh.requests).toHaveLength(0)
  })

  it('creates one labelled issue with the title and the body as given', async () => {
    const outcome = await raise(alarm())
    expect(outcome).toMatchObject({ action: 'created' })
    expect(gh.issues).toHaveLength(1)
    expect(gh.issues[0]).toMatchObject({ title: alarm().title, body: alarm().body, labels: [TREND_LABEL], state: 'open' })
    expect(gh.requests.find((r) => r.operationId === 'issues/list-for-repo')?.path).toBe('/repos/acme/shop/issues')
  })

  it('updates its open issue instead of opening another', async () => {
    const open = ours()
    const outcome = await raise(alarm({ body: `${marker}\nnew numbers`, title: 'new title' }))
    expect(outcome).toEqual({ action: 'updated', number: open.number })
    expect(gh.issues).toHaveLength(1)
    expect(gh.issues[0]).toMatchObject({ body: `${marker}\nnew numbers`, title: 'new title', state: 'open' })
  })

  it('reopens the most recent closed issue when a step comes back', async () => {
    ours({ state: 'closed', stateReason: 'completed' })
    const recent = ours({ state: 'closed', stateReason: 'completed' })
    expect(await raise(alarm())).toEqual({ action: 'reopened', number: recent.number })
    expect(recent).toMatchObject({ state: 'open', stateReason: 'reopened', body: alarm().body })
    expect(gh.issues).toHaveLength(2)
  })

  it('comments and closes its open issue when a later confirmed step reversed it', async () => {
    const open = ours()
    expect(await raise(alarm({ state: 'resolved', body: '' }))).toEqual({ action: 'closed', number: open.number })
    expect(open).toMatchObject({ state: 'closed', stateReason: 'completed', body: `${marker}\nold step` })
    expect(gh.comments.get(open.number)?.[0].body).toBe(`${marker}\n${RESOLVED_COMMENT} (${runUrl}).`)
  })

  it('has nothing to close when no issue is open', async () => {
    ours({ state: 'closed' })
    expect(await raise(alarm({ state: 'resolved' }))).toMatchObject({ action: 'none' })
    expect(writes()).toBe(0)
  })

  it("finds its issue past the first page, and leaves other configs' and other people's issues alone", async () => {
    for (let i = 0; i < 120; i++) gh.addIssue({ title: `other ${i}`, body: 'x', state: 'open', login: 'someone', labels: [TREND_LABEL] })
    const mine = ours()
    for (let i = 0; i < 5; i++) gh.addIssue({ title: `later ${i}`, body: 'x', state: 'open', login: 'someone', labels: [TREND_LABEL] })
    const other = ours({ body: `${trendMarker('api')}\napi step` })
    const spoof = gh.addIssue({ title: 'spoof', body: `${marker}\ntrust me`, state: 'open', login: 'mallory', labels: [TREND_LABEL] })
    // GitHub lists the newest first: ours (older) is on page 2.
    expect(await raise(alarm())).toEqual({ action: 'updated', number: mine.number })
    expect(gh.count('issues/list-for-repo')).toBe(2)
    expect(other.body).toBe(`${trendMarker('api')}\napi step`)
    expect(spoof.body).toContain('trust me')
  })

  it("a GitHub App's token updates its own issue instead of opening one every run", async () => {
    gh.appSlug = 'perf-app'
    const created = await raise(alarm())
    expect(created).toMatchObject({ action: 'created' })
    expect(gh.issues[0].login).toBe('perf-app[bot]')
    expect(await raise(alarm({ body: `${marker}\nsecond` }))).toEqual({ action: 'updated', number: gh.issues[0].number })
    // The app's token cannot name its app: an app's issue with the label and marker is ours; a person's is not.
    gh.addIssue({ title: 'spoof', body: `${marker}\nolder, by a person`, state: 'open', login: 'mallory', labels: [TREND_LABEL] })
    expect(await raise(alarm({ body: `${marker}\nthird` }))).toEqual({ action: 'updated', number: gh.issues[0].number })
    expect(gh.issues).toHaveLength(2)
    expect(gh.count('issues/create')).toBe(1)
  })

  it('refuses a body whose first line is not the marker, and writes nothing', async () => {
    ours()
    for (const body of ['### no marker\n' + marker, `<!-- perfgate-trend: api -->\nanother config`, ` ${marker}\nindented`, '']) {
      await expect(raise(alarm({ body }))).rejects.toBeInstanceOf(AlarmRefused)
    }
    expect(writes()).toBe(0)
  })

  it('refuses a config name that would end its marker early', async () => {
    await expect(raise(alarm({ config: 'a --> <script>', body: `${trendMarker('a --> <script>')}\nx` }))).rejects.toBeInstanceOf(
      AlarmRefused,
    )
    expect(gh.requests).toHaveLength(0)
  })

  it('sends a title with Markdown and HTML as the plain text it is, on one line', async () => {
    const title = '<img src=x onerror=alert(1)> **cpu** [+12%](https://evil.example) @everyone\n#1\u0007'
    await raise(alarm({ title }))
    expect(gh.issues[0].title).toBe('<img src=x onerror=alert(1)> **cpu** [+12%](https://evil.example) @everyone #1')
  })

  it('cuts an overlong title and names the config when the title is empty', async () => {
    await raise(alarm({ title: 'x'.repeat(300) }))
    expect(gh.issues[0].title).toHaveLength(256)
    await raise(alarm({ title: '  \n ' }))
    expect(gh.issues[0].title).toBe('perfgate: a confirmed performance step in perfgate')
  })

  it('lets a 403 (no issues: write) through for the caller to warn about', async () => {
    gh.fail('POST /repos/acme/shop/issues', { status: 403, message: 'Resource not accessible by integration' })
    await expect(raise(alarm())).rejects.toMatchObject({ status: 403 })
  })
})
