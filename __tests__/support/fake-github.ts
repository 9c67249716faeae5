/**
 * FakeGitHub is a local HTTP server that answers the REST calls perfgate
 * makes the way api.github.com does: pagination with Link headers, 403/404
 * error bodies, secondary rate limits with retry-after, server errors. It
 * checks every request and every answer against GitHub's REST description
 * (openapi.ts) and records problems, which a test asserts are none.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { FakeGitData, type Answer } from './fake-git-data.js'
import { checkRequest, checkResponse, sample, sampleComponent } from './openapi.js'

export interface FakeComment {
  id: number
  body: string
  login: string
}

export interface FakePull {
  number: number
  headSha: string
  headRepo: string
  state: 'open' | 'closed'
  /** baseSha is the base commit the API reports (a placeholder when unset). */
  baseSha?: string
  /** headRef is the head branch's name (the spec's example's when unset). */
  headRef?: string
  /** createdAt is when it was opened: unset, before any run or timeline event of a test. */
  createdAt?: string
}

/**
 * FakeIssueEvent is one entry of an issue's (or pull request's) timeline,
 * oldest first; the nth entry happened at minute n of 2026-01-01 (a
 * committed event at its committer date, which the committer chose).
 * GET .../events lists the labeled and unlabeled ones.
 */
export type FakeIssueEvent =
  | { event: 'labeled' | 'unlabeled'; label: string; login: string }
  | { event: 'committed'; sha: string; committedAt?: string }
  | { event: 'head_ref_force_pushed' | 'head_ref_restored' | 'reopened'; login: string }

export interface FakeArtifact {
  id: number
  name: string
  sizeInBytes: number
  zip: Uint8Array
}

/** FakeWorkflowRun is one run of a workflow, as the runs list shows it. */
export interface FakeWorkflowRun {
  id: number
  /** workflow is the workflow's file name, which the API takes for workflow_id. */
  workflow: string
  headSha: string
  event: string
  runAttempt?: number
  /** pullNumbers are the pull requests GitHub lists on the run (none for a fork's). */
  pullNumbers?: number[]
  /**
   * createdAt is when GitHub created the run (its server clock). Unset, a
   * minute before the timeline's first event (issueEvent: minute n of
   * 2026): the run came before any label a test adds.
   */
  createdAt?: string
  /** headBranch and headRepository are the run's head (the spec's example's when not set). */
  headBranch?: string
  headRepository?: string
}

export interface FakeIssue {
  number: number
  title: string
  body: string
  state: 'open' | 'closed'
  stateReason: string | null
  login: string
  labels: string[]
}

export interface Fault {
  status: number
  headers?: Record<string, string>
  message: string
}

export interface RecordedRequest {
  method: string
  path: string
  operationId: string
  body: unknown
}

export class FakeGitHub {
  readonly owner = 'acme'
  readonly repo = 'shop'
  /** login is the token's identity; null makes GET /user answer 403 like the workflow token. */
  login: string | null = null
  /**
   * appSlug makes the token a GitHub App's installation token: it acts as
   * <appSlug>[bot] and GET /user answers 403. GET /app refuses every token
   * here, as GitHub does all but the app's JWT.
   */
  appSlug: string | null = null
  /** roles are people's roles on the repository (role_name, or name:base for a custom role); anyone not listed has write. */
  roles = new Map<string, string>()
  comments = new Map<number, FakeComment[]>()
  pulls: FakePull[] = []
  artifacts = new Map<number, FakeArtifact[]>()
  /** workflowRuns are the repository's runs, newest first as GitHub lists them. */
  workflowRuns: FakeWorkflowRun[] = []
  issues: FakeIssue[] = []
  /** labels are a pull request's labels now, by number (issues keep theirs in FakeIssue.labels). */
  labels = new Map<number, string[]>()
  /** events are what happened on an issue or pull request, by number, oldest first. */
  events = new Map<number, FakeIssueEvent[]>()
  /** git is the repository's content: branches, commits, blobs (the data branch lives here). */
  readonly git = new FakeGitData()
  readonly requests: RecordedRequest[] = []
  readonly problems: string[] = []
  private readonly faults = new Map<string, Fault[]>()
  private readonly hooks = new Map<string, (() => void)[]>()
  private nextId = 1000
  private server?: Server

