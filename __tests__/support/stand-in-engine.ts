import { mkdirSync, writeFileSync } from 'node:fs'
import * as path from 'node:path'

/**
 * writeStandInEngine makes root an action checkout whose engine is the Go
 * program mainGo: the Action's engine build compiles it where it would
 * compile perfgate (engine/cmd/perfgate), so a test sees which binary ran
 * and what it was given.
 */
export function writeStandInEngine(root: string, mainGo: string): void {
  mkdirSync(path.join(root, 'engine/cmd/perfgate'), { recursive: true })
  writeFileSync(path.join(root, 'engine/go.mod'), 'module example.com/standin\n\ngo 1.22\n')
  writeFileSync(path.join(root, 'engine/cmd/perfgate/main.go'), mainGo)
}
