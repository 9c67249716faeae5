/**
 * FakeGitHub is a local HTTP server that answers the REST calls perfgate
 * makes the way api.github.com does: pagination with Link headers, 403/404
 * error bodies, secondary rate limits with retry-after, server errors. It
 * checks every request and every answer against GitHub's REST description
 * (openapi.ts) and records problems, which a test asserts are none.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
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
}

export interface FakeArtifact {
  id: number
  name: string
  sizeInBytes: number
  zip: Uint8Array
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
  comments = new Map<number, FakeComment[]>()
  pulls: FakePull[] = []
  artifacts = new Map<number, FakeArtifact[]>()
  readonly requests: RecordedRequest[] = []
  readonly problems: string[] = []
  private readonly faults = new Map<string, Fault[]>()
  private nextId = 1000
  private server?: Server

  get url(): string {
    const address = this.server?.address() as AddressInfo
    return `http://127.0.0.1:${address.port}`
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res))
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

  /** fail makes the next requests to "METHOD /path" answer with these faults, in order. */
  fail(route: string, ...faults: Fault[]): void {
    this.faults.set(route, [...(this.faults.get(route) ?? []), ...faults])
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
    const fault = this.faults.get(`${method} ${url.pathname}`)?.shift()
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
        send(
          200,
          all.slice((page - 1) * perPage, page * perPage).map((c) => this.comment(c, Number(p.issue_number))),
          links.length ? { link: links.join(', ') } : {},
        )
        return
      }
      case 'issues/create-comment': {
        if (!this.pulls.some((x) => x.number === Number(p.issue_number))) return notFound()
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
        const c = this.addComment(Number(p.issue_number), this.login ?? 'github-actions[bot]', input?.body ?? '')
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
      case 'actions/download-artifact': {
        const artifact = [...this.artifacts.values()].flat().find((a) => a.id === Number(p.artifact_id))
        if (!artifact) return notFound()
        // Like GitHub: a redirect to a short-lived blob URL.
        send(302, undefined, { location: `${this.url}/blob/${artifact.id}.zip` })
        return
      }
      default:
        send(501, { message: `the fake does not implement ${operationId}` })
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
    return { ...base, number: x.number, state: x.state, head: { ...head, sha: x.headSha, repo: { ...repo, full_name: x.headRepo } } }
  }
}
