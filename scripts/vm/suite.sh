#!/usr/bin/env bash
# The GitHub runner's path, tested in the runner-like VM (up.sh): systemd
# with cgroup v2, Docker with the systemd cgroup driver, and the job as the
# non-root user runner, who reaches root only through `sudo -n`, exactly as
# the Action starts the engine. Only what differs on that path runs here;
# everything else is tested on the host, where it is ~40 times faster than
# under emulation. Test binaries are built on the host and run in the VM
# against its real kernel, cgroups and Docker engine. After every stage
# nothing of perfgate may be left in the VM's cgroup tree.
#
#   bash scripts/vm/suite.sh            # build what it needs, boot, check
#   bash scripts/vm/suite.sh prepare    # only build: the VM's disk image and
#                                       # everything built on the host
#
# `prepare` measures nothing, so scripts/test.sh runs it in the background
# beside other builds; with PERFGATE_VM_WORK set, both use that directory
# for the host's builds and the run reuses what prepare left there (one
# directory per test run: it is not checked against the checkout).
# Boots the VM if it is not up and leaves it up (down.sh stops it).
# Run as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/vm/env.sh
. "$here/env.sh"
started=$(date +%s)
mode=${1:-run}
case $mode in run | prepare) ;; *) log "usage: suite.sh [prepare]"; exit 2 ;; esac

if [ -n "${PERFGATE_VM_WORK:-}" ]; then
  work=$PERFGATE_VM_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
guest_bin=/home/runner/perfgate-vm-tests
runner_home=${PERFGATE_VM_RUNNER_HOME:-$cache/runner-home}
packages=(cgroup privilege target/local target/docker)
svc_src=$repo/engine/internal/target/testdata/svc
svc=perfgate-test-svc-amd64-$(sha256sum "$svc_src/main.go" | cut -c1-12)

# prepare_on_host builds, on the host, everything the checks ship into the
# VM, into $work:
#  - the test binaries and the targets' test service (where
#    targettest.BuildSvc looks for it);
#  - perfgate, for the gates through sudo and for the Action's scenario,
#    which finds it in its tool cache (PERFGATE_E2E_ENGINE);
#  - runner's Go build cache, in $runner_home, warmed for the example
#    service (a cold build of net/http takes ~3 minutes under TCG), as on
#    GitHub after actions/setup-go restores it: the gates build the pull
#    request's code as runner, with runner's caches. Nothing in the VM
#    builds the engine, so neither the engine's packages nor its modules
#    are warmed there: that was a second cold compile of the engine and
#    client-go in phase 1 (its own cache), and half the payload.
#    $runner_home is kept in the VM's cache directory: the next run's
#    builds there are incremental, as setup-go's cache is from one job to
#    the next.
prepare_on_host() {
  log "building the test binaries, perfgate and runner's Go caches on the host"
  rm -rf "${work:?}/bin" "$work/prepared"
  mkdir -p "$work/bin"
  local pkg
  # Static and -trimpath, like the end-to-end tests' binaries and the
  # Action's perfgate (scripts/test.sh): the standard library and the
  # dependencies compiled for those serve these too.
  for pkg in "${packages[@]}"; do
    (cd "$repo/engine" && CGO_ENABLED=0 go test -trimpath -c -o "$work/bin/${pkg//\//-}.test" "./internal/$pkg")
  done
  (cd "$svc_src" && CGO_ENABLED=0 go build -trimpath -o "$work/bin/$svc" .)
  (cd "$repo/examples/service" && GOCACHE="$runner_home/.cache/go-build" GOFLAGS='' CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -o /dev/null ./cmd/server)
  mkdir -p "$runner_home/go"
  # The Action's perfgate, with its flags and the host's caches: the same
  # compile as scripts/test.sh's "build the end-to-end tests and perfgate
  # as the Action does", which phase 1 makes anyway.
  (cd "$repo/engine" && GOFLAGS='' CGO_ENABLED=0 go build -trimpath -o "$work/bin/perfgate" ./cmd/perfgate)
  date >"$work/prepared"
}

if [ "$mode" = prepare ]; then
  bash "$here/build.sh" >/dev/null
  prepare_on_host
  log "prepared in $(($(date +%s) - started)) s: the disk image and $work"
  exit 0
