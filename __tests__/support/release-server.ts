import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as path from 'node:path'

/**
 * A fake of GitHub's release downloads (the Action's PERFGATE_RELEASE_URL):
 * GET /v<version>/<file> answers the file root/v<version>/<file>, anything
 * else 404 Not Found, over real HTTP on 127.0.0.1.
 */
export interface ReleaseServer {
  /** base is what PERFGATE_RELEASE_URL would be set to. */
  readonly base: string
  /** requests are the paths asked for, in order. */
  readonly requests: string[]
  close(): Promise<void>
}

export async function startReleaseServer(root: string): Promise<ReleaseServer> {
  const requests: string[] = []
  const server = createServer((req, res) => {
    requests.push(req.url ?? '')
    const file = path.join(root, decodeURIComponent(req.url ?? '/'))
    if (!file.startsWith(root + path.sep) || !existsSync(file)) {
      res.writeHead(404, 'Not Found').end('Not Found')
      return
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
