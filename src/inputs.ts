import * as core from '@actions/core'
import { TARGETS } from './engine-facts.js'
import { UserError } from './errors.js'

export const MODES = ['gate', 'record', 'comment'] as const
export const COMMENT_POLICIES = ['auto', 'always', 'never', 'on-regression'] as const
export const FAIL_ON = ['regression', 'inconclusive', 'never'] as const

export type Mode = (typeof MODES)[number]
export type CommentPolicy = (typeof COMMENT_POLICIES)[number]
export type FailOn = (typeof FAIL_ON)[number]
export type Target = (typeof TARGETS)[number]

/** Inputs are the action's inputs, read and validated once. */
export interface Inputs {
  readonly config: string
  readonly baseRef: string
  readonly target: Target | ''
  readonly token: string
  readonly comment: CommentPolicy
  readonly failOn: FailOn
  readonly mode: Mode
  readonly artifactName: string
  readonly workingDirectory: string
  readonly allowUnsafePullRequestTarget: boolean
}

/** InputReader returns an input's raw value ('' when unset). */
export type InputReader = (name: string) => string

/**
 * getInputs reads every input and validates it. All problems are reported
 * at once, each naming the input, the bad value and what is allowed.
 */
export function getInputs(read: InputReader = (name) => core.getInput(name)): Inputs {
  const problems: string[] = []
  const value = (name: string, fallback: string): string => read(name).trim() || fallback
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = value(name, fallback)
    if ((allowed as readonly string[]).includes(v)) return v as T
    problems.push(`Invalid '${name}': ${JSON.stringify(v)}. Expected one of ${allowed.join(', ')}.`)
    return fallback
  }

  const target = read('target').trim()
  if (target !== '' && !(TARGETS as readonly string[]).includes(target)) {
    problems.push(`Invalid 'target': ${JSON.stringify(target)}. Expected one of ${TARGETS.join(', ')}, or empty for the config's target.`)
  }
  const inputs: Inputs = {
    config: checkRelativePath('config', value('config', 'perfgate.yml'), problems),
    baseRef: checkRevision(read('base-ref').trim(), problems),
    target: (TARGETS as readonly string[]).includes(target) ? (target as Target) : '',
    token: read('token').trim(),
    comment: oneOf('comment', COMMENT_POLICIES, 'auto'),
    failOn: oneOf('fail-on', FAIL_ON, 'regression'),
    mode: oneOf('mode', MODES, 'gate'),
    artifactName: checkArtifactName(value('artifact-name', 'perfgate-results'), problems),
    workingDirectory: checkRelativePath('working-directory', value('working-directory', '.'), problems),
    allowUnsafePullRequestTarget: oneOf('allow-unsafe-pull-request-target', ['false', 'true'], 'false') === 'true',
  }
  if (problems.length > 0) throw new UserError(problems.join('\n'))
  return inputs
}

/**
 * checkRevision accepts what git rev-parse accepts, except values that
 * git would read as an option or that cannot be a ref.
 */
function checkRevision(ref: string, problems: string[]): string {
  if (ref === '') return ref
  // eslint-disable-next-line no-control-regex
  if (ref.startsWith('-') || /[\s\x00-\x1f\x7f~^:?*[\\]/.test(ref.replace(/[~^]\d*$/, '')) || ref.includes('..')) {
    problems.push(
      `Invalid 'base-ref': ${JSON.stringify(ref)}. Expected a branch, tag or commit SHA such as main or 4b825dc, not starting with '-'.`,
    )
  }
  return ref
}

/** checkRelativePath keeps paths inside the workspace. */
function checkRelativePath(name: string, path: string, problems: string[]): string {
  const parts = path.split(/[\\/]+/)
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || parts.includes('..')) {
    problems.push(`Invalid '${name}': ${JSON.stringify(path)}. Expected a path relative to the workspace, without '..'.`)
  }
  return path
}

/** checkArtifactName applies the artifact service's rules for names. */
function checkArtifactName(name: string, problems: string[]): string {
  const bad = ['"', ':', '<', '>', '|', '*', '?', '\r', '\n', '\\', '/'].filter((c) => name.includes(c))
  if (bad.length > 0 || name.length > 200) {
    problems.push(
      `Invalid 'artifact-name': ${JSON.stringify(name)}. Expected at most 200 characters without ${bad.length > 0 ? bad.map((c) => JSON.stringify(c)).join(' ') : 'any of " : < > | * ? \\ /'}.`,
    )
  }
  return name
}
