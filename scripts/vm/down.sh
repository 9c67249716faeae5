#!/usr/bin/env bash
# Stops the VM of up.sh and removes $state (its disk overlay, console log,
# pid and port). The cached image stays, unless `--purge` is given. qemu's
# user-mode network has no tap or bridge on the host, so the qemu process
# and $state are all a VM leaves. Safe to run when nothing is up. Exits 1,
# naming what is left, if the host is not clean afterwards. Run as root.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/vm/env.sh
. "$here/env.sh"
[ "$(id -u)" = 0 ] || { log "run me as root"; exit 1; }

if pid=$(qemu_pid); then
  # A clean shutdown first; the overlay is thrown away, so a kill after a
  # few seconds loses nothing.
  ssh_vm 'sudo -n systemctl poweroff' >/dev/null 2>&1 || true
  for _ in $(seq 50); do alive "$pid" || break; sleep 0.2; done
  alive "$pid" && kill "$pid" 2>/dev/null
  for _ in $(seq 50); do alive "$pid" || break; sleep 0.2; done
  alive "$pid" && kill -9 "$pid" 2>/dev/null
fi
# A qemu of ours whose pid file is gone (a crashed up.sh).
for p in /proc/[0-9]*; do
  cmd=$({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null) || continue
  [[ $cmd == qemu-system-x86_64\ -name\ perfgate-vm* ]] && kill -9 "${p#/proc/}" 2>/dev/null
done
rm -rf "$state"
[ "${1:-}" = --purge ] && rm -rf "$cache"

left=()
for p in /proc/[0-9]*; do
  cmd=$({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null) || continue
  [[ $cmd == qemu-system-x86_64\ -name\ perfgate-vm* ]] && alive "${p#/proc/}" && left+=("process ${p#/proc/}")
done
[ -e "$state" ] && left+=("$state")
if [ ${#left[@]} -gt 0 ]; then
  log "left on the host: ${left[*]}"
  exit 1
fi
log "down: nothing of the VM is left on the host"
