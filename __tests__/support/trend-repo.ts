import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import * as path from 'node:path'
import { git } from './git.js'

/**
 * The nightly trend's test repository: a monorepo holding the example
 * service as services/api (with its perfgate.yml there), and main's
 * commits one per night. The commit at plantedAt applies the per-request
 * fmt.Sprintf trace (alloc-sprintf.patch: +37% allocations per request);
 * the one at revertedAt takes it out again; every other commit touches
 * only services/api/CHANGES. Both the history recorder
 * (__tests__/e2e/testdata/record-trend-history.ts) and the trend scenario
 * build it, so that a history recorded once maps onto the scenario's
 * commits by position.
 */
export const trendRepo = {
  commits: 26,
  plantedAt: 8,
  revertedAt: 16,
  service: 'services/api',
} as const

/** buildTrendRepo makes dir a git repository of trendRepo's commits on main and returns their SHAs, oldest first. */
export function buildTrendRepo(dir: string, actionRoot: string, perfgateYml: string): string[] {
  const service = path.join(dir, trendRepo.service)
  mkdirSync(path.dirname(service), { recursive: true })
  cpSync(path.join(actionRoot, 'examples/service'), service, { recursive: true })
  writeFileSync(path.join(service, 'perfgate.yml'), perfgateYml)
  const patch = path.join(actionRoot, 'examples/regressions/alloc-sprintf.patch')
  git(dir, 'init', '-q', '-b', 'main')
  const shas: string[] = []
  for (let night = 0; night < trendRepo.commits; night++) {
    if (night === trendRepo.plantedAt) {
      git(dir, 'apply', `--directory=${trendRepo.service}`, patch)
    } else if (night === trendRepo.revertedAt) {
      git(dir, 'apply', '-R', `--directory=${trendRepo.service}`, patch)
    } else {
      writeFileSync(path.join(service, 'CHANGES'), `night ${night}\n`)
    }
    git(dir, 'add', '-A')
    git(
      dir,
      'commit',
      '-q',
      '-m',
      night === trendRepo.plantedAt
        ? 'search: trace results'
        : night === trendRepo.revertedAt
          ? 'search: drop the trace'
          : `night ${night}`,
    )
    shas.push(git(dir, 'rev-parse', 'HEAD'))
  }
  return shas
}
