#!/usr/bin/env bash
# The gate's power on this machine (recorded in docs/benchmarks.md): how
# often A/A gates fail (target: never), and how often planted regressions of
# known size are caught (examples/regressions/power/: +5% and +10% CPU per
# request, +1% allocations per request), with each gate's wall time.
#
#   sudo bash scripts/power.sh            # AA=10 PLANTS=3 by default
#   AA=3 PLANTS=1 sudo bash scripts/power.sh
#
# Each gate is the demo's mix: 10 pairs, 1 s warm-up, 2 s windows, 300 req/s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)
sed -e 's/^  warmup: .*/  warmup: 1s/' -e 's/^  duration: .*/  duration: 2s/' -e 's/^pairs: .*/pairs: 10/' \
  "$root/examples/perfgate.yml" > "$work/perfgate.yml"

gate() { # name patch
  rm -rf "$work/head" "$work/out"
  cp -r "$root/examples/service" "$work/head"
  if [ -n "$2" ]; then (cd "$work/head" && git apply "$2"); fi
  local start end code
  start=$(date +%s)
  set +e
  "$work/perfgate" gate --config "$work/perfgate.yml" --base "$root/examples/service" --head "$work/head" --out "$work/out" >/dev/null 2>&1
  code=$?
  set -e
  end=$(date +%s)
  python3 - "$1" "$code" "$((end - start))" "$work/out/report.json" <<'PY'
import json, sys
name, code, seconds, path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
r = json.load(open(path))
m = {x["name"]: x for x in r.get("metrics", [])}
def show(k):
    x = m.get(k)
    if not x:
        return "-"
    return "%s %+.1f%% [%+.1f%%, %+.1f%%]" % (x["outcome"], 100 * x["delta"], 100 * x["ci"][0], 100 * x["ci"][1])
print("%-8s exit %s  %-12s  cpu: %-44s allocs: %-44s %ss" % (name, code, r["verdict"], show("cpu"), show("allocs"), seconds), flush=True)
PY
}

for i in $(seq "${AA:-10}"); do gate "A/A" ""; done
for plant in cpu-5 cpu-10 alloc-1; do
  for i in $(seq "${PLANTS:-3}"); do gate "$plant" "$root/examples/regressions/power/$plant.patch"; done
done
