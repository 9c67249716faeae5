#!/usr/bin/env bash
# The main job: a full gate of the bundled example service, base against a
# head with a planted regression, on the local target. Prints the comparison
# and leaves everything measured in results/demo/.
#
#   bash scripts/demo.sh [regression]     # default: alloc-sprintf
#
#   bash scripts/demo.sh --check-setup   # only say who it runs as and which Go
#
# Regressions: the *.patch files in examples/regressions/. The service's
# cgroup limits need root: run as a user, the script re-runs itself through
# sudo, keeping PATH so root uses your Go (scripts/lib/root.sh). Without sudo
# (or with PERFGATE_NO_SUDO=1) it goes on, and perfgate warns that the
# service runs unconfined.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/root.sh"
as_root demo "cgroup limits on the service's CPU and memory" "$root/scripts/demo.sh" "$@"
need_go demo
check_setup demo "$@"
regression=${1:-alloc-sprintf}
patch="$root/examples/regressions/$regression.patch"
if [ ! -f "$patch" ]; then
  echo "demo: no regression named '$regression'; choose one of:" >&2
  ls "$root/examples/regressions" | sed -n 's/\.patch$//p' | sed 's/^/  /' >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "==> building perfgate"
(cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)

echo "==> head = examples/service + examples/regressions/$regression.patch"
cp -r "$root/examples/service" "$work/head"
(cd "$work/head" && git apply "$patch")
if [ -n "${SUDO_UID:-}" ] && [ "$(id -u)" -eq 0 ]; then
  # Under sudo, perfgate builds base and head as the user who ran sudo:
  # the head copy is theirs, and the private work directory lets them
  # reach it (without listing it).
  chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$work/head"
  chmod 711 "$work"
fi

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
