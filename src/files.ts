import { readdir } from 'node:fs/promises'
import * as path from 'node:path'

/** listFiles lists the regular files under root, recursively, as paths relative to it ('/'-separated). */
export async function listFiles(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(path.join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) out.push(...(await listFiles(root, rel)))
    else if (entry.isFile()) out.push(rel)
  }
  return out
}
