#!/usr/bin/env bash
# Starts a private Docker engine for perfgate's docker-target tests: its own
# socket, data root and pid file, so it never touches a Docker the machine
# already runs. Prints the DOCKER_HOST to use. Installs docker.io from apt
# when dockerd is missing. Stop it with down.sh, which also removes the
# bridge and the iptables rules dockerd adds. Run as root.
set -euo pipefail
# shellcheck source=scripts/lib/poll.sh
. "$(dirname "$0")/../lib/poll.sh"
state=/run/perfgate-docker
sock=unix://$state.sock
if [ -S "$state.sock" ] && DOCKER_HOST=$sock docker info >/dev/null 2>&1; then
  echo "DOCKER_HOST=$sock"
  exit 0
fi
# An engine the machine already runs (GitHub's runners have one) is used
# as it is: a second dockerd would fight it over docker0 and iptables.
# down.sh leaves it alone, since only a private engine has $state.
if [ -z "${PERFGATE_PRIVATE_DOCKER:-}" ] && command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  echo "DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}"
  exit 0
fi
if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
mkdir -p "$state"
# dockerd turns on IP forwarding and sets the FORWARD policy to DROP; keep
# what the host had so down.sh can put it back.
if [ ! -f "$state/host-state" ]; then
  printf '%s %s\n' "$(cat /proc/sys/net/ipv4/ip_forward)" "$(iptables -S FORWARD 2>/dev/null | awk '/^-P FORWARD/ {print $3}')" >"$state/host-state"
fi
# A host whose capability bounding set is short (this development VM has no
# CAP_SYS_RESOURCE) cannot start --privileged containers, such as kind's
# nodes, with runc as it is: runc-within-bounds.sh drops what the host lacks.
runtime=()
if [ "$(awk '/^CapBnd:/ {print $2}' /proc/self/status)" != "$(printf '%016x' $(((1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1)))" ]; then
  command -v jq >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null; }
  runtime=(--add-runtime "runc-within-bounds=$(cd "$(dirname "$0")" && pwd)/runc-within-bounds.sh" --default-runtime runc-within-bounds)
fi
dockerd --data-root /var/lib/perfgate-docker --exec-root "$state/exec" --pidfile "$state.pid" \
  -H "$sock" "${runtime[@]}" >"$state/dockerd.log" 2>&1 &
if poll 180 env DOCKER_HOST="$sock" docker info; then
  echo "DOCKER_HOST=$sock"
  exit 0
fi
echo "docker/up.sh: dockerd did not answer within 180 s; its log:" >&2
tail -20 "$state/dockerd.log" >&2
exit 1
