#!/usr/bin/env bash
# The GitHub runner's path, tested in the runner-like VM (up.sh): systemd
# with cgroup v2, Docker with the systemd cgroup driver, and the job as the
# non-root user runner, who reaches root only through `sudo -n`, exactly as
# the Action starts the engine. Test binaries are built on the host (fast)
# and run in the VM against its real kernel, cgroups and Docker engine.
# After every stage nothing of perfgate may be left in the VM's cgroup tree.
# Boots the VM if it is not up and leaves it up (down.sh stops it).
# Run as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
started=$(date +%s)
bash "$here/up.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
guest_bin=/home/runner/perfgate-vm-tests

# --- test binaries, built on the host ---------------------------------------
log "building the test binaries on the host"
mkdir -p "$work/bin"
packages=(cgroup privilege target/local target/docker)
for pkg in "${packages[@]}"; do
  (cd "$repo/engine" && CGO_ENABLED=0 go test -c -o "$work/bin/${pkg//\//-}.test" "./internal/$pkg")
done
# The targets' test service, where targettest.BuildSvc looks for it.
svc_src=$repo/engine/internal/target/testdata/svc
svc=perfgate-test-svc-amd64-$(sha256sum "$svc_src/main.go" | cut -c1-12)
(cd "$svc_src" && CGO_ENABLED=0 go build -o "$work/bin/$svc" .)
tar -C "$work/bin" -czf - . | ssh_vm "rm -rf $guest_bin && mkdir -p $guest_bin && tar -xzf - -C $guest_bin && cp $guest_bin/$svc /tmp/$svc"

# --- checks -----------------------------------------------------------------
failed=()
# as_action CMD...: CMD as root through `sudo -n`, with the runner's PATH,
# the way src/perfgate.ts starts the engine.
as_action() { echo "sudo -n --preserve-env env PATH=\$PATH $*"; }

# no_leftovers STAGE: no perfgate group under the VM's /sys/fs/cgroup and
# no service process.
no_leftovers() {
  local left
  left=$(ssh_vm 'find /sys/fs/cgroup -type d -name "perfgate-*" 2>/dev/null; pgrep -a -f "[p]erfgate-test-svc|[p]erfgate-bin-|[p]erfgate-round-bin-" || true')
  if [ -n "$left" ]; then
    log "FAIL: $1 left behind in the VM:"
    echo "$left" >&2
    failed+=("$1: leftovers")
  fi
}

# stage NAME CMD: run CMD in the VM as runner, in the checkout, and record.
stage() {
  local name=$1 t0 rc=0
  shift
  t0=$(date +%s)
  log "== $name"
  ssh_vm "cd $guest_checkout && $*" || rc=$?
  if [ "$rc" = 0 ]; then
    log "ok: $name ($(($(date +%s) - t0)) s)"
  else
    log "FAIL: $name (exit $rc, $(($(date +%s) - t0)) s)"
    failed+=("$name")
  fi
  no_leftovers "$name"
}

stage "the VM is the runner's: runner without root, sudo -n, cgroup v2, Docker's systemd driver" '
  set -e
  [ "$(id -un)" = runner ] && [ "$(id -u)" != 0 ]
  sudo -n true
  [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]
  grep -qw cpu /sys/fs/cgroup/cgroup.controllers && grep -qw memory /sys/fs/cgroup/cgroup.controllers
  sudo -n docker info --format "{{.CgroupDriver}} v{{.CgroupVersion}}" | grep -qx "systemd v2"
  echo "runner $(id -u), $(uname -r), cgroup2 with: $(cat /sys/fs/cgroup/cgroup.controllers), docker $(sudo -n docker info --format "{{.CgroupDriver}} v{{.CgroupVersion}}")"'

for pkg in "${packages[@]}"; do
  stage "go test ./internal/$pkg as runner through sudo -n" \
    "cd engine/internal/$pkg && $(as_action "$guest_bin/${pkg//\//-}.test" -test.count=1 -test.v) > /tmp/vm-test-${pkg//\//-}.log 2>&1; rc=\$?; grep -E '^(--- |ok|FAIL|PASS)' /tmp/vm-test-${pkg//\//-}.log; [ \$rc = 0 ] || tail -40 /tmp/vm-test-${pkg//\//-}.log; exit \$rc"
done

# --- the engine's gates, as the Action runs them -----------------------------
# The runner's Go build cache, warmed on the host for the example service
# (a cold build of net/http takes ~3 minutes under TCG); the engine builds
# the pull request's code as runner, with runner's caches, as on GitHub
# after actions/setup-go restores them.
log "building perfgate and warming runner's Go cache on the host"
(cd "$repo/engine" && CGO_ENABLED=0 go build -trimpath -o "$work/perfgate" ./cmd/perfgate)
(cd "$repo/examples/service" && GOCACHE="$work/home/.cache/go-build" GOFLAGS= CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -o /dev/null ./cmd/server)
tar -C "$work" -czf - perfgate | ssh_vm "tar -xzf - -C $guest_bin"
tar -C "$work/home" -czf - . | ssh_vm "tar -xzf - -C /home/runner"
stage "gates through sudo -n: cgroup v2, the service as runner, nothing root-owned or left behind" \
  "bash scripts/vm/gate-as-runner.sh $guest_bin/perfgate"

# --- the Action end to end, as on GitHub --------------------------------------
# The local-action scenarios of __tests__/e2e (a same-repo pull request with
# a regression and its sticky comment, a fork, a push, a nightly record, a
# cancelled job, the fork-safe two stages) as runner: the Action finds
# password-less sudo and starts the engine through it. The runner's Go
# caches get the engine's modules and build (the Action builds the engine
# with the runner's Go, ~20 minutes cold under TCG), and node_modules comes
# from the host's npm install.
log "warming runner's Go caches for the engine and copying node_modules"
[ -d "$repo/node_modules" ] || (cd "$repo" && npm install --no-audit --no-fund --loglevel=error)
host_modules=$(cd "$repo/engine" && go mod download && go env GOMODCACHE)
(cd "$repo/engine" && GOMODCACHE="$work/home/go/pkg/mod" GOPROXY="file://$host_modules/cache/download" GOSUMDB=off GOFLAGS=-mod=mod go mod download)
(cd "$repo/engine" && GOCACHE="$work/home/.cache/go-build" GOMODCACHE="$work/home/go/pkg/mod" GOFLAGS= CGO_ENABLED=0 go build -trimpath -o /dev/null ./cmd/perfgate)
tar -C "$work/home" -cf - . | ssh_vm "tar -xf - -C /home/runner"
tar -C "$repo" -cf - node_modules | ssh_vm "tar -xf - -C $guest_checkout"
stage "the Action end to end through @github/local-action, as runner with sudo" \
  "PERFGATE_E2E_RATE=20 PERFGATE_E2E_VIA_SUDO=1 npx vitest run --config vitest.e2e.config.ts"

log "suite took $(($(date +%s) - started)) s"
if [ ${#failed[@]} -gt 0 ]; then
  log "FAILED: ${failed[*]}"
  exit 1
fi
log "all VM checks passed"
