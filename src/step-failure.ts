import type { FailOn } from './inputs.js'
import type { Verdict } from './perfgate.js'
import type { Acceptance } from './report-links.js'

/**
 * failureFor says why the step fails for a verdict under fail-on, or ''
 * when it passes. Configuration and infrastructure errors always fail: they
 * are not measurements. An invalid measurement fails unless fail-on is
 * never: a gate that cannot measure must not pass silently. Its words
 * neither accuse nor clear the head: the engine calls a head whose service
 * failed in significantly more rounds a regression, and below that the
 * reason says which side failed how often. A regression accepted on
 * purpose (the accept label, see accept-label.ts) passes; nothing else is
 * accepted.
 */
export function failureFor(verdict: Verdict, reason: string, failOn: FailOn, accepted?: Acceptance): string {
  switch (verdict) {
    case 'error':
      return `perfgate could not run the experiment: ${reason}`
    case 'regression':
      return failOn === 'never' || accepted ? '' : `performance regression: ${reason}`
    case 'invalid':
      return failOn === 'never' ? '' : `invalid measurement (too few rounds could be compared to conclude): ${reason}`
    case 'inconclusive':
      return failOn === 'inconclusive' ? `inconclusive (fail-on: inconclusive): ${reason}` : ''
    case 'pass':
    case 'improvement':
    case 'no-baseline':
      return ''
  }
}
