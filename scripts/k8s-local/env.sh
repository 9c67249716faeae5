# shellcheck shell=bash disable=SC2034 # the names are used by the scripts that source this file
# Names, paths and addresses of the local cluster, shared by up.sh, down.sh
# and load-image.sh (sourced, not run). Everything the cluster keeps lives in
# $state; everything worth keeping across clusters (Go caches, binaries,
# Debian packages, the pause image) in $cache.

k8s_version=v1.32.0
cache=${PERFGATE_K8S_CACHE:-/var/cache/perfgate-k8s}
state=${PERFGATE_K8S_STATE:-/var/lib/perfgate-k8s}
bin=$cache/bin-$k8s_version # kube-* and kubectl, from build.sh
debroot=$cache/debroot       # etcd and the CNI plugins, unpacked from Debian
kubeconfig=$state/kubeconfig # the admin kubeconfig up.sh prints
containerd_sock=$state/containerd/containerd.sock

node_name=perfgate-k8s
# The CNI bridge, created by up.sh with the node's address, so that the
# apiserver and kubelet can bind to it before the first pod exists. Distinct
# from the private dockerd's docker0 and 172.17.0.0/16.
bridge=pgk8s0
node_ip=10.217.0.1
pod_cidr=10.217.0.0/24
service_cidr=10.218.0.0/24
api_server=https://$node_ip:6443
etcd_client=http://127.0.0.1:12379
etcd_peer=http://127.0.0.1:12380
cni_network=perfgate-k8s
# Pods of the cluster live under this cgroup in every v1 hierarchy, so
# nothing else's cgroups are touched and down.sh knows what to remove.
cgroup_root=/perfgate-k8s
pause_ref=perfgate.local/pause:1

# Start order; down.sh stops them in reverse.
components=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)

# Host settings that the kubelet, kube-proxy or up.sh may change; up.sh
# records their values before the first start and down.sh puts them back.
sysctls=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables
  vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.conf.all.route_localnet)

log() { echo "k8s-local: $*" >&2; }

. "$(dirname "${BASH_SOURCE[0]}")/../lib/pid.sh"

# pid_of NAME prints the pid recorded for a component if that process is
# still alive and still runs the component's binary.
pid_of() { pid_in "$state/run/$1.pid" "$1"; }

# ours_pids prints every process whose command line names the state
# directory or the cluster's binaries: what is left of the cluster when a
# pid file is gone (a shim, a crashed start).
ours_pids() {
  local p cmd
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] && continue
    alive "${p#/proc/}" || continue
    cmd=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) || continue
    case $cmd in
    *"$state/"* | "$bin/"* | "$debroot/"*) echo "${p#/proc/}" ;;
    esac
  done
}
