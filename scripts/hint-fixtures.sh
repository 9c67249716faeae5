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
export GIT_CEILING_DIRECTORIES=$work
(cd "$root/engine" && go build -o "$work/perfgate" ./cmd/perfgate)
# config NAME writes the experiment for one fixture: the default mix at 800
# req/s, except where a regression needs more of its own traffic to show
# beyond sampling noise (small timer allocations, lock contention, which
# also needs GOMAXPROCS 2 so that a lock holder can be descheduled). Both
# sides of a duet share the service's CPUs, which a TLS handshake per
# request or 1,500 req/s at 2 CPUs keep too busy for a fair duet on a
# 2-CPU machine: those two run sequential pairs.
config() {
  local cpu=1 rate=800 warmup=1s duration=5s args='["-addr", "{addr}"]' requests orders experiment=duet
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
    tls-per-request) rate=400 requests=$orders args='["-addr", "{addr}", "-inventory-tls"]' experiment=sequential ;;
    dns-per-request) requests=$orders args='["-addr", "{addr}", "-inventory-url", "http://localhost:{port}"]' ;;
    goroutine-leak|heap-leak) requests=$orders ;;
    # The cache of 200 receipts fills up halfway through the window's
    # first half: 100 orders in the warm-up, 200 in each half.
    bounded-cache) rate=200 warmup=500ms duration=2s requests=$orders ;;
    global-lock) cpu=2 rate=1500 experiment=sequential requests='    - GET /search?q=alpha
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
  warmup: $warmup
  duration: $duration
  requests:
$requests
experiment: $experiment
pairs: 6
gate:
  alpha: 0.1
YAML
}

# database_config writes the database example's experiment (as the
# end-to-end test TestGateDatabaseServiceFindsLostConnectionReuse runs it)
# against the private PostgreSQL at $1.
database_config() {
  cat > "$work/perfgate.yml" <<YAML
version: 1
service:
  package: ./cmd/server
  args: ["-addr", "{addr}"]
  env: {DATABASE_URL: "$1"}
  reset: [psql, -X, -q, -v, ON_ERROR_STOP=1, -d, "$1", -f, testdata/reset.sql]
  reset_timeout: 20s
load:
  rate: 100
  warmup: 1s
  duration: 2s
  requests:
    - GET /orders/1
    - GET /orders/500
    - method: POST
      path: /orders
      headers: {Content-Type: application/json}
      body: '{"customer":"c1","item":"i1","qty":2}'
pairs: 6
profile_rounds: 2
layout: build
gate:
  alpha: 0.1
validity:
  min_cpu_samples: 0
YAML
}

# The trees must be enterable by the service's user (nobody, as root):
# the database reset runs in the head's tree.
chmod 755 "$work"
postgres_dir=
trap 'if [ -n "$postgres_dir" ]; then bash "$root/scripts/postgres/down.sh" "$postgres_dir" || true; fi; rm -rf "$work"' EXIT

for name in ${NAMES:-aa alloc-sprintf cpu-regexp time-after pool-lost global-lock tls-per-request dns-per-request goroutine-leak heap-leak bounded-cache no-idle-conns}; do
  rm -rf "$work/base" "$work/head" "$work/out"
  if [ "$name" = no-idle-conns ]; then
    # The database example on a private PostgreSQL (scripts/postgres).
    vars=$(bash "$root/scripts/postgres/up.sh")
    postgres_dir=$(sed -n 's/^PERFGATE_POSTGRES_DIR=//p' <<<"$vars")
    database_config "$(sed -n 's/^DATABASE_URL=//p' <<<"$vars")"
    cp -r "$root/examples/service-db" "$work/base"
    cp -r "$root/examples/service-db" "$work/head"
    (cd "$work/head" && git apply "$root/examples/service-db/regressions/no-idle-conns.patch")
  else
    config "$name"
    cp -r "$root/examples/service" "$work/base"
    cp -r "$root/examples/service" "$work/head"
    patch=$root/examples/regressions/$name.patch
    if [ "$name" = bounded-cache ]; then patch=$root/examples/regressions/slope/$name.patch; fi
    if [ "$name" != aa ]; then (cd "$work/head" && git apply "$patch"); fi
  fi
  echo "==> $name"
  "$work/perfgate" gate --config "$work/perfgate.yml" --base-dir "$work/base" --head "$work/head" --out "$work/out" >/dev/null || true
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
  if [ -n "$postgres_dir" ]; then
    bash "$root/scripts/postgres/down.sh" "$postgres_dir"
    postgres_dir=
  fi
done
