#!/usr/bin/env bash
# Stops the local cluster of up.sh and removes everything it left on the
# host: its pods' containers, sandboxes and network namespaces, every process
# it started, mounts under its directories, its cgroups, the iptables and
# ip6tables KUBE-* and CNI-* chains and the rules that jump to them, the
# bridge and pod veths, what the kubelet and CNI write outside $state
# (/var/lib/cni, /var/lib/kubelet, /var/log/containers, /var/log/pods), the
# sysctls it changed, and $state itself. The build cache stays, unless
# `--purge` (or PERFGATE_K8S_PURGE=1) is given. Safe to run when nothing is
# up. Exits 1, naming what is left, if the host is not clean afterwards.
# Run as root.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
[ "$(id -u)" = 0 ] || { log "run me as root"; exit 1; }
purge=${PERFGATE_K8S_PURGE:-}
[ "${1:-}" = --purge ] && purge=1
kubectl=$bin/kubectl

# stop NAME: TERM, up to 10 s, then KILL.
stop() {
  local pid
  pid=$(pid_of "$1") || { rm -f "$state/run/$1.pid"; return 0; }
  kill "$pid" 2>/dev/null
  for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
  alive "$pid" && kill -9 "$pid" 2>/dev/null
  rm -f "$state/run/$1.pid"
}
ctr_() { ctr --address "$containerd_sock" --namespace k8s.io "$@"; }
running_tasks() { ctr_ tasks ls 2>/dev/null | awk 'NR > 1 && $3 == "RUNNING"' | wc -l; }

# 1. Pods away through the kubelet while it runs, so that CNI releases their
# addresses and rules the ordinary way.
if pid_of kubelet >/dev/null && pid_of kube-apiserver >/dev/null && [ -x "$kubectl" ]; then
  stop kube-controller-manager # nothing recreates what is deleted
  stop kube-scheduler
  if "$kubectl" --kubeconfig "$kubeconfig" --request-timeout=10s delete pods --all --all-namespaces \
    --force --grace-period=0 --wait=false >/dev/null 2>&1; then
    for _ in $(seq 60); do [ "$(running_tasks)" = 0 ] && break; sleep 0.5; done
  fi
fi

