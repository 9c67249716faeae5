import * as github from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import * as core from '@actions/core'

export type Octokit = ReturnType<typeof github.getOctokit>

/** How often a rate-limited request is retried before it fails. */
const rateLimitRetries = 3

/**
 * createOctokit returns a client that waits out primary and secondary rate
 * limits (honouring retry-after) and retries server errors, but never
 * retries 4xx answers such as 404 or 422. The API URL comes from
 * GITHUB_API_URL, so GitHub Enterprise Server and test servers work.
 */
export function createOctokit(token: string): Octokit {
  return github.getOctokit(
    token,
    {
      baseUrl: process.env.GITHUB_API_URL || 'https://api.github.com',
      throttle: {
        onRateLimit: (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
          core.warning(
            `GitHub API rate limit hit on ${options.method} ${options.url}; retrying in ${retryAfter}s (attempt ${retryCount + 1} of ${rateLimitRetries}).`,
          )
          return retryCount < rateLimitRetries
        },
        onSecondaryRateLimit: (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
          core.warning(
            `GitHub API secondary rate limit hit on ${options.method} ${options.url}; retrying in ${retryAfter}s (attempt ${retryCount + 1} of ${rateLimitRetries}).`,
          )
          return retryCount < rateLimitRetries
        },
      },
      retry: { doNotRetry: [400, 401, 403, 404, 410, 422, 451] },
    },
    throttling,
    retry,
  )
}
