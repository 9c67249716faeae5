#!/usr/bin/env bash
# The gate's power on this machine (issue 10, recorded in docs/benchmarks.md):
# how often A/A gates fail (target: never) and how often planted regressions
# of known size are caught, at the default config, with each gate's wall time
# including both builds. Every gate's report is kept, and scripts/power.py
# summarises them, beside what a single-run ratio gate and benchstat would
# have said on the same runs.
#
#   sudo bash scripts/power.sh                       # the small defaults below
#   sudo FULL=1 bash scripts/power.sh                # the issue's numbers (171 gates)
#   sudo AA=1 CPU5=1 CPU2=0 CPU10=0 ALLOC1=0 LEAK=0 HEAP=0 bash scripts/power.sh
#
# Gates per plant (default, FULL=1 in brackets); the patches are in
# examples/regressions/ and power/, applied to a copy of examples/service:
#   AA      4 [20]  aa              no patch
#   HALF    0 [20]  cpu-half        power/cpu-half.patch, two hashes, meant as half
#                                   the CPU threshold (δ0 = 0.75%)
#   THRESH  0 [20]  cpu-threshold   power/cpu-threshold.patch, about the CPU
#                                   threshold (1.5%): fails about half the time
#   NEAR    0 [10]  cpu-near        power/cpu-near.patch, near "could detect" (~1.8%)
#   CPU2    2 [20]  cpu-2           power/cpu-2.patch, +2% CPU/request
#   CPU5    4 [20]  cpu-5           power/cpu-5.patch, +5%
#   CPU10   2 [10]  cpu-10          power/cpu-10.patch, +10%
#   ALLOC1  2 [10]  alloc-1         power/alloc-1.patch, +1 allocation/request
#   LEAK    2 [10]  goroutine-leak  goroutine-leak.patch
#   HEAP    2 [10]  heap-retain     power/heap-retain.patch
#   LAYOUT  0 [7]   layout-dependency, layout-cold-route, layout-reorder:
#                   layout/*.patch, changes that move the binary's layout
#                   and nothing on the request path (A/A' gates: a fair
#                   gate passes them); LAYOUT=n runs n gates of each
# Other settings:
#   CONFIG=path    perfgate config (default examples/perfgate.yml, unchanged);
#                  a copy with "layout: build" measures the layout bias
#                  that per-round layouts remove
#   OUT=dir        results (default results/power); each gate keeps
#                  <plant>-<i>/report.json, report.md, gate.log and gate.json
#                  (exit code, wall seconds). Profiles are not kept. Gates
#                  already in OUT are kept and numbering continues after
#                  them, so an interrupted benchmark can be topped up.
#   PERFGATE=path  a perfgate binary to use instead of building engine/
#                  (when the engine's working tree is mid-edit)
#   WAIT=0         do not wait for other perfgate gates on this machine
#                  (by default each gate waits until none runs: two at once
#                  disturb each other's measurements)
#
# At the end it prints scripts/power.py's summary of everything in OUT; rerun
# that alone with calibrated plant sizes, e.g.
#   python3 scripts/power.py --size cpu-5=0.072 results/power
#
# Plants run interleaved, one gate of each per round (the starting plant
# rotating), so slow drift of the machine does not line up with one plant.
# The base is a copy of examples/service taken at the start.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results/power}
config=${CONFIG:-$root/examples/perfgate.yml}
full=${FULL:-0}
pick() { # variable default full-default
  local v=${!1:-}
  if [ -n "$v" ]; then echo "$v"; elif [ "$full" = 1 ]; then echo "$3"; else echo "$2"; fi
}

plants=(aa cpu-half cpu-threshold cpu-near cpu-2 cpu-5 cpu-10 alloc-1 goroutine-leak heap-retain layout-dependency layout-cold-route layout-reorder)
declare -A count patch
count[aa]=$(pick AA 4 20)
count[cpu-half]=$(pick HALF 0 20)
count[cpu-threshold]=$(pick THRESH 0 20)
count[cpu-near]=$(pick NEAR 0 10)
count[cpu-2]=$(pick CPU2 2 20)
count[cpu-5]=$(pick CPU5 4 20)
count[cpu-10]=$(pick CPU10 2 10)
count[alloc-1]=$(pick ALLOC1 2 10)
count[goroutine-leak]=$(pick LEAK 2 10)
count[heap-retain]=$(pick HEAP 2 10)
for p in dependency cold-route reorder; do
  count[layout-$p]=$(pick LAYOUT 0 7)
  patch[layout-$p]=$root/examples/regressions/layout/$p.patch
