#!/usr/bin/env bash
# All tests: formatting, vet, the engine's unit and end-to-end tests (real
# processes, cgroups, containers and profiles), the example service and its planted
# regressions, and the action's unit tests (fake GitHub API checked against
# GitHub's REST description) and end-to-end run through @github/local-action.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v go >/dev/null || { echo "test: Go is not installed (https://go.dev/dl/)" >&2; exit 3; }

echo "==> gofmt"
unformatted=$(gofmt -l "$root/engine" "$root/examples/service")
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:" >&2
  echo "$unformatted" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ]; then
  # The docker target's tests run against a private engine (its own socket,
  # data root and bridge rules), removed again however this script ends.
  echo "==> a private Docker engine for the docker target's tests"
  docker_host=$(bash "$root/scripts/docker/up.sh" | tail -1)
  export "${docker_host?}"
  trap 'bash "$root/scripts/docker/down.sh"' EXIT
fi

echo "==> engine: go vet"
(cd "$root/engine" && go vet ./...)

echo "==> engine: unit tests with the race detector"
(cd "$root/engine" && go test -race -count=1 $(go list ./... | grep -v /cmd/perfgate))

echo "==> engine: end-to-end gates of the example service"
# Without -race: the load generator runs in the test process, and the race
# detector's overhead would distort the measured load.
(cd "$root/engine" && go test -count=1 -timeout 20m ./cmd/perfgate)

echo "==> example service"
(cd "$root/examples/service" && go vet ./... && go test -race -count=1 ./...)

echo "==> planted regressions apply and build"
bash "$root/examples/regressions/check.sh"

echo "==> action: npm install, typecheck, unit tests"
command -v npm >/dev/null || { echo "test: Node.js 20+ and npm are needed for the action's tests (https://nodejs.org)" >&2; exit 3; }
# npm install, not npm ci: the registry mirror this project is developed on
# serves only the linux-x64 build of rollup, so package-lock.json lacks the
# other platforms' optional packages and npm ci refuses it. npm install
# still installs the locked versions.
(cd "$root" && npm install --no-audit --no-fund --loglevel=error && npm run -s typecheck && npm test --silent)

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

echo "all tests passed"
