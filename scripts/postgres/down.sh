#!/usr/bin/env bash
# Stops the private PostgreSQL cluster up.sh started in DIR (its
# PERFGATE_POSTGRES_DIR) and removes DIR. Safe to run twice, and on a
# cluster that already died.
#   scripts/postgres/down.sh /tmp/perfgate-postgres.XXXXXX
set -uo pipefail
dir=${1:?usage: down.sh PERFGATE_POSTGRES_DIR}
case "$dir" in
  /tmp/perfgate-postgres.*) ;;
  *) echo "postgres/down.sh: $dir is not a directory up.sh made" >&2; exit 2 ;;
esac
if [ -f "$dir/data/postmaster.pid" ]; then
  pid=$(head -1 "$dir/data/postmaster.pid")
  # SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops.
  kill -INT "$pid" 2>/dev/null
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null
fi
rm -rf "$dir"
exit 0
