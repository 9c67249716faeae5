# shellcheck shell=bash disable=SC2034 # the names are used by the scripts that source this file
# Names and paths of the runner-like VM, shared by build.sh, up.sh, run.sh
# and down.sh (sourced, not run). What is worth keeping across boots (the
# root file system image, its kernel, the SSH keys) lives in $cache; what one
# boot writes (the disk overlay, the console log, the pid and port) in $state.

cache=${PERFGATE_VM_CACHE:-/var/cache/perfgate-vm}
state=${PERFGATE_VM_STATE:-/var/lib/perfgate-vm}
suite=bookworm
image=$cache/rootfs.ext4 # the root file system, read-only base of every boot
kernel=$cache/vmlinuz    # Debian's cloud kernel from the image: virtio and ext4 built in
key=$cache/id_ed25519    # the host's key for runner@vm
# The guest's SSH host key, made on the host by build.sh and baked into the
# image, and its public half as the only entry of the known_hosts file that
# ssh_vm trusts (under the name perfgate-vm, whatever the port).
host_key=$cache/ssh_host_ed25519_key
known_hosts=$cache/known_hosts
stamp=$cache/stamp       # what the cached image was built from
overlay=$state/overlay.qcow2
console=$state/console.log
pidfile=$state/qemu.pid
portfile=$state/ssh.port
accelfile=$state/accel
# The checkout these scripts belong to. up.sh copies it into the VM at the
# same path, owned by runner (as actions/checkout leaves a workspace), so
# that test binaries built on the host find their sources and testdata.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
guest_checkout=$repo

log() { echo "vm: $*" >&2; }

# shellcheck source=scripts/lib/pid.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pid.sh"

# qemu_pid prints the pid of this VM's qemu if it still runs.
qemu_pid() { pid_in "$pidfile" "$overlay"; }

# ssh_vm ARGS...: ssh to runner@ the VM, bound to loopback only. The host
# key is checked against the one build.sh baked into the image: up.sh picks
# the port before qemu binds it, so another local process could take it,
# and without the check it would receive the commands run as the VM's
# root (sudo) and the checkout. Remote command lines are shell code: quote
# what goes into them with q.
# PERFGATE_VM_KNOWN_HOSTS replaces the pinned key's file (the suite's
# check that another key is refused).
ssh_vm() {
  ssh -q -i "$key" -p "$(cat "$portfile")" -o BatchMode=yes -o IdentitiesOnly=yes \
    -o StrictHostKeyChecking=yes -o UserKnownHostsFile="${PERFGATE_VM_KNOWN_HOSTS:-$known_hosts}" -o GlobalKnownHostsFile=/dev/null \
    -o HostKeyAlias=perfgate-vm -o HostKeyAlgorithms=ssh-ed25519 -o CheckHostIP=no \
    -o LogLevel=ERROR -o ConnectTimeout=5 \
    -o ServerAliveInterval=15 -o ServerAliveCountMax=8 runner@127.0.0.1 "$@"
}

# q WORD: WORD quoted for the guest's shell (bash, runner's login shell).
q() { printf '%q' "$1"; }
