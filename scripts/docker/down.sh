#!/usr/bin/env bash
# Stops the private Docker engine of up.sh and removes what it left in the
# host: its containers and images (with the data root), its networks'
# bridges (kind's included), the docker0 bridge,
# and every iptables rule and chain dockerd added. Safe to run twice. Run
# as root.
set -uo pipefail
state=/run/perfgate-docker
sock=unix://$state.sock
# Nothing to do unless up.sh started a private engine (an engine the
# machine already ran was only used, and stays as it was).
[ -d "$state" ] || [ -f "$state.pid" ] || exit 0
if [ -S "$state.sock" ]; then
  ids=$(DOCKER_HOST=$sock docker ps -aq 2>/dev/null)
  [ -n "$ids" ] && DOCKER_HOST=$sock docker rm -f $ids >/dev/null 2>&1
  # Networks made on it (kind's "kind"): dockerd removes their bridges and
  # the NAT rules naming them only while it runs.
  DOCKER_HOST=$sock docker network prune -f >/dev/null 2>&1
fi
if [ -f "$state.pid" ]; then
  pid=$(cat "$state.pid")
  kill "$pid" 2>/dev/null
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null
fi
# containerd shims of containers that outlived the engine.
pkill -f 'containerd-shim.*perfgate-docker' 2>/dev/null
ip link delete docker0 2>/dev/null
# Rules that jump to or mention dockerd's chains, then the chains.
for table in filter nat; do
  iptables -t "$table" -S 2>/dev/null | grep -E '^-A .*(DOCKER|docker0)' | sed 's/^-A/-D/' |
    while read -r rule; do eval iptables -t "$table" "$rule" 2>/dev/null; done
  iptables -t "$table" -S 2>/dev/null | awk '/^-N DOCKER/ {print $2}' |
    while read -r chain; do iptables -t "$table" -F "$chain" 2>/dev/null; iptables -t "$table" -X "$chain" 2>/dev/null; done
done
if [ -f "$state/host-state" ] && read -r forward policy <"$state/host-state"; then
  echo "$forward" >/proc/sys/net/ipv4/ip_forward
  [ -n "$policy" ] && iptables -P FORWARD "$policy"
fi
for m in $(grep -o '/var/lib/perfgate-docker[^ ]*\|/run/perfgate-docker[^ ]*' /proc/mounts | sort -r); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
rm -rf /var/lib/perfgate-docker "$state" "$state.sock" "$state.pid"
exit 0
