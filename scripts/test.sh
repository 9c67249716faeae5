#!/usr/bin/env bash
# All tests: formatting, vet, the engine's unit and end-to-end tests (real
# processes, cgroups and profiles), the example service and its planted
# regressions.
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

echo "all tests passed"
