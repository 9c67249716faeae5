#!/usr/bin/env bash
# Records the real profiles the hint rules are tested on: a short gate of
# the example service against each planted regression, and an A/A gate,
# copied (report.json and each valid run's profiles) into
# engine/internal/hints/testdata/<name>/. Run as root; takes about 10 minutes.
# NAMES="time-after global-lock" records only those.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)
# config NAME writes the experiment for one fixture: the default mix at 800
# req/s, except where a regression needs more of its own traffic to show
# beyond sampling noise (small timer allocations, lock contention, which
# also needs GOMAXPROCS 2 so that a lock holder can be descheduled).
config() {
  local cpu=1 rate=800 duration=5s args='["-addr", "{addr}"]' requests orders
  requests='    - GET /search?q=alpha
    - GET /search?q=steel
    - method: POST
      path: /order
      headers: {Content-Type: application/json}
      body: '"'"'{"id":1,"qty":2}'"'"'
    - method: POST
      path: /order
      headers: {Content-Type: application/json}
      body: '"'"'{"id":2,"qty":1}'"'"''
  orders='    - method: POST
      path: /order
      headers: {Content-Type: application/json}
      body: '"'"'{"id":1,"qty":2}'"'"''
  case "$1" in
    time-after) duration=10s requests=$orders ;;
    # Orders reach the inventory over HTTPS (-inventory-tls) or by name.
    tls-per-request) rate=400 requests=$orders args='["-addr", "{addr}", "-inventory-tls"]' ;;
    dns-per-request) requests=$orders args='["-addr", "{addr}", "-inventory-url", "http://localhost:{port}"]' ;;
    goroutine-leak|heap-leak) requests=$orders ;;
    global-lock) cpu=2 rate=1500 requests='    - GET /search?q=alpha
    - GET /search?q=steel' ;;
  esac
  cat > "$work/perfgate.yml" <<YAML
version: 1
service:
  package: ./cmd/server
  args: $args
resources:
  cpu: "$cpu"
load:
  rate: $rate
  warmup: 1s
  duration: $duration
  requests:
$requests
pairs: 3
YAML
}

for name in ${NAMES:-aa alloc-sprintf cpu-regexp time-after pool-lost global-lock tls-per-request dns-per-request goroutine-leak heap-leak}; do
  config "$name"
  rm -rf "$work/head" "$work/out"
  cp -r "$root/examples/service" "$work/head"
  if [ "$name" != aa ]; then (cd "$work/head" && git apply "$root/examples/regressions/$name.patch"); fi
  echo "==> $name"
  "$work/perfgate" gate --config "$work/perfgate.yml" --base-dir "$root/examples/service" --head "$work/head" --out "$work/out" >/dev/null || true
  dst="$root/engine/internal/hints/testdata/$name"
  rm -rf "$dst" && mkdir -p "$dst"
  cp "$work/out/report.json" "$dst/"
  # Each valid run's own profiles: attribution weighs a function's
  # round-to-round spread, which merged profiles no longer show.
  python3 - "$work/out" "$dst" <<'PY'
import json, os, shutil, sys
out, dst = sys.argv[1:]
for run in json.load(open(os.path.join(out, "report.json")))["runs"]:
    for p in run.get("profiles") or []:
        if run.get("valid") and p.get("file"):
            os.makedirs(os.path.join(dst, run["dir"]), exist_ok=True)
            shutil.copy(os.path.join(out, run["dir"], p["file"]), os.path.join(dst, run["dir"], p["file"]))
PY
  python3 - "$dst/report.json" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
print("   verdict:", r["verdict"], "|", r["reason"][:150])
PY
done
