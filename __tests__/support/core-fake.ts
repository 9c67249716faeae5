/**
 * A typed fake of the parts of @actions/core the action uses, for
 * vi.mock('@actions/core', () => import('./support/core-fake.js')). It
 * records what the code reported, and reads state and inputs from maps.
 */
import type * as Core from '@actions/core'

export const recorded = {
  warnings: [] as string[],
  errors: [] as string[],
  notices: [] as string[],
  infos: [] as string[],
  failed: [] as string[],
  outputs: {} as Record<string, string>,
  state: {} as Record<string, string>,
  inputs: {} as Record<string, string>,
}

export function reset(): void {
  for (const list of [recorded.warnings, recorded.errors, recorded.notices, recorded.infos, recorded.failed]) list.length = 0
  for (const map of [recorded.outputs, recorded.state, recorded.inputs]) for (const k of Object.keys(map)) delete map[k]
}

const text = (m: string | Error): string => (typeof m === 'string' ? m : m.message)

export const warning: typeof Core.warning = (m) => void recorded.warnings.push(text(m))
export const error: typeof Core.error = (m) => void recorded.errors.push(text(m))
export const notice: typeof Core.notice = (m) => void recorded.notices.push(text(m))
export const info: typeof Core.info = (m) => void recorded.infos.push(m)
export const debug: typeof Core.debug = () => {}
export const setFailed: typeof Core.setFailed = (m) => void recorded.failed.push(text(m))
export const setOutput: typeof Core.setOutput = (name, value) => void (recorded.outputs[name] = String(value))
export const saveState: typeof Core.saveState = (name, value) => void (recorded.state[name] = String(value))
export const getState: typeof Core.getState = (name) => recorded.state[name] ?? ''
export const getInput: typeof Core.getInput = (name) => recorded.inputs[name] ?? ''
export const group = (async <T>(_name: string, fn: () => Promise<T>): Promise<T> => fn()) as typeof Core.group
