/**
 * FakeGitData is the repository content behind the fake API: blobs,
 * trees, commits and branches, addressed by real git SHAs, with the rules
 * GitHub applies to the contents API (a write must name the blob it
 * replaces; a stale one is a 409) and to refs (creating one that exists is
 * a 422). It only keeps what the history writer and its tests need: flat
 * trees of files, by path.
 */
import { createHash } from 'node:crypto'

export interface Commit {
  readonly files: ReadonlyMap<string, string> // path → blob SHA
  readonly parents: readonly string[]
  readonly message: string
}

/** Answer is what the fake should send: a status and a JSON payload (fields the caller completes). */
export type Answer = { status: number; payload: Record<string, unknown> }

const sha1 = (...parts: (string | Buffer)[]): string => {
  const h = createHash('sha1')
  for (const p of parts) h.update(p)
  return h.digest('hex')
}

export class FakeGitData {
  readonly blobs = new Map<string, Buffer>()
  readonly trees = new Map<string, Map<string, string>>()
  readonly commits = new Map<string, Commit>()
  readonly branches = new Map<string, string>() // name → commit SHA

  /** blob stores content and returns its git SHA, as `git hash-object` would. */
  blob(content: Buffer): string {
    const sha = sha1(`blob ${content.length}\0`, content)
    this.blobs.set(sha, content)
    return sha
  }

  tree(files: ReadonlyMap<string, string>): string {
    const sha = sha1('tree\0', JSON.stringify([...files].sort()))
    this.trees.set(sha, new Map(files))
    return sha
  }

  commit(tree: string, parents: readonly string[], message: string): string {
    const files = this.trees.get(tree)
    if (!files) throw new Error(`no tree ${tree}`)
    const sha = sha1('commit\0', tree, '\0', parents.join(','), '\0', message, '\0', String(this.commits.size))
    this.commits.set(sha, { files, parents, message })
    return sha
  }

  /** files returns the files a branch or commit holds, as text, by path. */
  files(refOrSha: string): Record<string, string> | undefined {
    const commit = this.commits.get(this.branches.get(refOrSha) ?? refOrSha)
    if (!commit) return undefined
    return Object.fromEntries([...commit.files].map(([p, sha]) => [p, this.blobs.get(sha)!.toString('utf8')]))
  }

  /**
   * write commits content at path on top of the branch (creating the
   * branch, as an orphan, if it does not exist): what another writer, or a
   * person, does between a reader's read and its write.
   */
  write(branch: string, path: string, content: string, message = `write ${path}`): string {
    const head = this.branches.get(branch)
    const files = new Map(head ? this.commits.get(head)!.files : [])
    files.set(path, this.blob(Buffer.from(content)))
    const sha = this.commit(this.tree(files), head ? [head] : [], message)
    this.branches.set(branch, sha)
    return sha
  }

  /** resolve finds the commit a contents API ref names: a branch, else a commit SHA. */
  private resolve(ref: string): Commit | undefined {
    return this.commits.get(this.branches.get(ref) ?? ref)
  }

  getRef(ref: string): Answer {
    const branch = ref.replace(/^heads\//, '')
    const sha = ref.startsWith('heads/') ? this.branches.get(branch) : undefined
    if (!sha) return notFound()
    return { status: 200, payload: { ref: `refs/${ref}`, object: { type: 'commit', sha } } }
  }

  createRef(ref: string, sha: string): Answer {
    const match = /^refs\/heads\/(.+)$/.exec(ref)
    if (!match) return invalid('Reference name must start with refs/heads/ here')
    if (!this.commits.has(sha)) return invalid('Object does not exist')
    if (this.branches.has(match[1])) return invalid('Reference already exists')
    this.branches.set(match[1], sha)
    return { status: 201, payload: { ref, object: { type: 'commit', sha } } }
  }

  /** getContent lists a folder (one level) or returns a file, at a ref (default: main). */
  getContent(path: string, ref: string): Answer {
    const commit = this.resolve(ref)
    if (!commit) return { status: 404, payload: { message: `No commit found for the ref ${ref}` } }
    const file = commit.files.get(path)
    if (file) return { status: 200, payload: { type: 'file', path, sha: file, content: this.blobs.get(file)!.toString('base64') } }
    const prefix = `${path}/`
    const items = [...commit.files]
      .filter(([p]) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
      .map(([p, sha]) => ({ type: 'file', name: p.slice(prefix.length), path: p, sha, size: this.blobs.get(sha)!.length }))
    if (items.length === 0) return notFound()
    return { status: 200, payload: { items } }
  }

  /** putContent is PUT /contents: a new commit on the branch, refused when the named blob is not the current one. */
  putContent(path: string, body: { message: string; content: string; branch?: string; sha?: string }): Answer {
    const branch = body.branch ?? 'main'
    const head = this.branches.get(branch)
    if (!head) return { status: 404, payload: { message: `Branch ${branch} not found` } }
    const files = new Map(this.commits.get(head)!.files)
    const current = files.get(path)
    if (current && body.sha === undefined) return invalid('Invalid request.\n\n"sha" wasn\'t supplied.')
    if (body.sha !== undefined && body.sha !== current) return { status: 409, payload: { message: `${path} does not match ${body.sha}` } }
    const blob = this.blob(Buffer.from(body.content, 'base64'))
    files.set(path, blob)
    const commit = this.commit(this.tree(files), [head], body.message)
    this.branches.set(branch, commit)
    return { status: current ? 200 : 201, payload: { blob, commit } }
  }
}

function notFound(): Answer {
  return { status: 404, payload: { message: 'Not Found' } }
}

function invalid(message: string): Answer {
  return { status: 422, payload: { message } }
}
