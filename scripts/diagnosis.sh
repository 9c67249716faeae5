#!/usr/bin/env bash
# The diagnosis benchmark (issue 20, recorded in docs/benchmarks.md,
# "Diagnosis"): gates of the example service at the defaults against every
# planted regression (examples/regressions/*.patch, power/*.patch and
# slope/*.patch) and A/A gates, and, per plant, whether the report named
# the function the patch changed (and a line it added) in "Where it
# changed", and whether the seed incident's hint fired.
# engine/tools/diagnosis judges the reports.
#
#   sudo env "PATH=$PATH" bash scripts/diagnosis.sh              # 3 gates a plant, 3 A/A
#   sudo env "PATH=$PATH" GATES=1 PLANTS="alloc-sprintf aa" bash scripts/diagnosis.sh
#
# Settings:
#   GATES=n        gates per plant (default 3); AA=n A/A gates (default 3)
#   PLANTS="a b"   only these plants (names of the patches, and aa)
#   OUT=dir        results (default results/diagnosis): <plant>-<i>/ with
#                  report.json, report.md, planted.json, gate.json; gates
#                  already there are kept and numbering continues
#   PERFGATE=path  a prebuilt perfgate (default: build engine/)
# Plants run interleaved, one gate of each per round. Takes about 2.5
# minutes a gate.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results/diagnosis}
gates=${GATES:-3}
aa=${AA:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CEILING_DIRECTORIES=$work

(cd "$root/engine" && go build -o "$work/diagnosis" ./tools/diagnosis)
if [ -n "${PERFGATE:-}" ]; then
  perfgate=$PERFGATE
else
  perfgate=$work/perfgate
  (cd "$root/engine" && go build -o "$perfgate" ./cmd/perfgate)
fi

declare -A patch count
plants=(aa)
patch[aa]=
count[aa]=$aa
for p in "$root"/examples/regressions/*.patch "$root"/examples/regressions/power/*.patch "$root"/examples/regressions/slope/*.patch; do
  name=$(basename "$p" .patch)
  plants+=("$name")
  patch[$name]=$p
  count[$name]=$gates
done
if [ -n "${PLANTS:-}" ]; then
  plants=()
  for name in $PLANTS; do
    if [ "$name" != aa ] && [ -z "${patch[$name]:-}" ]; then
      echo "diagnosis.sh: no plant $name in examples/regressions (or power/, slope/)" >&2
      exit 2
    fi
    plants+=("$name")
  done
fi

# config NAME writes the example's config, with the service arguments the
# plant needs to reach its code path (the inventory over HTTPS, or by name).
config() {
  local args='["-addr", "{addr}"]'
  case "$1" in
    tls-per-request) args='["-addr", "{addr}", "-inventory-tls"]' ;;
    dns-per-request) args='["-addr", "{addr}", "-inventory-url", "http://localhost:{port}"]' ;;
  esac
  sed "s|^  args: .*|  args: $args|" "$root/examples/perfgate.yml" >"$work/perfgate.yml"
}

next_index() {
  local i=1
  while [ -e "$out/$1-$i" ]; do i=$((i + 1)); done
  echo "$i"
}

gate() { # plant
  local plant=$1 dir start end code
  dir=$out/$plant-$(next_index "$plant")
  rm -rf "$work/head" "$work/out"
  cp -r "$root/examples/service" "$work/head"
  mkdir -p "$dir"
  if [ -n "${patch[$plant]}" ]; then
    (cd "$work/head" && git apply "${patch[$plant]}")
    "$work/diagnosis" planted -patch "${patch[$plant]}" -tree "$work/head" >"$dir/planted.json"
  else
    echo '[]' >"$dir/planted.json"
  fi
  config "$plant"
  start=$(date +%s.%N)
  set +e
  "$perfgate" gate --config "$work/perfgate.yml" --base-dir "$root/examples/service" --head "$work/head" --out "$work/out" >"$dir/gate.log" 2>&1
  code=$?
  set -e
  end=$(date +%s.%N)
  for f in report.json report.md; do
    if [ -f "$work/out/$f" ]; then cp "$work/out/$f" "$dir/"; fi
  done
  awk -v a="$start" -v b="$end" -v c="$code" 'BEGIN { printf "{\"exit\": %d, \"seconds\": %.1f}\n", c, b - a }' >"$dir/gate.json"
  echo "$plant: exit $code, $(cut -c1-60 "$dir/gate.json")" >&2
}

mkdir -p "$out"
rounds=0
for p in "${plants[@]}"; do [ "${count[$p]}" -gt "$rounds" ] && rounds=${count[$p]}; done
for ((r = 0; r < rounds; r++)); do
  for p in "${plants[@]}"; do
    if [ "$r" -lt "${count[$p]}" ]; then gate "$p"; fi
  done
done
"$work/diagnosis" table "$out"