  get url(): string {
    const address = this.server?.address() as AddressInfo
    return `http://127.0.0.1:${address.port}`
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      // A fake that throws answers 500 and says why, instead of leaving the client waiting.
      this.handle(req, res).catch((error: unknown) => {
        this.problems.push(`${req.method} ${req.url}: the fake threw ${String(error)}`)
        res.writeHead(500).end()
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()))
  }

  /** addComment stores a comment as if someone had written it. */
  addComment(issue: number, login: string, body: string): FakeComment {
    const c = { id: this.nextId++, body, login }
    this.comments.set(issue, [...(this.comments.get(issue) ?? []), c])
    return c
  }

  /** addLabel puts a label on a pull request as login would, with its labeled event. */
  addLabel(number: number, label: string, login: string): void {
    this.labels.set(number, [...(this.labels.get(number) ?? []).filter((l) => l !== label), label])
    this.events.set(number, [...(this.events.get(number) ?? []), { event: 'labeled', label, login }])
  }

  /** push records commits arriving on a pull request's head, each a committed event (committedAt: the committer date, default now). */
  push(number: number, sha: string, committedAt?: string): void {
    this.events.set(number, [...(this.events.get(number) ?? []), { event: 'committed', sha, committedAt }])
    const pull = this.pulls.find((x) => x.number === number)
    if (pull) pull.headSha = sha
  }

  /** forcePush records a force push of a pull request's head to sha, with its head_ref_force_pushed event. */
  forcePush(number: number, sha: string, login: string): void {
    this.events.set(number, [...(this.events.get(number) ?? []), { event: 'head_ref_force_pushed', login }])
    const pull = this.pulls.find((x) => x.number === number)
    if (pull) pull.headSha = sha
  }

  /** removeLabel takes a label off a pull request as login would, with its unlabeled event. */
  removeLabel(number: number, label: string, login: string): void {
    this.labels.set(
      number,
      (this.labels.get(number) ?? []).filter((l) => l !== label),
    )
    this.events.set(number, [...(this.events.get(number) ?? []), { event: 'unlabeled', label, login }])
  }

  /** fail makes the next requests to "METHOD /path" (decoded) answer with these faults, in order. */
  fail(route: string, ...faults: Fault[]): void {
    this.faults.set(route, [...(this.faults.get(route) ?? []), ...faults])
  }

  /**
   * before runs fn just before the fake answers the next request to
   * "METHOD /path": another writer landing between a read and a write.
   */
  before(route: string, fn: () => void): void {
    this.hooks.set(route, [...(this.hooks.get(route) ?? []), fn])
  }

  /** addIssue stores an issue as if someone had opened it. */
  addIssue(issue: Omit<FakeIssue, 'number' | 'stateReason'> & { stateReason?: string | null }): FakeIssue {
    const created = { stateReason: null, ...issue, number: this.nextNumber() }
    this.issues.push(created)
    return created
  }