fi

[ -s "$work/prepared" ] || prepare_on_host
# Not in prepare: scripts/test.sh runs npm install itself meanwhile.
[ -d "$repo/node_modules" ] || (cd "$repo" && npm install --no-audit --no-fund --loglevel=error)

# make_payload writes what the VM needs from the host (runner's Go caches,
# the test binaries and perfgate, the action's node_modules; about 0.9 GB)
# into an ext4 image, $payload, owned by runner (uid 1001, build.sh), that
# up.sh attaches as the VM's second disk. Copying the same over ssh took
# ~140 s: under TCG the guest's side of ssh and tar is emulated; the disk
# costs the guest a mount.
payload=$work/payload.ext4
make_payload() {
  local staging=$work/payload t0
  t0=$(date +%s)
  rm -rf "$staging" "$payload"
  mkdir -p "$staging"
  # Hard links for what is ours to give to runner (the cache is runner's,
  # the test binaries this run's); a copy of node_modules, which stays the
  # checkout's.
  cp -al "$runner_home" "$staging/home" 2>/dev/null || cp -a "$runner_home" "$staging/home"
  cp -al "$work/bin" "$staging/bin" 2>/dev/null || cp -a "$work/bin" "$staging/bin"
  cp -a "$repo/node_modules" "$staging/node_modules"
  chown -R 1001:1001 "$staging"
  local bytes files
  bytes=$(du -sb "$staging" | cut -f1)
  files=$(find "$staging" | wc -l)
  # Room for what the tests write (the Action's build of the engine, the
  # example service's builds) and an inode for every file, twice over.
  truncate -s $((bytes * 3 / 2 + (1 << 30))) "$payload"
  mkfs.ext4 -q -F -L perfgate-payload -N $((files * 2 + 100000)) -d "$staging" "$payload"
  rm -rf "$staging"
  log "payload disk: $((bytes >> 20)) MiB in $files files, made in $(($(date +%s) - t0)) s"
}
make_payload
PERFGATE_VM_PAYLOAD=$payload bash "$here/up.sh"
# The payload's directories take their places by bind mounts: runner's home
# keeps its own files (.ssh), the checkout its own.
ssh_vm "set -e
  sudo -n mkdir -p /mnt/payload && sudo -n mount LABEL=perfgate-payload /mnt/payload
  mkdir -p /home/runner/.cache /home/runner/go $(q "$guest_bin") $(q "$guest_checkout/node_modules")
  sudo -n mount --bind /mnt/payload/home/.cache /home/runner/.cache
  sudo -n mount --bind /mnt/payload/home/go /home/runner/go
  sudo -n mount --bind /mnt/payload/bin $(q "$guest_bin")
  sudo -n mount --bind /mnt/payload/node_modules $(q "$guest_checkout/node_modules")
  cp $(q "$guest_bin/$svc") $(q "/tmp/$svc")"

# The pin holds: a server on the port whose key is not the one build.sh
# baked in (here: the real guest, against another pinned key) gets no
# command. Without the pin, whoever took the port first would.
other_key=$(mktemp -d /tmp/perfgate-vm-hostkey.XXXXXX)
ssh-keygen -q -t ed25519 -N '' -f "$other_key/key"
echo "perfgate-vm $(cut -d' ' -f1,2 "$other_key/key.pub")" >"$other_key/known_hosts"
if PERFGATE_VM_KNOWN_HOSTS=$other_key/known_hosts ssh_vm true 2>/dev/null; then
  rm -rf "$other_key"
  log "FAILED: ssh ran a command on a host whose key is not the pinned one"
  exit 1
fi
rm -rf "$other_key"
log "ok: ssh refuses a host whose key is not the pinned one"

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
  ssh_vm "cd $(q "$guest_checkout") && $*" || rc=$?
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

