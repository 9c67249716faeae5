import type { FailOn } from './inputs.js'
import type { Verdict } from './perfgate.js'
import type { Acceptance } from './report-links.js'

/**
 * failureFor says why the step fails for a verdict under fail-on, or ''
 * when it passes. Configuration and infrastructure errors always fail: they
 * are not measurements. An invalid measurement fails unless fail-on is
 * never: a gate that cannot measure must not pass silently, and it is
 * never called a regression. A regression accepted on purpose (the
 * accept label, see accept-label.ts) passes; nothing else is accepted.
 */
export function failureFor(verdict: Verdict, reason: string, failOn: FailOn, accepted?: Acceptance): string {
  switch (verdict) {
    case 'error':
      return `perfgate could not run the experiment: ${reason}`
    case 'regression':
      return failOn === 'never' || accepted ? '' : `performance regression: ${reason}`
    case 'invalid':
      return failOn === 'never' ? '' : `invalid measurement (not a regression; nothing can be concluded): ${reason}`
    case 'inconclusive':
      return failOn === 'inconclusive' ? `inconclusive (fail-on: inconclusive): ${reason}` : ''
    case 'pass':
    case 'improvement':
    case 'no-baseline':
      return ''
  }
}
