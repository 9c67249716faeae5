#!/usr/bin/env bash
# The main job: a full gate of the bundled example service, base against a
# head with a planted regression, on the local target. Prints the comparison
# and leaves everything measured in results/demo/.
#
#   bash scripts/demo.sh [regression]     # default: alloc-sprintf
#
# Regressions: the *.patch files in examples/regressions/. Run as root for
# cgroup limits; otherwise perfgate warns that it runs unconfined.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
regression=${1:-alloc-sprintf}
patch="$root/examples/regressions/$regression.patch"
if [ ! -f "$patch" ]; then
  echo "demo: no regression named '$regression'; choose one of:" >&2
  ls "$root/examples/regressions" | sed -n 's/\.patch$//p' | sed 's/^/  /' >&2
  exit 2
fi
command -v go >/dev/null || { echo "demo: Go is not installed (https://go.dev/dl/)" >&2; exit 3; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "==> building perfgate"
(cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)

echo "==> head = examples/service + examples/regressions/$regression.patch"
cp -r "$root/examples/service" "$work/head"
(cd "$work/head" && git apply "$patch")

out="$root/results/demo"
echo "==> perfgate gate (results in ${out#$root/})"
set +e
"$work/perfgate" gate \
  --config "$root/examples/perfgate.yml" \
  --base-dir "$root/examples/service" \
  --head "$work/head" \
  --out "$out"
code=$?
set -e
echo
echo "perfgate exited with $code (0 pass, 1 regression, 2 config, 3 build/infrastructure, 4 invalid measurement)"
echo "open the CPU difference with: go tool pprof -http=: -diff_base $out/base.cpu.pb.gz $out/head.cpu.pb.gz"
exit "$code"
