import * as core from '@actions/core'
import { TARGETS } from './engine-facts.js'
import { UserError } from './errors.js'

export const MODES = ['gate', 'record', 'trend', 'comment', 'publish'] as const
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
  readonly history: HistorySource
  readonly historyBranch: string
  readonly confirm: boolean
  readonly confirmBudget: number
  /** pairWith is what mode record measures tonight against: 'last' (the newest recording), 'none', or a revision. */
  readonly pairWith: string
  /** acceptLabel is the pull request label that accepts a regression on purpose; '' turns acceptance off. */
  readonly acceptLabel: string
  /** acceptBots are the apps (Bot accounts) whose accept label counts, as logins; people need write access instead. */
  readonly acceptBots: readonly string[]
  /** prebuilt are mode gate's binaries to measure instead of building (workspace-relative); undefined: perfgate builds. */
  readonly prebuilt?: { readonly base: string; readonly head: string }
}

/**
 * HistorySource is where the nightly history lives: a data branch of the
 * repository (the default), a directory used as it is (a self-hosted
 * runner's disk), or nowhere.
 */
export type HistorySource = { readonly kind: 'branch' } | { readonly kind: 'directory'; readonly path: string } | { readonly kind: 'none' }

/** The largest confirm-budget: the bisection gates of one step (the whole run is bounded by trend.ts's MAX_TREND_GATES). */
export const MAX_CONFIRM_BUDGET = 20

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
    baseRef: checkRevision('base-ref', read('base-ref').trim(), problems),
    target: (TARGETS as readonly string[]).includes(target) ? (target as Target) : '',
    token: read('token').trim(),
    comment: oneOf('comment', COMMENT_POLICIES, 'auto'),
    failOn: oneOf('fail-on', FAIL_ON, 'regression'),
    mode: oneOf('mode', MODES, 'gate'),
    artifactName: checkArtifactName(value('artifact-name', 'perfgate-results'), problems),
    workingDirectory: checkRelativePath('working-directory', value('working-directory', '.'), problems),
    allowUnsafePullRequestTarget: oneOf('allow-unsafe-pull-request-target', ['false', 'true'], 'false') === 'true',
    history: historySource(value('history', 'branch')),
    historyBranch: checkBranch(value('history-branch', 'perfgate-data'), problems),
    confirm: oneOf('confirm', ['false', 'true'], 'true') === 'true',
    confirmBudget: checkBudget(value('confirm-budget', '3'), problems),
    pairWith: checkRevision('pair-with', value('pair-with', 'last'), problems),
    // No fallback here: action.yml's default (perfgate:accept) applies when
    // the input is not given, and an empty value turns acceptance off.
    acceptLabel: checkLabel(read('accept-label').trim(), problems),
    acceptBots: checkBots(read('accept-bots'), problems),
    prebuilt: checkPrebuilt(read('base-binary').trim(), read('head-binary').trim(), read('mode').trim() || 'gate', problems),
  }
  if (problems.length > 0) throw new UserError(problems.join('\n'))
  return inputs
}

/**
 * checkRevision accepts what git rev-parse accepts, except values that
 * git would read as an option or that cannot be a ref.
 */
