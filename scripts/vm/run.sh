#!/usr/bin/env bash
# Runs a command in the VM of up.sh as the user runner, in the checkout's
# copy, like a step of a GitHub Actions job: `scripts/vm/run.sh sudo -n id`.
# The arguments are joined into one shell command line, as ssh does. The
# exit status is the command's. Run as root (the VM's key is root's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/vm/env.sh
. "$here/env.sh"
qemu_pid >/dev/null || { log "the VM is not up: scripts/vm/up.sh"; exit 2; }
[ $# -gt 0 ] || { log "usage: run.sh COMMAND [ARG...]"; exit 2; }
ssh_vm "cd $(q "$guest_checkout") && $*"
