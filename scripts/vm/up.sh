#!/usr/bin/env bash
# Boots the runner-like VM (build.sh's image, built on the first run) with
# qemu: KVM when it boots a guest on this host, TCG (software emulation,
# correct but slow; this is for correctness, not timing) otherwise, saying
# which. The disk is a fresh copy-on-write overlay of the cached image, so
# every boot starts from the same state. Networking is qemu's user mode,
# with the guest's SSH forwarded from 127.0.0.1 only. Copies this checkout
# (tracked and untracked files, not ignored ones) to $guest_checkout, owned
# by runner. Returns when runner can log in; run.sh runs commands there,
# down.sh stops it and removes $state. Idempotent. Run as root.
#
# PERFGATE_VM_ACCEL=kvm|tcg forces the accelerator; PERFGATE_VM_MEMORY
# (MiB, default 4096) and PERFGATE_VM_CPUS (default: the host's, at most 4)
# size the VM. PERFGATE_VM_PAYLOAD names a disk image to attach as the
# VM's second disk (suite.sh's way of handing it 0.9 GB of caches and
# binaries); it takes a fresh boot.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/vm/env.sh
. "$here/env.sh"
[ "$(id -u)" = 0 ] || { log "run me as root"; exit 1; }

# copy_checkout replaces the VM's copy of the checkout with this one, as
# actions/checkout leaves a workspace: owned by runner.
copy_checkout() {
  ssh_vm "sudo -n rm -rf $(q "$guest_checkout") && sudo -n install -d -o runner -g runner $(q "$guest_checkout")"
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -czf -) | ssh_vm "tar -xzf - -C $(q "$guest_checkout")"
}

"$here/build.sh" >/dev/null
payload=${PERFGATE_VM_PAYLOAD:-}
# Up already, and from the image as it is now built (with no payload
# asked for: a disk is attached at boot only): only the checkout.
if [ -z "$payload" ] && qemu_pid >/dev/null && cmp -s "$stamp" "$state/stamp" && ssh_vm true 2>/dev/null; then
  copy_checkout
  log "already up (qemu pid $(qemu_pid), $(cat "$accelfile"), ssh 127.0.0.1:$(cat "$portfile")); checkout copied"
  exit 0
fi
command -v qemu-system-x86_64 >/dev/null || {
  log "installing qemu-system-x86 from apt"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >&2
}
bash "$here/down.sh" >/dev/null 2>&1 || true
mkdir -p "$state"
started=$(date +%s)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
memory=${PERFGATE_VM_MEMORY:-4096}
cpus=${PERFGATE_VM_CPUS:-$(($(nproc) < 4 ? $(nproc) : 4))}

# boot ACCEL: start qemu in the background on a fresh overlay.
boot() {
  local accel=$1 accel_opts payload_opts=()
  [ -n "$payload" ] && payload_opts=(-drive "file=$payload,if=virtio,format=raw,cache=unsafe")
  # shellcheck disable=SC2054 # commas separate qemu's sub-options
  case $accel in
  kvm) accel_opts=(-accel kvm -cpu host) ;;
  # pku=off: with memory protection keys V8 (Node) write-protects its JIT
  # code, and Node died of SIGSEGV now and then under TCG's emulation of it.
  tcg) accel_opts=(-accel tcg,thread=multi -cpu max,pku=off) ;;
  esac
  rm -f "$overlay" "$console" "$pidfile"
  qemu-img create -q -f qcow2 -b "$image" -F raw "$overlay"
  cp "$stamp" "$state/stamp"
  free_port >"$portfile"
  echo "$accel" >"$accelfile"
  qemu-system-x86_64 -name perfgate-vm -machine q35 "${accel_opts[@]}" -smp "$cpus" -m "$memory" \
    -kernel "$kernel" -initrd "$cache/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 systemd.unified_cgroup_hierarchy=1 quiet" \
    -drive "file=$overlay,if=virtio,format=qcow2,cache=unsafe" "${payload_opts[@]}" \
    -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$(cat "$portfile")-:22" -device virtio-net-pci,netdev=net0 \
    -display none -serial "file:$console" -monitor none -daemonize -pidfile "$pidfile"
}

# console_shows PATTERN SECONDS: the serial console printed PATTERN in time.
console_shows() {
  local deadline=$(($(date +%s) + $2))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    grep -q "$1" "$console" 2>/dev/null && return 0
    qemu_pid >/dev/null || return 1
    sleep 0.5
  done
  return 1
}

# KVM where it works: /dev/kvm may exist and still hang a guest kernel (this
# project's development VM is itself a paravirtualised guest), so a KVM boot
# must reach the kernel's first message within 20 s or TCG takes over.
accel=${PERFGATE_VM_ACCEL:-}
if [ -z "$accel" ]; then
  accel=tcg
  if [ -w /dev/kvm ]; then
    if boot kvm 2>"$state/kvm.log" && console_shows 'Linux version' 20; then
      accel=kvm
    else
      log "KVM did not boot a guest kernel here within 20 s ($(tail -1 "$state/kvm.log")); using TCG (software emulation)"
      kill "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null || true
      sleep 1
    fi
  fi
fi
[ "$accel" = kvm ] && [ "$(cat "$accelfile" 2>/dev/null)" = kvm ] && qemu_pid >/dev/null || boot "$accel"
log "booting with $accel ($cpus CPUs, $memory MiB); console: $console"

deadline=$(($(date +%s) + 600))
until ssh_vm true 2>/dev/null; do
  qemu_pid >/dev/null || { log "qemu exited; the console's end:"; tail -30 "$console" >&2; exit 1; }
  [ "$(date +%s)" -lt "$deadline" ] || { log "runner could not log in within 600 s; the console's end:"; tail -30 "$console" >&2; exit 1; }
  sleep 1
done
booted=$(($(date +%s) - started))

copy_checkout
log "up in ${booted} s with $accel, checkout copied in $(($(date +%s) - started - booted)) s; ssh 127.0.0.1:$(cat "$portfile")"
