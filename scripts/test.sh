#!/usr/bin/env bash
# All tests: formatting, vet, linters, the engine's unit and end-to-end tests (real
# processes, cgroups, containers, a Kubernetes cluster and profiles), the example service and its planted
# regressions, and the action's unit tests (fake GitHub API checked against
# GitHub's REST description) and end-to-end run through @github/local-action.
#
#   bash scripts/test.sh                 # everything
#   bash scripts/test.sh --check-setup   # only say who it runs as and which Go
#
# Cgroups, the private Docker engine, the local Kubernetes and the VM need
# root: run as a user, the script re-runs itself through sudo, keeping PATH
# so root uses your Go (scripts/lib/root.sh). Without sudo (or with
# PERFGATE_NO_SUDO=1) it runs what needs no root and says what it skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/root.sh"
as_root test "the cgroup, Docker, Kubernetes and VM tests" "$root/scripts/test.sh" "$@"
need_go test
check_setup test "$@"

echo "==> gofmt"
unformatted=$(gofmt -l "$root/engine" "$root/examples/service" "$root/examples/service-db")
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:" >&2
  echo "$unformatted" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ]; then
  # The docker target's tests run against a private engine (its own socket,
  # data root and bridge rules) and the kubernetes target's against a real
  # single-node cluster (scripts/k8s-local; the first run builds Kubernetes,
  # about 5 minutes, cached in /var/cache/perfgate-k8s). Both are removed
  # again however this script ends.
  trap 'bash "$root/scripts/k8s-local/down.sh" >/dev/null; bash "$root/scripts/docker/down.sh"; bash "$root/scripts/vm/down.sh" >/dev/null' EXIT
  echo "==> a private Docker engine for the docker target's tests"
  docker_host=$(bash "$root/scripts/docker/up.sh" | tail -1)
  export "${docker_host?}"
  echo "==> a local Kubernetes cluster for the kubernetes target's tests"
  kubeconfig=$(bash "$root/scripts/k8s-local/up.sh" | tail -1)
  export "${kubeconfig?}"
fi

echo "==> engine: go vet"
(cd "$root/engine" && go vet ./...)

echo "==> engine: unit tests with the race detector"
(cd "$root/engine" && go test -race -count=1 $(go list ./... | grep -v -e /cmd/perfgate -e /target/kubernetes))

echo "==> engine: kubernetes target and end-to-end gates of the example service"
# Without -race, and static (CGO_ENABLED=0): the kubernetes target ships the
# test binary itself into the cluster as the load generator's FROM-scratch
# image, and in the other gates the load generator runs in the test
# process, where the race detector's overhead would distort the load.
# One package at a time (-p 1): both use the one cluster, and each test's
# check that nothing of its run is left in the cluster would otherwise see
# the other package's live objects (and the gates would share the CPUs with
# the other package's pods).
(cd "$root/engine" && CGO_ENABLED=0 go test -p 1 -count=1 -timeout 45m ./internal/target/kubernetes ./cmd/perfgate)
# The cluster's work is done: its control plane would only take CPU from
# the emulated VM below.
[ "$(id -u)" = 0 ] && bash "$root/scripts/k8s-local/down.sh" >/dev/null

echo "==> example service"
(cd "$root/examples/service" && go vet ./... && go test -race -count=1 ./...)

echo "==> planted regressions apply and build"
bash "$root/examples/regressions/check.sh"

echo "==> database example and its planted regression"
# Its end-to-end gate on a real PostgreSQL is in ./cmd/perfgate above
# (e2e_postgres_test.go starts and removes a private cluster itself).
(cd "$root/examples/service-db" && go vet ./... && go test -race -count=1 ./...)
db_head=$(mktemp -d)
cp -R "$root/examples/service-db/." "$db_head"
(cd "$db_head" && GIT_CEILING_DIRECTORIES="$db_head" git apply "$root/examples/service-db/regressions/no-idle-conns.patch" && go vet ./... && go build ./...)
rm -rf "$db_head"

echo "==> action: npm install, typecheck, unit tests"
command -v npm >/dev/null || { echo "test: Node.js 20+ and npm are needed for the action's tests (https://nodejs.org)" >&2; exit 3; }
# npm install, not npm ci: the registry mirror this project is developed on
# serves only the linux-x64 build of rollup, so package-lock.json lacks the
# other platforms' optional packages and npm ci refuses it. npm install
# still installs the locked versions.
(cd "$root" && npm install --no-audit --no-fund --loglevel=error && npm run -s typecheck && npm test --silent)

echo "==> linters: golangci-lint (engine, example service), eslint and prettier (action)"
bash "$root/scripts/lint.sh"

echo "==> action: dist/ is the build of src/, README tables match action.yml, workflows lint"
(cd "$root" && npm run -s build >/dev/null)
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ -n "$(git -C "$root" status --porcelain -- dist/)" ]; then
  echo "dist/ differs from a fresh build of src/: run npm run build and commit dist/" >&2
  git -C "$root" status --short -- dist/ >&2
  exit 1
fi
(cd "$root" && node scripts/action-docs.mjs --check)
bash "$root/scripts/actionlint.sh"

echo "==> action: end to end through @github/local-action (real gate, fake GitHub API)"
(cd "$root" && npx vitest run --config vitest.e2e.config.ts)

echo "==> the GitHub runner's path in a VM: cgroup v2, runner through sudo -n, Docker's systemd driver"
# A Debian 12 VM booted with qemu (scripts/vm, docs/vm.md): the cgroup v2
# and docker tests, real gates through sudo -n, and the action's end-to-end
# scenarios, all as the non-root user runner. Building it needs root.
if [ "$(id -u)" = 0 ]; then
  bash "$root/scripts/vm/suite.sh"
  bash "$root/scripts/vm/down.sh"
else
  echo "skipped: building and booting the VM needs root (run as root, or as a user with sudo)"
fi

echo "all tests passed"
