#!/usr/bin/env bash
# Records a sequence of real paired nightlies of the example service and
# reads their trend: the measurement behind docs/trends-detection.md's
# "Paired nightlies" (issue 21, item 4).
#
# Night 1 is recorded alone (nothing to pair with yet); every later night
# is `perfgate run --pair-with last`: a duet of that night's commit against
# the previous night's, as the Action's mode record does. FLAT nights
# change nothing the service runs (a commit that touches a text file);
# then STEP nights (default 1) each add a planted CPU cost (SHA-256 of
# 1 KiB, HASHES times per request, on top of the nights before), and AFTER
# flat nights follow. Finally `perfgate trend --confirm` reads the history.
#
#   sudo bash scripts/paired-nightlies.sh          # FLAT=11 AFTER=1 HASHES=10
#   sudo FLAT=3 AFTER=0 OUT=/tmp/pn bash scripts/paired-nightlies.sh   # a quick look
#
# Writes $OUT (default results/paired-nightlies): night-<k>/ (each night's
# results: report.json, report.md, history-entry.json, run.log), history/
# (the history file), trend/ (trend.json, summary.md, ...) and
# nights.tsv: one line per night with its paired CPU and allocation
# estimates and intervals. Run nothing else heavy meanwhile: the duet
# cancels slow drift, not a competing build. About 2.5 minutes a night.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
flat=${FLAT:-11}
after=${AFTER:-1}
steps=${STEP:-1}
hashes=${HASHES:-10}
out=${OUT:-$root/results/paired-nightlies}
config=${CONFIG:-$root/examples/perfgate.yml}
for v in flat after steps hashes; do
  case ${!v} in
    '' | *[!0-9]*) echo "paired-nightlies.sh: ${v^^} is '${!v}'; expected a whole number." >&2; exit 2 ;;
  esac
done
if [ "$flat" -lt 2 ]; then
  echo "paired-nightlies.sh: FLAT is $flat; at least 2 nights are needed for one paired night." >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CEILING_DIRECTORIES=$work
if [ -n "${PERFGATE:-}" ]; then
  perfgate=$PERFGATE
else
  perfgate=$work/perfgate
  (cd "$root/engine" && go build -o "$perfgate" ./cmd/perfgate)
fi

repo=$work/service
cp -r "$root/examples/service" "$repo"
cp "$config" "$repo/perfgate.yml"
git -C "$repo" init -q -b main
git -C "$repo" -c user.name=perfgate -c user.email=perfgate@localhost add -A
git -C "$repo" -c user.name=perfgate -c user.email=perfgate@localhost commit -q -m "night 0: the example service"

# The planted cost, from the cpu-2 power plant with its count replaced.
plant=$work/plant.patch
sed "s/^+const plantedHashes = 11$/+const plantedHashes = $hashes/" "$root/examples/regressions/power/cpu-2.patch" >"$plant"
grep -q "plantedHashes = $hashes\$" "$plant"

rm -rf "$out"
mkdir -p "$out/history"
printf 'night\tcommit\tkind\tpaired_with\tcpu\tcpu_low\tcpu_high\tallocs\tallocs_low\tallocs_high\tcpu_median_us\n' >"$out/nights.tsv"
total=$((flat + steps + after))
for k in $(seq 1 "$total"); do
  kind=flat
  if [ "$k" -gt "$flat" ] && [ "$k" -le $((flat + steps)) ]; then
    kind=step
    if [ "$k" -eq $((flat + 1)) ]; then
      (cd "$repo" && git apply "$plant")
    else
      # Each further step night adds the same cost again.
      sed -i "s/^const plantedHashes = \([0-9]*\)$/echo \"const plantedHashes = \$((\1 + $hashes))\"/e" "$repo/internal/httpapi/planted.go"
    fi
  else
    echo "night $k" >"$repo/NIGHT"
  fi
  git -C "$repo" -c user.name=perfgate -c user.email=perfgate@localhost add -A
  git -C "$repo" -c user.name=perfgate -c user.email=perfgate@localhost commit -q -m "night $k ($kind)"
  dir=$out/night-$k
  pair=(--pair-with last)
  set +e
  "$perfgate" run --config "$repo/perfgate.yml" --src "$repo" --label main --history "$out/history" "${pair[@]}" --out "$dir" >"$work/run.log" 2>&1
  code=$?
  set -e
  cp "$work/run.log" "$dir/run.log" 2>/dev/null || { mkdir -p "$dir"; cp "$work/run.log" "$dir/run.log"; }
  if [ "$code" -ne 0 ]; then
    echo "paired-nightlies.sh: night $k exited $code; see $dir/run.log" >&2
  fi
  python3 - "$dir/history-entry.json" "$k" "$kind" >>"$out/nights.tsv" <<'PY'
import json, sys
path, k, kind = sys.argv[1:]
try:
    e = json.load(open(path))
except OSError:
    print(f"{k}\t-\t{kind}\t-\t-\t-\t-\t-\t-\t-\t-")
    sys.exit()
p = e.get("paired") or {}
m = p.get("metrics", {})
def est(name):
    x = m.get(name)
    return [f"{100*x['estimate']:+.3f}", f"{100*x['ci'][0]:+.3f}", f"{100*x['ci'][1]:+.3f}"] if x else ["-"] * 3
cpu = e["metrics"].get("cpu", {}).get("median", 0)
print("\t".join([k, e["commit"][:12], kind, (p.get("with") or "-")[:12], *est("cpu"), *est("allocs"), f"{cpu:.2f}"]))
PY
  tail -1 "$out/nights.tsv"
done

config_name=$(ls "$out/history" | sed -n 's/\.jsonl$//p' | head -1)
"$perfgate" trend --history "$out/history" --config "$repo/perfgate.yml" --src "$repo" --confirm --out "$out/trend" >"$out/trend.log" 2>&1 || true
echo "paired-nightlies.sh: history $out/history/$config_name.jsonl; trend in $out/trend (log $out/trend.log)"
