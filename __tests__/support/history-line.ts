import { createHash } from 'node:crypto'

/**
 * historyLine is a history entry named name, with just the fields the
 * engine requires of every line it reads (engine/internal/history/
 * validate.go): its commit (a full SHA made from the name), an id of
 * commit@name, the config and a time in the past.
 */
export function historyLine(name: string): string {
  const commit = createHash('sha1').update(name).digest('hex')
  return JSON.stringify({
    schema: 1,
    kind: 'entry',
    id: `${commit}@${name}`,
    config: 'perfgate',
    commit,
    time: '2026-11-01T03:00:00Z',
    verdict: 'pass',
  })
}

/** nameOf is the name historyLine was given, read back from a line's id. */
export function nameOf(id: string): string {
  return id.slice(id.indexOf('@') + 1)
}
