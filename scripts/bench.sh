#!/usr/bin/env bash
# Engine benchmarks (results recorded in docs/benchmarks.md): load fidelity
# at 500, 2,000 and 5,000 req/s, the engine's wall-time overhead per run,
# and diagnosis: real gates of planted regressions, each of which must be
# caught, named among the largest deltas of its profile and hinted
# (TestGatePlantedRegressions; CI leaves it out for time).
# Run as root (cgroups) on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/engine"
go test -run '^$' -bench LoadFidelity -benchtime 1x -count "${COUNT:-3}" ./internal/load
go test -run '^$' -bench RunOverhead -benchtime 3x -count "${COUNT:-3}" ./internal/experiment
go test -run '^$' -bench RecomputeLargeProfiles -benchtime 1x -count "${COUNT:-3}" ./internal/session
PERFGATE_DIAGNOSIS=1 CGO_ENABLED=0 go test -count=1 -run '^TestGatePlantedRegressions$' -v ./cmd/perfgate
