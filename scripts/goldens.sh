#!/usr/bin/env bash
# Regenerates the reports behind the golden comments from real runs: every
# comment in engine/internal/render/testdata is rendered from one of the
# report.json files this script writes to engine/internal/render/testdata/real/,
# never from numbers typed into a test (issue 22: a golden comment that
# says 500 req/s in one place and 300 in another cannot come from a run).
#
#   sudo bash scripts/goldens.sh [scenario...]    # default: all of them
#   cd engine && go test ./internal/render -update   # then re-render the goldens
#
# Scenarios, each a real gate (or recording) of examples/service on the
# local target with examples/perfgate.yml, base and head committed to a
# scratch git repository so the reports carry real commits (written as
# testdata/real/<scenario>.json.gz):
#   regression    head = examples/regressions/alloc-sprintf.patch
#   pass          head = base with a comment changed (an A/A gate)
#   inconclusive  head = examples/regressions/power/cpu-threshold.patch with
#                 3 hashes instead of 5 (CPU about +1.5%, the threshold: on
#                 2026-12-01 cpu-half's 2 measured +1.2% and 5 measured +1.7
#                 to +2.2%) with pairs fixed at 12: a rise past the threshold
#                 not ruled out and no regression proven in about half of
#                 such gates (most others fail), so up to four are run and
#                 the first inconclusive one is kept (since "unchanged" is
#                 decided at a miss rate, cpu-half mostly passes)
#   improvement   base = alloc-sprintf applied, head = the clean service
#   endpoint      head = one route waits 2 ms (testdata/real/slow-report.patch):
#                 /report's latency regresses on its own (and, measured, CPU)
#   invalid       resources.cpu 50m at 300 req/s: neither side keeps up (at
#                 100m both still did, and the run was a regression)
#   recording     perfgate run of the clean service (mode record)
#
# Needs root (cgroup limits) and Go. It takes about 15 minutes; the numbers
# are whatever the machine measured, which is the point. Run it when the
# report's format changes or a golden should show a new case.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/root.sh"
as_root goldens "cgroup limits on the service's CPU and memory" "$root/scripts/goldens.sh" "$@"
need_go goldens

out="$root/engine/internal/render/testdata/real"
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(regression improvement endpoint invalid recording inconclusive pass)

work=$(mktemp -d /tmp/perfgate-goldens.XXXXXX)
trap 'rm -rf "$work"' EXIT
# PERFGATE_BIN: an engine built elsewhere (of a commit, while the tree is
# being edited); by default, the tree's own.
if [ -n "${PERFGATE_BIN:-}" ]; then
  cp "$PERFGATE_BIN" "$work/perfgate"
else
  (cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)
fi

# repo makes a scratch repository at $work/$1 holding examples/service and
# its perfgate.yml ($3, examples/perfgate.yml by default) as its first
# commit, with patch $2 (if any) applied as the second; it prints the first
# commit. The config is in the repository, as in a user's: the gate reads
# its thresholds from the base's copy.
repo() {
  local dir="$work/$1" patch=${2:-} config=${3:-$root/examples/perfgate.yml}
  cp -r "$root/examples/service" "$dir"
  cp "$config" "$dir/perfgate.yml"
  git -C "$dir" init -q -b main
  git -C "$dir" -c user.name=perfgate -c user.email=perfgate@example.com add -A
  git -C "$dir" -c user.name=perfgate -c user.email=perfgate@example.com commit -q -m base
  local base
  base=$(git -C "$dir" rev-parse HEAD)
  if [ -n "$patch" ]; then
    git -C "$dir" apply "$patch"
    git -C "$dir" add -A # a patch may add a file
    git -C "$dir" -c user.name=perfgate -c user.email=perfgate@example.com commit -q -m head
  fi
  echo "$base"
}

# gate runs perfgate gate in $work/$1 against revision $2, as the Action
# does (the checkout as working directory, its perfgate.yml, fail-on
# regression), and keeps its report; a regression's exit 1 and an invalid
# measurement's exit 4 are expected outcomes here.
gate() {
  local name=$1 base=$2 code=0
  echo "==> $name"
  (cd "$work/$name" && "$work/perfgate" gate --config perfgate.yml --base "$base" --head . \
    --out "$work/results-$name" --seed 20261128 --fail-on regression) || code=$?
  case $code in 0 | 1 | 4) ;; *) echo "goldens: $name: perfgate exited $code" >&2; exit 1 ;; esac
  keep "$work/results-$name/report.json" "$name"
}

# keep stores a report as $out/$2.json.gz: gzipped (the reports hold every
# run's counters, half a megabyte each), with the scratch directory's
# path, which the report records, made stable for reading.
keep() {
  sed "s|$work|/tmp/goldens|g" "$1" | gzip -9n > "$out/$2.json.gz"
}

mkdir -p "$out"
for s in "${scenarios[@]}"; do
  case $s in
  regression)
    base=$(repo regression "$root/examples/regressions/alloc-sprintf.patch")
    gate regression "$base"
    ;;
  pass)
    base=$(repo pass)
    sed -i '1s|^|// An A/A gate: only this comment differs.\n|' "$work/pass/internal/httpapi/report.go"
    git -C "$work/pass" -c user.name=perfgate -c user.email=perfgate@example.com commit -q -am head
    gate pass "$base"
    ;;
  inconclusive)
    sed 's/^pairs: .*/pairs: 12                      # fixed: no look after the first/' "$root/examples/perfgate.yml" > "$work/inconclusive.yml"
    sed 's/^+const plantedHashes = 5$/+const plantedHashes = 3/' "$root/examples/regressions/power/cpu-threshold.patch" > "$work/cpu-3.patch"
    grep -q '^+const plantedHashes = 3$' "$work/cpu-3.patch" || { echo "goldens: cpu-threshold.patch no longer sets plantedHashes = 5" >&2; exit 1; }
    base=$(repo inconclusive "$work/cpu-3.patch" "$work/inconclusive.yml")
    verdict=
    for try in 1 2 3 4; do
      rm -rf "$work/results-inconclusive"
      gate inconclusive "$base"
      verdict=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"])' "$work/results-inconclusive/report.json")
      [ "$verdict" = inconclusive ] && break
      echo "goldens: inconclusive: gate $try of 4 ended $verdict" >&2
    done
    [ "$verdict" = inconclusive ] || { echo "goldens: inconclusive: none of 4 gates at the threshold ended inconclusive" >&2; exit 1; }
    ;;
  improvement)
    repo improvement "$root/examples/regressions/alloc-sprintf.patch" >/dev/null
    base=$(git -C "$work/improvement" rev-parse HEAD)
    git -C "$work/improvement" -c user.name=perfgate -c user.email=perfgate@example.com revert --no-edit HEAD >/dev/null
    gate improvement "$base"
    ;;
  endpoint)
    base=$(repo endpoint "$out/slow-report.patch")
    gate endpoint "$base"
    ;;
  invalid)
    sed 's/cpu: "1"/cpu: 50m/' "$root/examples/perfgate.yml" > "$work/invalid.yml"
    base=$(repo invalid "$root/examples/regressions/alloc-sprintf.patch" "$work/invalid.yml")
    gate invalid "$base"
    ;;
  recording)
    repo recording >/dev/null
    echo "==> recording"
    (cd "$work/recording" && "$work/perfgate" run --config perfgate.yml --src . --label main \
      --out "$work/results-recording")
    keep "$work/results-recording/report.json" recording
    ;;
  *)
    echo "goldens: no scenario named '$s'" >&2
    exit 2
    ;;
  esac
done
echo "now re-render: cd engine && go test ./internal/render -update"