  count(operationId: string): number {
    return this.requests.filter((r) => r.operationId === operationId).length
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x')
    const raw = await new Promise<string>((resolve) => {
      let data = ''
      req.on('data', (c) => (data += c))
      req.on('end', () => resolve(data))
    })
    let body: unknown
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      this.problems.push(`${req.method} ${url.pathname}: body is not JSON`)
    }
    const method = req.method ?? 'GET'
    if (url.pathname.startsWith('/blob/')) {
      // The artifact storage host a download redirects to: not the REST API.
      const artifact = [...this.artifacts.values()].flat().find((a) => url.pathname === `/blob/${a.id}.zip`)
      this.requests.push({ method, path: url.pathname, operationId: 'blob', body: undefined })
      res.writeHead(artifact ? 200 : 404, { 'content-type': 'application/zip' })
      res.end(artifact ? Buffer.from(artifact.zip) : '')
      return
    }
    const { op, problems } = checkRequest(method, url.pathname, url.searchParams, body)
    this.problems.push(...problems.map((p) => `${method} ${url.pathname}${url.search}: ${p}`))
    this.requests.push({ method, path: url.pathname, operationId: op?.operationId ?? '?', body })
    if (!req.headers.authorization?.startsWith('token ') && !req.headers.authorization?.startsWith('Bearer ')) {
      this.problems.push(`${method} ${url.pathname}: no Authorization header`)
    }
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      if (op && status < 300) this.problems.push(...checkResponse(op, status, payload))
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
      res.end(payload === undefined ? '' : JSON.stringify(payload))
    }
    // Routes are named decoded: a client may send a file's path or a ref as one %2F-encoded segment.
    const route = `${method} ${decodeURIComponent(url.pathname)}`
    this.hooks.get(route)?.shift()?.()
    const fault = this.faults.get(route)?.shift()
    if (fault) {
      send(fault.status, { message: fault.message, documentation_url: 'https://docs.github.com/rest' }, fault.headers)
      return
    }
    if (!op) {
      send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' })
      return
    }
    this.route(op.operationId, op.params, url.searchParams, body, send, url)
  }

  private route(
    operationId: string,
    p: Record<string, string>,
    query: URLSearchParams,
    body: unknown,
    send: (status: number, payload: unknown, headers?: Record<string, string>) => void,
    url: URL,
  ): void {
    const notFound = (): void => send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' })
    const input = body as { body?: string } | undefined
    switch (operationId) {
      case 'users/get-authenticated':
        if (this.login === null)
          send(403, { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest' })
        else send(200, { ...sample(operationId), login: this.login, type: 'User' })
        return
      case 'apps/get-authenticated':
        // GET /app takes the app's JWT only ("You must use a JWT to access
        // this endpoint"); an installation token or the workflow token is
        // refused as GitHub refuses it (octokit/auth-app.js#298,
        // urcomputeringpal/kubevalidator#48). No token here is a JWT.
        send(401, { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' })
        return
      case 'repos/get-collaborator-permission-level': {
        const [role, base] = (this.roles.get(p.username) ?? 'write').split(':')
        // permission is the older field: maintain reads as write, triage as read, a custom role as its base.
        const permission = base ?? (role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role)
        send(200, { permission, role_name: role, user: { ...sampleComponent('collaborator'), login: p.username } })
        return
      }
      case 'pulls/get': {
        const pull = this.pulls.find((x) => x.number === Number(p.pull_number))
        if (!pull) return notFound()
        send(200, this.pull(pull))
        return
      }
      case 'pulls/list': {
        const head = query.get('head') ?? ''
        const matching = this.pulls
          .filter((x) => (query.get('state') ?? 'open') === 'all' || x.state === (query.get('state') ?? 'open'))
          .filter((x) => !head || head.split(':')[0] === x.headRepo.split('/')[0])
        send(
          200,
          matching.map((x) => this.pullSimple(x)),
        )
        return
      }
      case 'repos/list-pull-requests-associated-with-commit':
        send(
          200,
          this.pulls.filter((x) => x.headSha === p.commit_sha).map((x) => this.pullSimple(x)),
        )
        return
      case 'issues/list-comments': {
        const all = this.comments.get(Number(p.issue_number)) ?? []
        const { items, headers } = this.page(all, query, url)
        send(
          200,
          items.map((c) => this.comment(c, Number(p.issue_number))),
          headers,
        )
        return
      }
      case 'issues/create-comment': {
        const number = Number(p.issue_number)
        if (!this.pulls.some((x) => x.number === number) && !this.issues.some((x) => x.number === number)) return notFound()
        if ((input?.body ?? '').length > 65536) {
          send(422, {
            message: 'Validation Failed',
            errors: [
              { resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' },
            ],
            documentation_url: 'https://docs.github.com/rest',
          })
          return
        }
        const c = this.addComment(Number(p.issue_number), this.identity(), input?.body ?? '')
        send(201, this.comment(c, Number(p.issue_number)))
        return
      }
      case 'issues/update-comment': {
        const found = this.findComment(Number(p.comment_id))
        if (!found) return notFound()
        if ((input?.body ?? '').length > 65536) {
          send(422, { message: 'Validation Failed', documentation_url: 'https://docs.github.com/rest' })
          return
        }
        found.comment.body = input?.body ?? ''
        send(200, this.comment(found.comment, found.issue))
        return
      }
      case 'issues/delete-comment': {
        const found = this.findComment(Number(p.comment_id))
        if (!found) return notFound()
        this.comments.set(
          found.issue,
          (this.comments.get(found.issue) ?? []).filter((c) => c.id !== found.comment.id),
        )
        send(204, undefined)
        return
      }
      case 'issues/list-labels-on-issue': {
        const number = Number(p.issue_number)
        const issue = this.issues.find((i) => i.number === number)
        if (!issue && !this.pulls.some((x) => x.number === number)) return notFound()
        const { items, headers } = this.page(issue?.labels ?? this.labels.get(number) ?? [], query, url)
        send(
          200,
          items.map((name, n) => this.label(name, n)),
          headers,
        )
        return
      }
      case 'issues/list-events':
      case 'issues/list-events-for-timeline': {
        const number = Number(p.issue_number)
        if (!this.issues.some((i) => i.number === number) && !this.pulls.some((x) => x.number === number)) return notFound()
        const timeline = operationId === 'issues/list-events-for-timeline'
        const { items, headers } = this.page(
          (this.events.get(number) ?? []).map((e, n) => ({ e, n })).filter(({ e }) => timeline || 'label' in e),
          query,
          url,
        )
        send(
          200,
          items.map(({ e, n }) => this.issueEvent(e, n)),
          headers,
        )
        return
      }
      case 'actions/list-workflow-run-artifacts': {
        const list = this.artifacts.get(Number(p.run_id)) ?? []
        send(200, {
          total_count: list.length,
          artifacts: list.map((a) => ({
            ...sample('actions/get-artifact'),
            id: a.id,
            name: a.name,
            size_in_bytes: a.sizeInBytes,
            expired: false,
            archive_download_url: `${this.url}/repos/${this.owner}/${this.repo}/actions/artifacts/${a.id}/zip`,
          })),
        })
        return
      }
      case 'actions/list-workflow-runs': {
        const matching = this.workflowRuns
          .filter((r) => r.workflow === p.workflow_id)
          .filter((r) => !query.has('head_sha') || r.headSha === query.get('head_sha'))
          .filter((r) => !query.has('event') || r.event === query.get('event'))
        const { items, headers } = this.page(matching, query, url)
        const run = sample('actions/get-workflow-run')
        send(
          200,
          {
            total_count: matching.length,
            workflow_runs: items.map((r) => ({
              ...run,
              id: r.id,
              head_sha: r.headSha,
              event: r.event,
              run_attempt: r.runAttempt ?? 1,
              created_at: r.createdAt ?? '2025-12-31T23:59:00Z',
              ...(r.headBranch ? { head_branch: r.headBranch } : {}),
              ...(r.headRepository ? { head_repository: { ...(run.head_repository as object), full_name: r.headRepository } } : {}),
              path: `.github/workflows/${r.workflow}`,
              pull_requests: (r.pullNumbers ?? []).map((number) => ({
                id: number,
                number,
                url: `${this.url}/repos/${this.owner}/${this.repo}/pulls/${number}`,
                head: {
                  ref: 'feature',
                  sha: r.headSha,
                  repo: { id: 1, url: `${this.url}/repos/${this.owner}/${this.repo}`, name: this.repo },
                },
                base: {
                  ref: 'main',
                  sha: 'b'.repeat(40),
                  repo: { id: 1, url: `${this.url}/repos/${this.owner}/${this.repo}`, name: this.repo },
                },
              })),
            })),
          },
          headers,
        )
        return
      }
      case 'actions/download-artifact': {
        const artifact = [...this.artifacts.values()].flat().find((a) => a.id === Number(p.artifact_id))
        if (!artifact) return notFound()
        // Like GitHub: a redirect to a short-lived blob URL.
        send(302, undefined, { location: `${this.url}/blob/${artifact.id}.zip` })
        return
      }
      case 'issues/list-for-repo': {
        const state = query.get('state') ?? 'open'
        const labels = (query.get('labels') ?? '').split(',').filter(Boolean)
        const matching = this.issues
          .filter((i) => state === 'all' || i.state === state)
          .filter((i) => labels.every((l) => i.labels.includes(l)))
          .sort((a, b) => b.number - a.number) // GitHub's default: newest first
        const { items, headers } = this.page(matching, query, url)
        send(
          200,
          items.map((i) => this.issue(i)),
          headers,
        )
        return
      }
      case 'issues/create': {
        const issue = body as { title: string; body?: string; labels?: string[] }
        const created = this.addIssue({
          title: String(issue.title),
          body: issue.body ?? '',
          state: 'open',
          login: this.identity(),
          labels: issue.labels ?? [],
        })
        send(201, this.issue(created))
        return
      }
      case 'issues/update': {
        const found = this.issues.find((i) => i.number === Number(p.issue_number))
        if (!found) return notFound()
        const change = body as { title?: string; body?: string; state?: 'open' | 'closed'; state_reason?: string }
        if (change.title !== undefined) found.title = String(change.title)
        if (change.body !== undefined) found.body = change.body
        if (change.state !== undefined && change.state !== found.state) {
          found.state = change.state
          found.stateReason = change.state_reason ?? (change.state === 'closed' ? 'completed' : 'reopened')
        }
        send(200, this.issue(found))
        return
      }
      case 'git/get-ref':
        return this.answer(operationId, this.git.getRef(p.ref), send)
      case 'git/create-ref': {
        const ref = body as { ref: string; sha: string }
        return this.answer(operationId, this.git.createRef(ref.ref, ref.sha), send)
      }
      case 'git/get-blob': {
        const content = this.git.blobs.get(p.file_sha)
        if (!content) return notFound()
        return this.answer(
          operationId,
          { status: 200, payload: { sha: p.file_sha, size: content.length, content: content.toString('base64'), encoding: 'base64' } },
          send,
        )
      }
      case 'git/create-tree': {
        const tree = body as { base_tree?: string; tree: { path: string; sha?: string | null; content?: string }[] }
        if (tree.base_tree) return send(501, { message: 'the fake builds trees from scratch only' })
        const files = new Map<string, string>()
        for (const e of tree.tree) {
          const sha = e.content !== undefined ? this.git.blob(Buffer.from(e.content)) : e.sha
          if (!sha || !this.git.blobs.has(sha)) return send(422, { message: `tree.sha ${sha} is not a valid blob` })
          files.set(e.path, sha)
        }
        return this.answer(operationId, { status: 201, payload: { sha: this.git.tree(files), tree: [] } }, send)
      }
      case 'git/create-commit': {
        const commit = body as { message: string; tree: string; parents?: string[] }
        if (!this.git.trees.has(commit.tree)) return send(422, { message: 'Tree SHA does not exist' })
        const sha = this.git.commit(commit.tree, commit.parents ?? [], commit.message)
        return this.answer(operationId, { status: 201, payload: { sha, message: commit.message, tree: { sha: commit.tree } } }, send)
      }
      case 'repos/get-content': {
        const answer = this.git.getContent(p.path, query.get('ref') ?? 'main')
        if (answer.status !== 200) return this.answer(operationId, answer, send)
        const self = (p: unknown): string => `${this.url}/repos/${this.owner}/${this.repo}/contents/${String(p)}`
        const item = (x: Record<string, unknown>): Record<string, unknown> => ({
          ...x,
          url: self(x.path),
          git_url: `${this.url}/repos/${this.owner}/${this.repo}/git/blobs/${String(x.sha)}`,
          html_url: null,
          download_url: null,
          _links: { self: self(x.path), git: null, html: null },
        })
        const items = answer.payload.items as Record<string, unknown>[] | undefined
        send(200, items ? items.map(item) : { ...item(answer.payload), encoding: 'base64', size: 1, name: p.path })
        return
      }
      case 'repos/create-or-update-file-contents': {
        const answer = this.git.putContent(p.path, body as { message: string; content: string; branch?: string; sha?: string })
        if (answer.status >= 300) return this.answer(operationId, answer, send)
        const base = sample(operationId, answer.status)
        send(answer.status, { ...base, commit: { ...(base.commit as object), sha: answer.payload.commit } })
        return
      }
      default:
        send(501, { message: `the fake does not implement ${operationId}` })
    }
  }

  /** answer sends what FakeGitData decided: an error as GitHub words it, or a documented answer with its fields set. */
  private answer(operationId: string, answer: Answer, send: (status: number, payload: unknown) => void): void {
    if (answer.status >= 300) {
      send(answer.status, { ...answer.payload, documentation_url: 'https://docs.github.com/rest' })
      return
    }
    const base = sample(operationId, answer.status)
    const object = answer.payload.object as Record<string, unknown> | undefined
    const tree = answer.payload.tree as Record<string, unknown> | undefined
    send(answer.status, {
      ...base,
      ...answer.payload,
      ...(object ? { object: { ...(base.object as object), ...object } } : {}),
      ...(tree && !Array.isArray(tree) ? { tree: { ...(base.tree as object), ...tree } } : {}),
    })
  }

  /** page answers one page of a list the way GitHub does, with a Link header to the others. */
  private page<T>(all: T[], query: URLSearchParams, url: URL): { items: T[]; headers: Record<string, string> } {
    const perPage = Number(query.get('per_page') ?? 30)
    const page = Number(query.get('page') ?? 1)
    const last = Math.max(1, Math.ceil(all.length / perPage))
    const links: string[] = []
    const link = (n: number, rel: string): string => {
      const u = new URL(url.toString())
      u.searchParams.set('page', String(n))
      return `<${this.url}${u.pathname}${u.search}>; rel="${rel}"`
    }
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
    if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'))
    return { items: all.slice((page - 1) * perPage, page * perPage), headers: links.length ? { link: links.join(', ') } : {} }
  }

  /** identity is who the token writes as: a person, an app's bot, or the workflow token's github-actions[bot]. */
  private identity(): string {
    return this.login ?? (this.appSlug === null ? 'github-actions[bot]' : `${this.appSlug}[bot]`)
  }

  /** issueEvent is one timeline entry as GitHub shows it; the nth happened at minute n. */
  private issueEvent(e: FakeIssueEvent, n: number): Record<string, unknown> {
    const at = new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString()
    if (e.event === 'committed') {
      const who = { name: 'Dev', email: 'dev@example.com', date: e.committedAt ?? at }
      return {
        ...sampleComponent('timeline-committed-event'),
        event: 'committed',
        sha: e.sha,
        node_id: `C${n}`,
        url: `${this.url}/repos/${this.owner}/${this.repo}/git/commits/${e.sha}`,
        html_url: `https://github.com/${this.owner}/${this.repo}/commit/${e.sha}`,
        author: who,
        committer: who,
        message: 'change',
      }
    }
    return {
      ...sample('issues/list-events'),
      id: 5000 + n,
      node_id: `E${n}`,
      url: `${this.url}/repos/${this.owner}/${this.repo}/issues/events/${5000 + n}`,
      actor: this.user(e.login),
      event: e.event,
      commit_id: null,
      commit_url: null,
      created_at: at,
      performed_via_github_app: null,
      ...('label' in e ? { label: { name: e.label, color: 'ededed' } } : {}),
    }
  }

  private nextNumber(): number {
    return Math.max(0, ...this.pulls.map((x) => x.number), ...this.issues.map((x) => x.number)) + 1
  }

  private issue(i: FakeIssue): Record<string, unknown> {
    return {
      ...sample('issues/get'),
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      state_reason: i.stateReason,
      user: this.user(i.login),
      labels: i.labels.map((name, n) => this.label(name, n)),
      html_url: `https://github.com/${this.owner}/${this.repo}/issues/${i.number}`,
    }
  }

  private label(name: string, n: number): Record<string, unknown> {
    return {
      id: n + 1,
      node_id: `L${n}`,
      url: `${this.url}/repos/${this.owner}/${this.repo}/labels/${encodeURIComponent(name)}`,
      name,
      description: null,
      color: 'ededed',
      default: false,
    }
  }

  private findComment(id: number): { issue: number; comment: FakeComment } | undefined {
    for (const [issue, list] of this.comments) {
      const comment = list.find((c) => c.id === id)
      if (comment) return { issue, comment }
    }
    return undefined
  }

  private user(login: string): Record<string, unknown> {
    return { ...sample('users/get-by-username'), login, type: login.endsWith('[bot]') ? 'Bot' : 'User' }
  }

  private comment(c: FakeComment, issue: number): Record<string, unknown> {
    return {
      ...sample('issues/get-comment'),
      id: c.id,
      body: c.body,
      user: this.user(c.login),
      html_url: `https://github.com/${this.owner}/${this.repo}/pull/${issue}#issuecomment-${c.id}`,
      issue_url: `https://api.github.com/repos/${this.owner}/${this.repo}/issues/${issue}`,
    }
  }

  private pull(x: FakePull): Record<string, unknown> {
    return this.withHead(sample('pulls/get'), x)
  }

  private pullSimple(x: FakePull): Record<string, unknown> {
    return this.withHead(sample('pulls/list'), x)
  }

  private withHead(base: Record<string, unknown>, x: FakePull): Record<string, unknown> {
    const head = base.head as Record<string, unknown>
    const repo = sampleComponent('repository')
    const baseRef = base.base as Record<string, unknown>
    return {
      ...base,
      number: x.number,
      state: x.state,
      created_at: x.createdAt ?? '2025-12-31T23:00:00Z',
      head: { ...head, ...(x.headRef ? { ref: x.headRef } : {}), sha: x.headSha, repo: { ...repo, full_name: x.headRepo } },
      base: { ...baseRef, sha: x.baseSha ?? baseRef.sha },
    }
  }
}
