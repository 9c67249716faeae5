/**
 * Records the nightly history that the trend scenario (trend.e2e.ts)
 * replays: it builds the trend repository (support/trend-repo.ts), builds
 * the engine, and records every commit with `perfgate run --history`, one
 * after the other, as mode record does each night (real builds, real
 * cgroup limits, real load and profiles), then writes
 * trend-history.jsonl and trend-history.commits.json beside this file.
 * The scenario maps the recorded commits onto its own by position, so the
 * history stays valid when the example service changes (its commits' SHAs
 * change); record again when what it measures changes.
 *
 * As root, on a quiet machine (about 6 minutes):
 *   npx tsx __tests__/e2e/testdata/record-trend-history.ts
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { git } from '../../support/git.js'
import { actionRoot, e2eExperiment } from '../../support/local-action.js'
import { buildTrendRepo, trendRepo } from '../../support/trend-repo.js'

const here = import.meta.dirname
const tmp = mkdtempSync(path.join(tmpdir(), 'perfgate-trend-history-'))
try {
  const repo = path.join(tmp, 'repo')
  const shas = buildTrendRepo(repo, actionRoot, e2eExperiment)
  const engine = path.join(tmp, 'perfgate')
  execFileSync('go', ['build', '-o', engine, './cmd/perfgate'], { cwd: path.join(actionRoot, 'engine'), stdio: 'inherit' })
  // A night records 3 runs (mode record's pairs: the scenario's gates
  // need their 4): the same perfgate.yml otherwise, and the same name, so
  // the same history file.
  const recordConfig = path.join(tmp, 'record', 'perfgate.yml')
  mkdirSync(path.dirname(recordConfig))
  if (!/^pairs: 4$/m.test(e2eExperiment)) throw new Error('the e2e experiment changed: no line pairs: 4')
  writeFileSync(recordConfig, e2eExperiment.replace(/^pairs: 4$/m, 'pairs: 3'))
  const history = path.join(tmp, 'history')
  shas.forEach((sha, night) => {
    git(repo, 'checkout', '-q', sha)
    console.log(`night ${night}: ${sha.slice(0, 7)}`)
    execFileSync(
      engine,
      [
        'run',
        '--config',
        recordConfig,
        '--src',
        path.join(repo, trendRepo.service),
        '--label',
        sha.slice(0, 7),
        '--out',
        path.join(tmp, `out-${night}`),
        '--history',
        history,
      ],
      { stdio: 'inherit' },
    )
  })
  copyFileSync(path.join(history, 'perfgate.jsonl'), path.join(here, 'trend-history.jsonl'))
  writeFileSync(path.join(here, 'trend-history.commits.json'), JSON.stringify(shas, null, 2) + '\n')
  console.log(`wrote ${path.join(here, 'trend-history.jsonl')} (${shas.length} nights)`)
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