# Tests of these packages whose path is the same on the runner, left to the
# host: a container that dies at start is told from docker's own exit code
# and logs, whatever the cgroup driver (~20 s under TCG); the sweep of dead
# runs' containers and images goes by their labels and PIDs, whatever the
# driver (41 s under TCG; the confinement test prepares the target on the
# systemd driver here).
declare -A host_only=([target/docker]='^(TestServiceDyingAtStartFailsFastWithItsStderr|TestPrepareSweepsWhatDeadRunsLeft)$')
for pkg in "${packages[@]}"; do
  skip=${host_only[$pkg]:+-test.skip=$(q "${host_only[$pkg]}")}
  # shellcheck disable=SC2086 # $skip is one word or none
  stage "go test ./internal/$pkg as runner through sudo -n" \
    "cd engine/internal/$pkg && $(as_action "$(q "$guest_bin/${pkg//\//-}.test")" -test.count=1 -test.v $skip) > /tmp/vm-test-${pkg//\//-}.log 2>&1; rc=\$?; grep -E '^(--- |ok|FAIL|PASS)' /tmp/vm-test-${pkg//\//-}.log; [ \$rc = 0 ] || tail -40 /tmp/vm-test-${pkg//\//-}.log; exit \$rc"
done

# --- the engine's gates, as the Action runs them -----------------------------
stage "gates through sudo -n: cgroup v2, the service as runner, nothing root-owned or left behind" \
  "bash scripts/vm/gate-as-runner.sh $(q "$guest_bin/perfgate")"

# --- the Action end to end, as on GitHub --------------------------------------
# Only the scenario whose path crosses sudo in a way the host's run (as
# root) does not: a pull request with a regression, where the Action finds
# password-less sudo, starts the engine through it, comments and cleans up
# in its post step. A cancelled job is not run here again: the Action
# forwards the runner's SIGINT as SIGTERM to its child, sudo, which it
# started in a session of its own (src/perfgate.ts; the host's
# cancelled-job scenario checks the forwarding, as root without sudo), and
# gate-as-runner.sh's first gate checks the rest as runner: sudo started
# the same way relays a SIGTERM sent from outside its session, the engine
# writes its report, and nothing it wrote is root-owned. Under TCG the scenario cost
# 70-140 s (local-action's own start ~65 s, and Node died of SIGILL there
# more than anywhere). The other scenarios (fork, push, nightly record,
# the two-stage comment, the accept label, a cancelled job) run the same
# code as on the host: scripts/test.sh runs them all there. Its gate keeps
# one build per side (layout: build): relinking both sides cost ~40 s a
# round under TCG, and gate-as-runner.sh's first gate checks the relink as
# runner through sudo. The scenario's output, timed, is in
# /tmp/vm-action-times: CI's log shows when each step began. The engine
# is the one built on the host for the gates above (the same sources and
# flags as the Action's build), put in the scenario's tool cache as
# actions/cache restores it on a runner: the Action's own build of it took
# ~100 s under TCG, and the host's scenarios test that build. Only the
# scenario's file is collected: vitest imports every file it collects,
# each in a module graph of its own, and collecting all four took 42 s of
# the stage's 256 under TCG (CI, 2026-12-07).
stage "the Action end to end through @github/local-action, as runner with sudo" \
  "rm -rf /tmp/vm-action-times
   PERFGATE_E2E_ENGINE=$(q "$guest_bin/perfgate") PERFGATE_E2E_TIMED_LOG=/tmp/vm-action-times PERFGATE_E2E_RATE=20 PERFGATE_E2E_VIA_SUDO=1 npx vitest run --config vitest.e2e.config.ts __tests__/e2e/pull-request.e2e.ts -t 'fails the step, keeps the results' >/tmp/vm-action.log 2>&1; rc=\$?; cat /tmp/vm-action.log
   # What each step cost under emulation: the seconds since the scenario
   # started at every log group and every measured run.
   for f in /tmp/vm-action-times/*.log; do echo \"-- \$(basename \"\$f\" .log)\"; grep -E '::group::|perfgate engine:|^ *[0-9.]+ (base|head|run|round|verdict)' \"\$f\" | cut -c1-160; done
   [ \$rc = 0 ] || exit \$rc
   # A renamed scenario would match nothing and pass: it must have run.
   grep -Eq 'Tests +1 passed' /tmp/vm-action.log || { echo 'the pull-request scenario did not run and pass'; exit 1; }"

log "suite took $(($(date +%s) - started)) s"
if [ ${#failed[@]} -gt 0 ]; then
  log "FAILED: ${failed[*]}"
  exit 1
fi
log "all VM checks passed"
