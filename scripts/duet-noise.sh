#!/usr/bin/env bash
# A/A duets of the example service: how far apart two identical builds
# measure per round (the noise the statistics work against) and whether
# anything in the design favours one side (the bias). Recorded in
# docs/benchmarks.md ("Duet noise and bias").
#
#   sudo bash scripts/duet-noise.sh [variant...]
#
# Variants (default: profiles noprofiles profiles noprofiles):
#   profiles     all six profiles captured in the gating rounds
#   noprofiles   no profiles (profiles: [])
#   sequential   experiment: sequential, all profiles (the old design)
# ROUNDS (default 12), DURATION (default 5s), RATE (default 300) set the
# experiment. Each variant runs one gate with a fixed number of rounds and
# prints every round's CPU/request of both sides, the mean and SD of the
# per-round log-ratios, and the same for allocations.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(profiles noprofiles profiles noprofiles)

for variant in "${variants[@]}"; do
  experiment=duet profiles="[cpu, allocs, mutex, block, goroutine, heap]"
  case "$variant" in
    profiles) ;;
    noprofiles) profiles="[]" ;;
    sequential) experiment=sequential ;;
    *) echo "duet-noise: unknown variant $variant" >&2; exit 2 ;;
  esac
  sed -e "s/^pairs: .*/experiment: $experiment\npairs: ${ROUNDS:-12}/" \
      -e "s/^  duration: .*/  duration: ${DURATION:-5s}/" \
      -e "s/^  rate: .*/  rate: ${RATE:-300}/" \
      -e "s/^profiles: .*/profiles: $profiles/" \
      "$root/examples/perfgate.yml" > "$work/perfgate.yml"
  rm -rf "$work/out"
  "$work/perfgate" gate --config "$work/perfgate.yml" --base-dir "$root/examples/service" \
    --head "$root/examples/service" --out "$work/out" >/dev/null 2>&1 || true
  python3 "$root/scripts/rounds.py" --label "$variant" "$work/out/report.json"
done
