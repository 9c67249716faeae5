#!/usr/bin/env bash
# Where a duet round's CPU spread comes from: the layout of each side's
# binary, or everything else (the machine, the generator, the window).
# docs/benchmarks.md ("Where a round's spread comes from") records its runs.
#
#   sudo env "PATH=$PATH" TREE=examples/service CONFIG=examples/perfgate.yml \
#     OUT=results/survey/example bash scripts/layout-survey.sh
#
# One reference binary R and LAYOUTS (default 8) other binaries L1..Ln are
# linked from TREE with layouts of their own (-randlayout=SEED+i, SEED
# default 1000, plus
# LDFLAGS, e.g. -funcalign=64). Then, for R itself and for each Li, one
# gate of R (base) against it (head) with the layout of each binary kept
# (layout: build) for ROUNDS (default 4) rounds, every round a fresh copy
# of each file, the rest of CONFIG as it is (profiles off; alpha 0.5, which
# these few rounds need to pass config check: the verdict is not used). The rounds of
# one Li share its layout, so their spread is the spread without layout;
# the spread of the Li's means beyond it is layout's
# (scripts/layout-survey.py). Nothing else may run meanwhile.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${TREE:?the service tree, e.g. examples/service}" "${CONFIG:?its perfgate.yml}" "${OUT:?a results directory}"
layouts=${LAYOUTS:-8} rounds=${ROUNDS:-4} ldflags=${LDFLAGS:-} seed=${SEED:-1000}
tree=$(cd "$TREE" && pwd)
package=$(sed -n 's/^  package: *//p' "$CONFIG" | head -1)
mkdir -p "$OUT"
out=$(cd "$OUT" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)

# The binaries, built as perfgate builds a service (build.Flags, cgo off).
link() { (cd "$tree" && CGO_ENABLED=0 go build -trimpath -ldflags="-randlayout=$1 $ldflags" -o "$2" "$package"); }
link "$seed" "$work/R"
for i in $(seq 1 "$layouts"); do link $((seed + i)) "$work/L$i"; done
size -A "$work/R" | awk '$1 == ".text" { print "text bytes", $2 }' > "$out/text-size"

sed -e "s/^pairs: .*/layout: build\npairs: $rounds/" \
    -e 's/^profile_rounds: .*/profile_rounds: 0/' \
    -e 's/^profiles: .*/profiles: []/' \
    -e 's/^  alpha: .*/  alpha: 0.5/' "$CONFIG" > "$work/perfgate.yml"
grep -q '^layout: build' "$work/perfgate.yml" || { echo "layout-survey: $CONFIG has no pairs: line to replace" >&2; exit 2; }
{ echo "tree $TREE config $CONFIG layouts $layouts rounds $rounds ldflags '$ldflags' seed $seed"; date -u; } > "$out/survey"
for head in R $(seq -f 'L%g' 1 "$layouts"); do
  rm -rf "$out/$head"
  "$work/perfgate" gate --config "$work/perfgate.yml" --base-dir "$tree" --head "$tree" \
    --base-binary "$work/R" --head-binary "$work/$head" --out "$out/$head" > "$out/$head.log" 2>&1 || true
  echo "$head done $(date -u +%T)"
done
python3 "$root/scripts/layout-survey.py" "$out"
