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
# Writes $OUT (default results/paired-nightlies): repo/ (the nights'
# repository), night-<k>/ (each night's results: report.json, report.md,
# history-entry.json, run.log), history/ (the history file), trend/
# (trend.json, summary.md, ...), nights.tsv (one line per night with its
# paired CPU and allocation estimates and intervals) and summary.md (the
# table docs/trends-detection.md quotes). ANALYZE=1 records nothing and
# reads the trend and the summary again from $OUT. Run nothing else heavy meanwhile: the duet
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
if [ -n "${PERFGATE:-}" ]; then
  perfgate=$PERFGATE
else
  perfgate=$work/perfgate
  (cd "$root/engine" && go build -o "$perfgate" ./cmd/perfgate)
fi

repo=$out/repo
commit() { git -C "$repo" -c user.name=perfgate -c user.email=perfgate@localhost commit -q "$@"; }

# record_nights makes the nights' repository and records every night.
record_nights() {
  rm -rf "$out"
  mkdir -p "$out/history"
  cp -r "$root/examples/service" "$repo"
  cp "$config" "$repo/perfgate.yml"
  git -C "$repo" init -q -b main
  git -C "$repo" add -A
  commit -m "night 0: the example service"
  # The planted cost: the cpu-2 power plant with its count replaced.
  local plant=$work/plant.patch k kind dir code
  sed "s/^+const plantedHashes = 11$/+const plantedHashes = $hashes/" "$root/examples/regressions/power/cpu-2.patch" >"$plant"
  grep -q "plantedHashes = $hashes\$" "$plant"
  printf 'night\tcommit\tkind\tpaired_with\tcpu\tcpu_low\tcpu_high\tallocs\tallocs_low\tallocs_high\tcpu_median_us\n' >"$out/nights.tsv"
  for k in $(seq 1 $((flat + steps + after))); do
    kind=flat
    if [ "$k" -gt "$flat" ] && [ "$k" -le $((flat + steps)) ]; then
      kind=step
      if [ "$k" -eq $((flat + 1)) ]; then
        git -C "$repo" apply "$plant"
      else
        # Each further step night adds the same cost again.
        sed -i "s/^const plantedHashes = \([0-9]*\)$/echo \"const plantedHashes = \$((\1 + $hashes))\"/e" "$repo/internal/httpapi/planted.go"
      fi
    else
      echo "night $k" >"$repo/NIGHT"
    fi
    git -C "$repo" add -A
    commit -m "night $k ($kind)"
    dir=$out/night-$k
    set +e
    "$perfgate" run --config "$repo/perfgate.yml" --src "$repo" --label main --history "$out/history" --pair-with last --out "$dir" >"$work/run.log" 2>&1
    code=$?
    set -e
    mkdir -p "$dir"
    cp "$work/run.log" "$dir/run.log"
    if [ "$code" -ne 0 ]; then
      echo "paired-nightlies.sh: night $k exited $code; see $dir/run.log" >&2
    fi
    night_line "$dir/history-entry.json" "$k" "$kind" >>"$out/nights.tsv"
    tail -1 "$out/nights.tsv"
  done
}

# night_line is a night's line of nights.tsv, from its history entry.
night_line() {
  python3 - "$@" <<'PY'
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
}

if [ "${ANALYZE:-0}" != 1 ]; then
  record_nights
fi

config_name=$(ls "$out/history" | sed -n 's/\.jsonl$//p' | head -1)
rm -rf "$out/trend"
"$perfgate" trend --history "$out/history" --config "$repo/perfgate.yml" --src "$repo" --confirm --out "$out/trend" >"$out/trend.log" 2>&1 || true
echo "paired-nightlies.sh: history $out/history/$config_name.jsonl; trend in $out/trend (log $out/trend.log)"

# The summary docs/trends-detection.md quotes: the night-to-night spread of
# the paired CPU estimates against that of the medians, the rounds' own
# noise, and what trend found.
python3 - "$out" "$flat" >"$out/summary.md" <<'PY'
import glob, json, math, os, statistics, sys
out, flat = sys.argv[1], int(sys.argv[2])
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "nights.tsv"))][1:]
def pct(x): return f"{100*x:+.2f}%"
flat_links = [math.log1p(float(r[4]) / 100) for r in rows if r[2] == "flat" and r[4] != "-"]
medians = [math.log(float(r[10])) for r in rows[:flat] if r[10] not in ("-", "0.00")]
round_sd = []
for k in range(2, len(rows) + 1):
    try:
        rep = json.load(open(os.path.join(out, f"night-{k}", "report.json")))
    except OSError:
        continue
    by = {}
    for r in rep.get("runs", []):
        if r.get("valid") and not r.get("profile_round") and r["figures"].get("cpu_us_per_req"):
            by.setdefault(r["pair"], {})[r["side"]] = r["figures"]["cpu_us_per_req"]
    d = [math.log(v["head"] / v["base"]) for v in by.values() if "head" in v and "base" in v]
    if len(d) > 1:
        round_sd.append(statistics.stdev(d))
print(f"| | |\n|---|---|")
print(f"| flat paired nights | {len(flat_links)} |")
print(f"| SD of their CPU estimates (night-to-night noise, paired) | {100*statistics.stdev(flat_links):.2f}% |")
print(f"| SD of the CPU medians of the first {len(medians)} nights (unpaired) | {100*statistics.stdev(medians):.2f}% |")
if round_sd:
    print(f"| per-round SD of CPU log ratios, median [min, max] over nights | {100*statistics.median(round_sd):.2f}% [{100*min(round_sd):.2f}%, {100*max(round_sd):.2f}%] |")
for r in rows:
    if r[2] == "step":
        print(f"| step night {r[0]} ({r[1]}) | cpu {r[4]}% [{r[5]}%, {r[6]}%] |")
try:
    tr = json.load(open(os.path.join(out, "trend", "trend.json")))
    for s in tr["series"]:
        for st in s.get("steps") or []:
            c = st.get("confirmation") or {}
            print(f"| trend: {s['metric']} step | {pct(st['magnitude'])} on night {st['index'] + 1} ({'paired night' if st.get('paired') else 'medians'}), {c.get('status', 'not checked')}, {c.get('gates', 0)} gates |")
        if s["metric"] == "cpu" and s.get("chain"):
            c = s["chain"]
            print(f"| trend: cpu chain | {c['nights']} nights, {pct(c['change'])} [{pct(c['ci'][0])}, {pct(c['ci'][1])}] |")
except OSError:
    print("| trend | no trend.json |")
PY
cat "$out/summary.md"
