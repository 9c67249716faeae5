import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { commentBody, commentMarker, fitComment, MAX_COMMENT_CHARS, upsertComment } from '../src/comment.js'
import { createOctokit } from '../src/octokit.js'
import { FakeGitHub } from './support/fake-github.js'

const marker = commentMarker('.', 'perfgate.yml')
const sha = 'a'.repeat(40)

let gh: FakeGitHub
beforeEach(async () => {
  gh = new FakeGitHub()
  await gh.start()
  process.env.GITHUB_API_URL = gh.url
  gh.pulls = [{ number: 7, headSha: sha, headRepo: 'acme/shop', state: 'open' }]
})
afterEach(async () => {
  await gh.stop()
  expect(gh.problems).toEqual([])
})

const target = { owner: 'acme', repo: 'shop', pullNumber: 7, measuredSha: sha }
const upsert = (body: string, options?: { createIfMissing: boolean }) =>
  upsertComment(createOctokit('t0ken'), target, marker, body, options)

describe('upsertComment', () => {
  it('creates one comment, then updates it instead of adding another', async () => {
    const first = await upsert(`${marker}\nfirst`)
    expect(first.action).toBe('created')
    const second = await upsert(`${marker}\nsecond`)
    expect(second).toMatchObject({ action: 'updated', id: first.action === 'created' ? first.id : 0 })
    expect(gh.comments.get(7)?.map((c) => c.body)).toEqual([`${marker}\nsecond`])
  })

  it('finds its comment on the second page of more than 100 comments', async () => {
    for (let i = 0; i < 115; i++) gh.addComment(7, `user${i}`, `comment ${i}`)
    const ours = gh.addComment(7, 'github-actions[bot]', `${marker}\nold report`)
    for (let i = 0; i < 10; i++) gh.addComment(7, `late${i}`, 'later comment')
    const outcome = await upsert(`${marker}\nnew report`)
    expect(outcome).toMatchObject({ action: 'updated', id: ours.id })
    expect(gh.count('issues/list-comments')).toBe(2)
    expect(gh.comments.get(7)).toHaveLength(126)
  })

  it('ignores a marker in a comment written by someone else', async () => {
    const spoof = gh.addComment(7, 'mallory', `${marker}\nperfgate: pass (trust me)`)
    const outcome = await upsert(`${marker}\nreal report`)
    expect(outcome.action).toBe('created')
    expect(gh.comments.get(7)?.find((c) => c.id === spoof.id)?.body).toContain('trust me')
  })

  it('uses GET /user when the token can (a personal token) to know its own comments', async () => {
    gh.login = 'perf-bot'
    gh.addComment(7, 'github-actions[bot]', `${marker}\nwritten by another workflow token`)
    const mine = gh.addComment(7, 'perf-bot', `${marker}\nmine`)
    expect(await upsert(`${marker}\nupdated`)).toMatchObject({ action: 'updated', id: mine.id })
  })

  it("a GitHub App's token, which cannot name its app (GET /app takes a JWT): the created comment names the author, and the older copy is kept", async () => {
    gh.appSlug = 'perf-app'
    const first = await upsert(`${marker}\nfirst`)
    expect(first.action).toBe('created')
    expect(gh.comments.get(7)?.[0].login).toBe('perf-app[bot]')
    const outcome = await upsert(`${marker}\nsecond`)
    expect(outcome).toMatchObject({ action: 'updated', id: first.action === 'created' ? first.id : 0, deleted: 1 })
    expect(gh.comments.get(7)?.map((c) => c.body)).toEqual([`${marker}\nsecond`])
  })

  it('keeps the oldest of two marker comments and deletes the other', async () => {
    const older = gh.addComment(7, 'github-actions[bot]', `${marker}\none`)
    gh.addComment(7, 'github-actions[bot]', `${marker}\ntwo`)
    const outcome = await upsert(`${marker}\nthree`)
    expect(outcome).toMatchObject({ action: 'updated', id: older.id, deleted: 1 })
    expect(gh.comments.get(7)?.map((c) => c.body)).toEqual([`${marker}\nthree`])
  })

  it('does not touch the comment of another config in a matrix', async () => {
    const other = commentMarker('services/api', 'perfgate.yml')
    gh.addComment(7, 'github-actions[bot]', `${other}\nthe api service`)
    expect((await upsert(`${marker}\nthis service`)).action).toBe('created')
    expect(gh.comments.get(7)).toHaveLength(2)
  })

  it('leaves the comment alone when the pull request head moved past the measured commit', async () => {
    gh.pulls[0].headSha = 'b'.repeat(40)
    const outcome = await upsert(`${marker}\nstale`)
    expect(outcome.action).toBe('skipped')
    expect(outcome.action === 'skipped' && outcome.reason).toContain('moved to bbbbbbbbbbbb')
    expect(gh.count('issues/create-comment') + gh.count('issues/update-comment')).toBe(0)
  })

  it('only updates, never creates, when asked (comment: on-regression without a regression)', async () => {
    expect((await upsert(`${marker}\npass`, { createIfMissing: false })).action).toBe('skipped')
    expect(gh.comments.get(7) ?? []).toHaveLength(0)
  })

  it('waits out a secondary rate limit (403 with retry-after) and retries', async () => {
    gh.fail('POST /repos/acme/shop/issues/7/comments', {
      status: 403,
      headers: { 'retry-after': '1' },
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
    })
    const started = Date.now()
    expect((await upsert(`${marker}\nbody`)).action).toBe('created')
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    expect(gh.count('issues/create-comment')).toBe(2)
  })

  it('retries a 502', async () => {
    gh.fail('GET /repos/acme/shop/pulls/7', { status: 502, message: 'Server Error' })
    expect((await upsert(`${marker}\nbody`)).action).toBe('created')
    expect(gh.count('pulls/get')).toBe(2)
  })

  it('does not retry a 404', async () => {
    await expect(upsertComment(createOctokit('t0ken'), { ...target, pullNumber: 99 }, marker, 'x')).rejects.toMatchObject({ status: 404 })
    expect(gh.count('pulls/get')).toBe(1)
  })

  it('posts a 70,000-character report cut to fit, with fences and details closed', async () => {
    const table = Array.from({ length: 2000 }, (_, i) => `| fn${i} | +${i} µs/req |`).join('\n')
    const details = `<details><summary>benchstat</summary>\n\n\`\`\`\n${'x'.repeat(20000)}\n\`\`\`\n\n</details>`
    const report = `<!-- perfgate:report -->\n### perfgate: regression\n\n| function | Δ |\n|---|---|\n${table}\n\n${details}\n`.padEnd(
      70000,
      '\n',
    )
    const body = commentBody(marker, report, 'See the job summary.')
    expect(report.length).toBeGreaterThanOrEqual(70000)
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS)
    expect(body.split('\n')[0]).toBe(marker)
    expect(body).toContain('This report was cut')
    expect((body.match(/```/g) ?? []).length % 2).toBe(0)
    expect((body.match(/<details>/g) ?? []).length).toBe((body.match(/<\/details>/g) ?? []).length)
    expect((await upsert(body)).action).toBe('created')
  })
})

describe('fitComment', () => {
  it('keeps a body that fits unchanged', () => {
    expect(fitComment('short', 'hint')).toBe('short')
  })

  it('never cuts inside a code fence', () => {
    const body = `intro\n\`\`\`\n${'line\n'.repeat(100)}\`\`\`\nafter`
    const cut = fitComment(body, 'hint', 300)
    expect(cut.startsWith('intro\n')).toBe(true)
    expect(cut).not.toContain('line')
    expect(cut.length).toBeLessThanOrEqual(300)
  })
})

describe('commentMarker', () => {
  it('is one per config and cannot close the HTML comment early', () => {
    expect(commentMarker('.', 'perfgate.yml')).toBe('<!-- perfgate:report config=perfgate.yml -->')
    expect(commentMarker('svc/api', 'perf.yml')).toBe('<!-- perfgate:report config=svc/api/perf.yml -->')
    expect(commentMarker('.', 'a-->b <x>.yml')).toBe('<!-- perfgate:report config=a--_b__x_.yml -->')
  })
})