done
patch[aa]=
patch[cpu-half]=$root/examples/regressions/power/cpu-half.patch
patch[cpu-threshold]=$root/examples/regressions/power/cpu-threshold.patch
patch[cpu-near]=$root/examples/regressions/power/cpu-near.patch
patch[cpu-2]=$root/examples/regressions/power/cpu-2.patch
patch[cpu-5]=$root/examples/regressions/power/cpu-5.patch
patch[cpu-10]=$root/examples/regressions/power/cpu-10.patch
patch[alloc-1]=$root/examples/regressions/power/alloc-1.patch
patch[goroutine-leak]=$root/examples/regressions/goroutine-leak.patch
patch[heap-retain]=$root/examples/regressions/power/heap-retain.patch

for p in "${plants[@]}"; do
  case ${count[$p]} in
    '' | *[!0-9]*) echo "power.sh: the gate count for $p is '${count[$p]}'; expected a whole number such as 0 or 10." >&2; exit 2 ;;
  esac
  if [ "${count[$p]}" -gt 0 ] && [ -n "${patch[$p]}" ] && [ ! -f "${patch[$p]}" ]; then
    echo "power.sh: ${patch[$p]} is missing; set the $p count to 0 or restore the patch." >&2
    exit 2
  fi
done
if [ ! -f "$config" ]; then
  echo "power.sh: config $config not found; set CONFIG to a perfgate.yml." >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Keep git apply from finding an enclosing repository (see
# examples/regressions/check.sh): it would skip the files of our copy.
export GIT_CEILING_DIRECTORIES=$work

if [ -n "${PERFGATE:-}" ]; then
  perfgate=$PERFGATE
else
  perfgate=$work/perfgate
  if ! (cd "$root/engine" && go build -o "$perfgate" ./cmd/perfgate); then
    echo "power.sh: engine/ does not build; build perfgate from a clean snapshot and pass it as PERFGATE=path." >&2
    exit 3
  fi
fi
perfgate_sha=$(sha256sum "$perfgate" | cut -c1-16)
config_sha=$(sha256sum "$config" | cut -c1-16)
cp -r "$root/examples/service" "$work/base"
mkdir -p "$out"

# next_index is the first <plant>-<i> not yet in $out.
next_index() {
  local i=1
  while [ -e "$out/$1-$i" ]; do i=$((i + 1)); done
  echo "$i"
}

wait_for_others() {
  [ "${WAIT:-1}" = 0 ] && return
  local said=
  while pgrep -f 'perfgate gate' >/dev/null; do
    if [ -z "$said" ]; then
      echo "waiting for another perfgate gate to finish (WAIT=0 to skip):" >&2
      pgrep -af 'perfgate gate' >&2 || true
      said=1
    fi
    sleep 10
  done
}

gate() { # plant
  local plant=$1 i dir start end code seconds
  i=$(next_index "$plant")
  dir=$out/$plant-$i
  rm -rf "$work/head" "$work/out"
  cp -r "$work/base" "$work/head"
  if [ -n "${patch[$plant]}" ]; then
    if ! (cd "$work/head" && git apply "${patch[$plant]}"); then
      echo "power.sh: ${patch[$plant]} does not apply to examples/service; fix the patch (examples/regressions/check.sh)." >&2
      exit 2
    fi
  fi
  wait_for_others
  mkdir -p "$dir"
  start=$(date +%s.%N)
  set +e
  "$perfgate" gate --config "$config" --base-dir "$work/base" --head "$work/head" --out "$work/out" >"$dir/gate.log" 2>&1
  code=$?
  set -e
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  for f in report.json report.md; do
    if [ -f "$work/out/$f" ]; then cp "$work/out/$f" "$dir/"; fi
  done
  python3 - "$dir/gate.json" "$plant" "$i" "${patch[$plant]}" "$code" "$seconds" "${start%.*}" "$config" "$config_sha" "$perfgate_sha" <<'PY'
import json, sys, time
path, plant, i, patch, code, seconds, start, config, config_sha, perfgate_sha = sys.argv[1:]
json.dump({"plant": plant, "index": int(i), "patch": patch or None, "exit": int(code), "seconds": float(seconds),
           "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(start))), "config": config,
           "config_sha256": config_sha, "perfgate": perfgate_sha}, open(path, "w"), indent=1)
PY
  python3 "$root/scripts/power.py" --line "$dir"
}

total=0
rounds=0
active=()
for p in "${plants[@]}"; do
  total=$((total + count[$p]))
  [ "${count[$p]}" -gt "$rounds" ] && rounds=${count[$p]}
  [ "${count[$p]}" -gt 0 ] && active+=("$p")
done
echo "power: $total gates (${active[*]:-none}), config $config, results in $out" >&2
for ((r = 0; r < rounds; r++)); do
  n=${#active[@]}
  for ((k = 0; k < n; k++)); do
    p=${active[$(((r + k) % n))]}
    if [ "$r" -lt "${count[$p]}" ]; then gate "$p"; fi
  done
done

echo
python3 "$root/scripts/power.py" "$out"