# 2. The control plane and node processes, in reverse start order, except
# containerd, which is still needed to remove containers.
for ((i = ${#components[@]} - 1; i >= 1; i--)); do stop "${components[i]}"; done

# 3. Whatever containers are left, and their network namespaces.
netns=()
if [ -S "$containerd_sock" ] && pid_of containerd >/dev/null; then
  for id in $(ctr_ containers ls -q 2>/dev/null); do
    ns=$(ctr_ containers info "$id" 2>/dev/null | grep -o '"/var/run/netns/cni-[^"]*"' | tr -d '"' | head -1)
    [ -n "$ns" ] && netns+=("$ns")
    ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1
  done
  for id in $(ctr_ containers ls -q 2>/dev/null); do
    for _ in $(seq 20); do ctr_ tasks delete -f "$id" >/dev/null 2>&1 && break; ctr_ tasks ls -q 2>/dev/null | grep -x "$id" >/dev/null || break; sleep 0.25; done
    ctr_ containers delete "$id" >/dev/null 2>&1
  done
fi
stop containerd

# 4. Anything still running from the cluster's binaries or directories
# (containerd shims, a component whose pid file is gone).
for _ in 1 2 3; do
  pids=$(ours_pids)
  [ -z "$pids" ] && break
  # shellcheck disable=SC2086 # one argument per pid
  kill $pids 2>/dev/null
  sleep 1
  pids=$(ours_pids)
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null
done

# 5. Mounts: the pods' network namespaces, and anything under our trees.
for ns in "${netns[@]}"; do umount "$ns" 2>/dev/null; rm -f "$ns"; done
for _ in 1 2 3; do
  mounts=$(awk -v s="$state" -v k=/var/lib/kubelet 'index($2, s "/") == 1 || $2 == s || index($2, k "/") == 1 {print $2}' /proc/mounts | sort -r)
  [ -z "$mounts" ] && break
  for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
done

# 6. The pods' cgroups (deepest first; empty once the processes are gone).
for h in /sys/fs/cgroup/*/; do
  [ -d "$h${cgroup_root#/}" ] || continue
  for _ in 1 2 3 4 5; do
    find "$h${cgroup_root#/}" -depth -type d -exec rmdir {} + 2>/dev/null
    [ -d "$h${cgroup_root#/}" ] || break
    sleep 0.5
  done
done

# 7. iptables: rules that jump to KUBE-*/CNI-* chains, then those chains.
for ipt in iptables ip6tables; do
  command -v "$ipt" >/dev/null || continue
  for table in filter nat mangle raw; do
    rules=$("$ipt" -t "$table" -S 2>/dev/null) || continue
    grep -E '^-A ' <<<"$rules" | grep -vE '^-A (KUBE-|CNI-)' | grep -E -- ' -[jg] (KUBE-|CNI-)' | sed 's/^-A/-D/' |
      while read -r rule; do eval "$ipt" -t "$table" "$rule" 2>/dev/null; done
    chains=$(awk '/^-N (KUBE-|CNI-)/ {print $2}' <<<"$rules")
    for c in $chains; do "$ipt" -t "$table" -F "$c" 2>/dev/null; done
    for c in $chains; do "$ipt" -t "$table" -X "$c" 2>/dev/null; done
  done
done
if command -v conntrack >/dev/null; then
  for cidr in "$pod_cidr" "$service_cidr"; do
    conntrack -D -s "$cidr" >/dev/null 2>&1
    conntrack -D -d "$cidr" >/dev/null 2>&1
  done
fi

# 8. Links: pod veths still on the bridge, then the bridge.
if ip link show "$bridge" >/dev/null 2>&1; then
  for veth in $(ip -o link show master "$bridge" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip link delete "$veth" 2>/dev/null
  done
  ip link delete "$bridge" 2>/dev/null
fi

# 9. What the kubelet and CNI write outside $state.
if [ -d /var/lib/cni ]; then
  rm -f /var/lib/cni/results/"$cni_network"-* 2>/dev/null
  rm -rf /var/lib/cni/networks/"$cni_network" 2>/dev/null
  find /var/lib/cni -depth -type d -empty -delete 2>/dev/null
fi
if [ -d /var/log/containers ]; then
  for l in /var/log/containers/*; do
    [ -L "$l" ] && case $(readlink "$l") in "$state"/*) rm -f "$l" ;; esac
  done
  rmdir /var/log/containers 2>/dev/null
fi
rmdir /var/log/pods 2>/dev/null
rmdir /run/netns 2>/dev/null # containerd's pods' namespaces; kept if anything else has one
# Our kubelet runs with --root-dir under $state; /var/lib/kubelet is only
# removed when no other kubelet could be using it.
if [ -d /var/lib/kubelet ] && ! pgrep -x kubelet >/dev/null; then rm -rf /var/lib/kubelet; fi

# 10. Sysctls back to what they were before the first up.sh, except that
# IP forwarding stays on while a Docker bridge needs it.
if [ -s "$state/sysctl.orig" ]; then
  while IFS='=' read -r key value; do
    [ "$key" = net.ipv4.ip_forward ] && [ "$value" = 0 ] && ip link show docker0 >/dev/null 2>&1 && continue
    [ "$(sysctl -n "$key" 2>/dev/null)" = "$value" ] || sysctl -qw "$key=$value" 2>/dev/null
  done <"$state/sysctl.orig"
fi

rm -rf "$state"
if [ -n "$purge" ]; then
  log "removing the build cache $cache"
  rm -rf "$cache"
fi

# 11. Check.
left=()
[ -z "$(ours_pids)" ] || left+=("processes: $(ours_pids | tr '\n' ' ')")
ip link show "$bridge" >/dev/null 2>&1 && left+=("link $bridge")
[ -n "$(ip -o link show master "$bridge" 2>/dev/null)" ] && left+=("veths on $bridge")
for ipt in iptables ip6tables; do
  command -v "$ipt-save" >/dev/null || continue
  "$ipt-save" 2>/dev/null | grep -E '(KUBE-|CNI-)' >/dev/null && left+=("$ipt KUBE-/CNI- rules")
done
grep -qE " ($state|/var/lib/kubelet|/var/run/netns/cni-|/run/netns/cni-)" /proc/mounts && left+=("mounts")
for h in /sys/fs/cgroup/*/; do [ -d "$h${cgroup_root#/}" ] && left+=("cgroup $h${cgroup_root#/}"); done
[ -e "$state" ] && left+=("$state")
if [ ${#left[@]} -gt 0 ]; then
  log "down, but these are left: ${left[*]}"
  exit 1
fi
log "down: nothing of the cluster is left on the host${purge:+ (build cache removed)}"
