import { createHash } from 'node:crypto'
import { readFileSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

/**
 * identity is the host identity perfgate puts in the names of what it
 * leaves on shared infrastructure: 12 hex digits of a hash of the machine
 * and the PID namespace. It must equal engine/internal/owner.Identity.
 */
export function identity(machine: string, pidNamespace: string): string {
  return createHash('sha256').update(`${machine}\n${pidNamespace}`).digest('hex').slice(0, 12)
}

/**
 * hostIdentity is this process's host identity, read as the engine reads
 * it (engine/internal/owner.Host): /etc/machine-id, else the boot id, else
 * the hostname, and the PID namespace link /proc/self/ns/pid.
 */
export function hostIdentity(): string {
  let machine = ''
  for (const file of ['/etc/machine-id', '/proc/sys/kernel/random/boot_id']) {
    try {
      machine = readFileSync(file, 'utf8').trim()
    } catch {
      continue
    }
    if (machine) break
  }
  if (!machine) machine = hostname()
  let pidNamespace = ''
  try {
    pidNamespace = readlinkSync('/proc/self/ns/pid')
  } catch {
    // not Linux: the identity is the machine's alone, as in the engine
  }
  return identity(machine, pidNamespace)
}
