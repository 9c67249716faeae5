#!/usr/bin/env bash
# Starts a private PostgreSQL cluster for perfgate's database tests: a
# fresh data directory under a new temporary directory, listening on a
# free loopback port with its unix socket inside that directory, trust
# authentication from loopback only, and a superuser and database both named
# perfgate. It never touches a cluster the machine already runs. Durability
# is off (fsync, synchronous_commit): the data is thrown away after the test.
#
# Prints two lines, the last ones of its output:
#   PERFGATE_POSTGRES_DIR=/tmp/perfgate-postgres.XXXX   (pass it to down.sh)
#   DATABASE_URL=postgres://perfgate@127.0.0.1:PORT/perfgate?sslmode=disable
#
# initdb refuses to run as root, so as root the cluster runs as the postgres
# user (Debian's postgresql package creates it), or nobody. Needs the
# PostgreSQL server binaries (Debian: apt-get install postgresql); exits 2
# when they are missing, so callers can tell that from a failure.
#
# PERFGATE_POSTGRES_LISTEN adds an address to listen on besides loopback,
# with trust from the networks the server is directly on (samenet): the
# Docker bridge's gateway (172.17.0.1), so that containers reach the
# database as host.docker.internal, as they reach a job service's
# published port on GitHub's runners.
set -euo pipefail

bindir=${PERFGATE_POSTGRES_BIN:-}
if [ -z "$bindir" ]; then
  if command -v pg_ctl >/dev/null; then
    bindir=$(dirname "$(readlink -f "$(command -v pg_ctl)")")
  else
    # Debian keeps the server's binaries out of PATH, one directory per major version.
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  fi
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/pg_ctl" ]; then
  echo "postgres/up.sh: no PostgreSQL server binaries (initdb, pg_ctl) found; install them (Debian: apt-get install postgresql) or set PERFGATE_POSTGRES_BIN" >&2
  exit 2
fi

as=()
owner=$(id -un)
if [ "$(id -u)" = 0 ]; then
  owner=postgres
  id postgres >/dev/null 2>&1 || owner=nobody
  as=(setpriv --reuid="$owner" --regid="$(id -g "$owner")" --clear-groups --)
fi

dir=$(mktemp -d /tmp/perfgate-postgres.XXXXXX)
chmod 0755 "$dir"
mkdir "$dir/data" "$dir/socket"
[ "$(id -u)" = 0 ] && chown "$owner:" "$dir/data" "$dir/socket"

"${as[@]}" "$bindir/initdb" -D "$dir/data" --username=perfgate --auth=trust --encoding=UTF8 --no-locale \
  >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }

listen=127.0.0.1
extra=${PERFGATE_POSTGRES_LISTEN:-}
if [ -n "$extra" ]; then
  if ! [[ $extra =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "postgres/up.sh: PERFGATE_POSTGRES_LISTEN=$extra is not an IPv4 address; give one address, such as the Docker bridge's gateway 172.17.0.1" >&2
    rm -rf "$dir"
    exit 1
  fi
  listen=127.0.0.1,$extra
  echo "host all all samenet trust" >>"$dir/data/pg_hba.conf"
fi

started=""
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 20000))
  if "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 30 start \
    -o "-c listen_addresses=$listen -c port=$port -c unix_socket_directories=$dir/socket -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    >/dev/null 2>&1; then
    started=$port
    break
  fi
done
# From here on, a failure stops the cluster and removes its directory.
trap 'bash "$(dirname "$0")/down.sh" "$dir"' ERR
if [ -z "$started" ]; then
  echo "postgres/up.sh: the cluster did not start; its log:" >&2
  tail -20 "$dir/data/server.log" >&2 || true
  rm -rf "$dir"
  exit 1
fi
"${as[@]}" "$bindir/createdb" -h "$dir/socket" -p "$started" -U perfgate perfgate
trap - ERR
echo "PERFGATE_POSTGRES_DIR=$dir"
echo "DATABASE_URL=postgres://perfgate@127.0.0.1:$started/perfgate?sslmode=disable"