function checkRevision(name: string, ref: string, problems: string[]): string {
  if (ref === '') return ref
  // eslint-disable-next-line no-control-regex
  if (ref.startsWith('-') || /[\s\x00-\x1f\x7f~^:?*[\\]/.test(ref.replace(/[~^]\d*$/, '')) || ref.includes('..')) {
    problems.push(
      `Invalid '${name}': ${JSON.stringify(ref)}. Expected a branch, tag or commit SHA such as main or 4b825dc, not starting with '-'${name === 'pair-with' ? ', or last or none' : ''}.`,
    )
  }
  return ref
}

/** historySource reads the history input: branch, none, or a directory (./branch for a directory named branch). */
function historySource(history: string): HistorySource {
  if (history === 'branch' || history === 'none') return { kind: history }
  return { kind: 'directory', path: history }
}

/**
 * checkBranch accepts a branch name git would (git check-ref-format), so
 * the history branch cannot be an option, a range or another ref's path.
 */
function checkBranch(branch: string, problems: string[]): string {
  const parts = branch.split('/')
  if (
    // eslint-disable-next-line no-control-regex
    /[\s\x00-\x1f\x7f~^:?*[\\]/.test(branch) ||
    branch.startsWith('-') ||
    branch.includes('..') ||
    branch.includes('@{') ||
    parts.some((p) => p === '' || p.startsWith('.') || p.endsWith('.lock')) ||
    branch.endsWith('.')
  ) {
    problems.push(`Invalid 'history-branch': ${JSON.stringify(branch)}. Expected a branch name such as perfgate-data.`)
  }
  return branch
}

/** checkBudget reads confirm-budget: how many paired gates may bisect each confirmed step (the engine's --budget), 0 to MAX_CONFIRM_BUDGET. */
function checkBudget(budget: string, problems: string[]): number {
  const n = Number(budget)
  if (!/^\d+$/.test(budget) || n > MAX_CONFIRM_BUDGET) {
    problems.push(
      `Invalid 'confirm-budget': ${JSON.stringify(budget)}. Expected a whole number of paired gates from 0 to ${MAX_CONFIRM_BUDGET}.`,
    )
    return 3
  }
  return n
}

/** The longest label name GitHub accepts, in characters. */
const MAX_LABEL_CHARS = 50

/** checkLabel accepts a label name GitHub would: at most 50 characters, no control characters. */
function checkLabel(label: string, problems: string[]): string {
  // eslint-disable-next-line no-control-regex
  if ([...label].length > MAX_LABEL_CHARS || /[\x00-\x1f\x7f]/.test(label)) {
    problems.push(
      `Invalid 'accept-label': ${JSON.stringify(label)}. Expected a label name of at most ${MAX_LABEL_CHARS} characters without control characters, such as perfgate:accept, or empty to turn acceptance off.`,
    )
    return ''
  }
  return label
}

/** checkBots reads accept-bots: app logins separated by commas or new lines, each with or without its [bot] suffix. */
function checkBots(list: string, problems: string[]): string[] {
  const bots = list
    .split(/[,\n]/)
    .map((b) => b.trim())
    .filter(Boolean)
  const bad = bots.filter((b) => !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(\[bot\])?$/.test(b))
  if (bad.length > 0) {
    problems.push(
      `Invalid 'accept-bots': ${bad.map((b) => JSON.stringify(b)).join(', ')}. Expected app logins such as renovate[bot], separated by commas or new lines, or empty for none.`,
    )
    return []
  }
  return bots
}

/** checkRelativePath keeps paths inside the workspace. */
function checkRelativePath(name: string, path: string, problems: string[]): string {
  const parts = path.split(/[\\/]+/)
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || parts.includes('..')) {
    problems.push(`Invalid '${name}': ${JSON.stringify(path)}. Expected a path relative to the workspace, without '..'.`)
  }
  return path
}

/**
 * checkPrebuilt reads base-binary and head-binary: both or neither (a gate
 * compares two binaries built the same way), workspace-relative, and only
 * for mode gate.
 */
function checkPrebuilt(base: string, head: string, mode: string, problems: string[]): Inputs['prebuilt'] {
  if (base === '' && head === '') return undefined
  if (base === '' || head === '') {
    problems.push(
      `Invalid 'base-binary' and 'head-binary': ${JSON.stringify(base)} and ${JSON.stringify(head)}. Expected both (two binaries built the same way) or neither (perfgate builds both).`,
    )
    return undefined
  }
  if (mode !== 'gate') {
    problems.push(`Invalid 'base-binary' and 'head-binary' with mode ${JSON.stringify(mode)}. Expected them only with mode gate.`)
    return undefined
  }
  return { base: checkRelativePath('base-binary', base, problems), head: checkRelativePath('head-binary', head, problems) }
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
