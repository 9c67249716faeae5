import * as core from '@actions/core'
import * as exec from '@actions/exec'
import { getErrorMessage } from './errors.js'
import { hostIdentity } from './host-identity.js'

/** The names perfgate gives kind clusters: perfgate-<host>-<pid>-<hex> (engine/internal/target/kind). */
const perfgateCluster = /^perfgate-([0-9a-f]{12})-([1-9]\d*)-[0-9a-f]+$/

/**
 * deleteOrphanedKindClusters deletes the kind clusters of perfgate processes
 * of this host identity that are gone. perfgate deletes its own cluster
 * however it ends, unless it is killed outright (a job that times out): its
 * node container would then keep running on a self-hosted runner. Clusters
 * of a perfgate that is still running, and of another host identity (a
 * runner in another container sharing the Docker daemon, whose PIDs mean
 * nothing here), are left alone. Without kind on PATH it does nothing. It
 * only warns, and returns the clusters it deleted.
 */
export async function deleteOrphanedKindClusters(alive: (pid: number) => boolean, host: string = hostIdentity()): Promise<string[]> {
  let listed: exec.ExecOutput
  try {
    listed = await exec.getExecOutput('kind', ['get', 'clusters'], { silent: true, ignoreReturnCode: true })
  } catch {
    return [] // kind is not installed: perfgate cannot have made a cluster
  }
  if (listed.exitCode !== 0) {
    core.warning(`post: \`kind get clusters\` failed (exit ${listed.exitCode}): ${listed.stderr.trim()}`)
    return []
  }
  const orphans = listed.stdout
    .split('\n')
    .map((name) => name.trim())
    .filter((name) => {
      const match = perfgateCluster.exec(name)
      return match !== null && match[1] === host && !alive(Number(match[2]))
    })
  const deleted: string[] = []
  for (const name of orphans) {
    core.info(`post: deleting kind cluster ${name}, left by a perfgate that is no longer running`)
    try {
      const result = await exec.getExecOutput('kind', ['delete', 'cluster', '--name', name], { silent: true, ignoreReturnCode: true })
      if (result.exitCode === 0) deleted.push(name)
      else core.warning(`post: \`kind delete cluster --name ${name}\` failed (exit ${result.exitCode}): ${result.stderr.trim()}`)
    } catch (error) {
      core.warning(`post: deleting kind cluster ${name} failed: ${getErrorMessage(error)}`)
    }
  }
  return deleted
}
