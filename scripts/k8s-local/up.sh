#!/usr/bin/env bash
# Stands up a real single-node Kubernetes v1.32.0 on this machine, from
# nothing: its own containerd, etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet and kube-proxy, all state under $state
# (/var/lib/perfgate-k8s), logs in $state/logs. Installs what it needs from
# apt, builds the Kubernetes binaries once (~8-10 min on 2 cores; cached in
# $PERFGATE_K8S_CACHE, default /var/cache/perfgate-k8s) and returns when the
# node is Ready and the default service account exists. Idempotent: starts
# only what is not running. Prints `KUBECONFIG=<path>` as its last line.
# Images: load-image.sh; stop and clean up: down.sh. Run as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
[ "$(id -u)" = 0 ] || { log "run me as root: I start containerd and the kubelet"; exit 1; }
started=$(date +%s)

# --- packages ---------------------------------------------------------------
# shellcheck source=scripts/lib/apt.sh
. "$here/../lib/apt.sh"
# shellcheck source=scripts/lib/poll.sh
. "$here/../lib/poll.sh"
install_missing containerd:containerd containerd-shim-runc-v2:containerd ctr:containerd runc:runc \
  iptables:iptables ip:iproute2 openssl:openssl conntrack:conntrack curl:curl
command -v go >/dev/null || { log "Go is needed to build Kubernetes; install Go 1.23 or newer"; exit 1; }

# etcd and the CNI plugins go into a private root, not onto the system.
if [ ! -x "$debroot/usr/bin/etcd" ] || [ ! -x "$debroot/usr/lib/cni/bridge" ]; then
  log "unpacking etcd-server and containernetworking-plugins from apt into $debroot"
  mkdir -p "$cache/debs"
  if ! (cd "$cache/debs" && apt-get -q -o APT::Sandbox::User=root download etcd-server containernetworking-plugins >&2); then
    apt-get update -qq >&2
    (cd "$cache/debs" && apt-get -q -o APT::Sandbox::User=root download etcd-server containernetworking-plugins >&2)
  fi
  rm -rf "$debroot"
  for deb in "$cache"/debs/etcd-server_*.deb "$cache"/debs/containernetworking-plugins_*.deb; do
    dpkg-deb -x "$deb" "$debroot"
  done
fi
etcd=$debroot/usr/bin/etcd
cni_bin=$debroot/usr/lib/cni

# --- Kubernetes binaries and the pause image --------------------------------
"$here/build.sh" >/dev/null
kubectl=$bin/kubectl
pause_tar=$cache/pause-$(cat "$here/pause/main.go" "$here/mkimage.sh" <(go version) | sha256sum | cut -c1-12).tar
if [ ! -s "$pause_tar" ]; then
  log "building the pause image $pause_ref"
  rm -f "$cache"/pause-*.tar
  (cd "$here/pause" && GOFLAGS='' CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags '-s -w' -o "$cache/pause" main.go)
  "$here/mkimage.sh" "$cache/pause" "$pause_ref" "$pause_tar"
fi

# --- certificates and kubeconfigs -------------------------------------------
mkdir -p "$state"/{pki,run,logs,etcd,kubelet,cni/net.d,cni/ipam,pod-logs}
pki=$state/pki
# cert NAME SUBJECT EXT: an EC key and a certificate signed by the cluster CA.
cert() {
  [ -s "$pki/$1.crt" ] && return 0
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/$1.key"
  openssl req -new -key "$pki/$1.key" -subj "$2" |
    openssl x509 -req -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
      -days 3650 -extfile <(printf '%s\n' "$3") -out "$pki/$1.crt" 2>/dev/null
}
if [ ! -s "$pki/ca.crt" ]; then
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/ca.key"
  openssl req -x509 -new -key "$pki/ca.key" -subj /CN=perfgate-k8s-ca -days 3650 \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign -out "$pki/ca.crt"
fi
client='keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth'
server='keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth'
cert apiserver /CN=kube-apiserver "$server
subjectAltName=IP:$node_ip,IP:127.0.0.1,IP:${service_cidr%.*/*}.1,DNS:localhost,DNS:$node_name,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
cert kubelet-server "/CN=$node_name" "$server
subjectAltName=IP:$node_ip,DNS:$node_name"
# The apiserver's client certificate for the kubelet API (logs, exec,
# port-forward, proxy): system:masters passes the kubelet's webhook authz.
cert apiserver-kubelet-client /O=system:masters/CN=kube-apiserver-kubelet-client "$client"
cert admin /O=system:masters/CN=kubernetes-admin "$client"
cert kubelet "/O=system:nodes/CN=system:node:$node_name" "$client"
cert controller-manager /CN=system:kube-controller-manager "$client"
cert scheduler /CN=system:kube-scheduler "$client"
cert kube-proxy /CN=system:kube-proxy "$client"
if [ ! -s "$pki/sa.pub" ]; then
  openssl ecparam -name prime256v1 -genkey -noout -out "$pki/sa.key"
  openssl ec -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
fi
chmod 600 "$pki"/*.key

# put FILE: standard input into FILE, only if that changes it: kube-proxy
# exits when its configuration file changes under it.
put() {
  local tmp
  tmp=$(mktemp "$1.XXXXXX")
  cat >"$tmp"
  if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv "$tmp" "$1"; fi
}

# write_kubeconfig FILE CERT-NAME
write_kubeconfig() {
  put "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $node_name
  cluster:
    server: $api_server
    certificate-authority-data: $(base64 -w0 "$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(base64 -w0 "$pki/$2.crt")
    client-key-data: $(base64 -w0 "$pki/$2.key")
contexts:
- name: $node_name
  context:
    cluster: $node_name
    user: $2
current-context: $node_name
EOF
}
write_kubeconfig "$kubeconfig" admin
for c in kubelet controller-manager scheduler kube-proxy; do write_kubeconfig "$state/$c.kubeconfig" "$c"; done

# --- configuration files ----------------------------------------------------
mkdir -p "$state/containerd"
put "$state/containerd/config.toml" <<EOF
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$containerd_sock"
[ttrpc]
  address = "$state/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$state/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_ref"
  # This VM grants no CAP_SYS_RESOURCE: without this runc fails to write
  # oom_score_adj and every sandbox dies with "can't get final child's PID".
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$state/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$cni_bin"
    conf_dir = "$state/cni/net.d"
    max_conf_num = 1
EOF

# The firewall plugin accepts the pods' traffic in FORWARD, whose policy a
# Docker engine on the same host sets to DROP.
put "$state/cni/net.d/10-$cni_network.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "$cni_network",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$pod_cidr", "gateway": "$node_ip"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "$state/cni/ipam"
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "firewall", "backend": "iptables"}
  ]
}
EOF

put "$state/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $node_ip
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $pki/kubelet-server.crt
tlsPrivateKeyFile: $pki/kubelet-server.key
containerRuntimeEndpoint: unix://$containerd_sock
cgroupDriver: cgroupfs
cgroupRoot: $cgroup_root
failSwapOn: false
podLogsDir: $state/pod-logs
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
# A test machine fills its disk and memory for real; evict only near the end.
evictionHard: {memory.available: 50Mi, nodefs.available: 1%, nodefs.inodesFree: 1%, imagefs.available: 1%}
# Imported images cannot be pulled again: never garbage-collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
EOF

put "$state/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $state/kube-proxy.kubeconfig}
mode: iptables
hostnameOverride: $node_name
clusterCIDR: $pod_cidr
bindAddress: $node_ip
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# Leave the host's conntrack sysctls and route_localnet alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {localhostNodePorts: false}
# NodePorts on the node's address only, not on every host interface.
nodePortAddresses: [primary]
EOF

# --- host network and cgroups -----------------------------------------------
if [ ! -s "$state/sysctl.orig" ]; then
  for s in "${sysctls[@]}"; do
    v=$(sysctl -n "$s" 2>/dev/null) && echo "$s=$v"
  done >"$state/sysctl.orig"
fi
modprobe br_netfilter 2>/dev/null || true
sysctl -qw net.ipv4.ip_forward=1
sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null ||
  log "warning: net.bridge.bridge-nf-call-iptables is missing (no br_netfilter): pod-to-Service traffic may fail"
if ! ip link show "$bridge" >/dev/null 2>&1; then
  ip link add "$bridge" type bridge
fi
ip addr replace "$node_ip/${pod_cidr#*/}" dev "$bridge"
ip link set "$bridge" up
# The kubelet needs its cgroup root in every hierarchy; cpuset needs CPUs
# and memory nodes before anything can join it.
for h in /sys/fs/cgroup/*/; do
  case $h in */unified/) continue ;; esac
  [ -d "$h" ] && mkdir -p "$h${cgroup_root#/}"
done
cpuset=/sys/fs/cgroup/cpuset
if [ -d "$cpuset$cgroup_root" ]; then
  [ -n "$(cat "$cpuset$cgroup_root/cpuset.cpus")" ] || cat "$cpuset/cpuset.cpus" >"$cpuset$cgroup_root/cpuset.cpus"
  [ -n "$(cat "$cpuset$cgroup_root/cpuset.mems")" ] || cat "$cpuset/cpuset.mems" >"$cpuset$cgroup_root/cpuset.mems"
fi

# --- processes --------------------------------------------------------------
# start NAME BINARY ARGS...: in its own session (so it outlives this shell),
# its pid in $state/run/NAME.pid, its output in $state/logs/NAME.log.
start() {
  local name=$1
  shift
  if pid_of "$name" >/dev/null; then return 0; fi
  log "starting $name"
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$state/run/$name.pid" "$@" \
    >>"$state/logs/$name.log" 2>&1 </dev/null &
  poll 60 test -s "$state/run/$name.pid" || true
}
# wait_for WHAT SECONDS COMMAND...: polls COMMAND until it succeeds.
wait_for() {
  local what=$1 secs=$2 log_of=$3 i
  shift 3
  for ((i = 0; i < secs * 4; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ -n "$log_of" ] && ! pid_of "$log_of" >/dev/null; then
      log "$log_of exited while waiting for $what; the end of $state/logs/$log_of.log:"
      tail -25 "$state/logs/$log_of.log" >&2
      exit 1
    fi
    sleep 0.25
  done
  log "timed out after ${secs}s waiting for $what; the end of $state/logs/${log_of:-kubelet}.log:"
  tail -25 "$state/logs/${log_of:-kubelet}.log" >&2
  exit 1
}
ctr_() { ctr --address "$containerd_sock" --namespace k8s.io "$@"; }
kc() { "$kubectl" --kubeconfig "$kubeconfig" "$@"; }

start containerd containerd --config "$state/containerd/config.toml"
wait_for "containerd" 120 containerd ctr_ version
if ! ctr_ images ls -q | grep -x "$pause_ref" >/dev/null; then
  ctr_ images import --platform "linux/$(go env GOARCH)" "$pause_tar" >&2
fi

start etcd "$etcd" --name "$node_name" --data-dir "$state/etcd" \
  --listen-client-urls "$etcd_client" --advertise-client-urls "$etcd_client" \
  --listen-peer-urls "$etcd_peer" --initial-advertise-peer-urls "$etcd_peer" \
  --initial-cluster "$node_name=$etcd_peer" --log-level warn
wait_for "etcd" 120 etcd curl -fsS "$etcd_client/health"

start kube-apiserver "$bin/kube-apiserver" \
  --etcd-servers="$etcd_client" \
  --bind-address="$node_ip" --advertise-address="$node_ip" --secure-port=6443 \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --service-cluster-ip-range="$service_cidr" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" \
  --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="$pki/ca.crt" \
  --kubelet-preferred-address-types=InternalIP,Hostname \
  --allow-privileged=true
wait_for "kube-apiserver /readyz" 300 kube-apiserver kc get --raw /readyz

start kube-controller-manager "$bin/kube-controller-manager" \
  --kubeconfig="$state/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$state/controller-manager.kubeconfig" \
  --authorization-kubeconfig="$state/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --use-service-account-credentials=true \
  --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
  --service-cluster-ip-range="$service_cidr"
start kube-scheduler "$bin/kube-scheduler" \
  --kubeconfig="$state/scheduler.kubeconfig" \
  --authentication-kubeconfig="$state/scheduler.kubeconfig" \
  --authorization-kubeconfig="$state/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false
# --containerd: cAdvisor's own connection to containerd, which gives the
# container metrics their pod, namespace and container labels.
start kubelet "$bin/kubelet" \
  --config="$state/kubelet/config.yaml" --kubeconfig="$state/kubelet.kubeconfig" \
  --root-dir="$state/kubelet/root" --hostname-override="$node_name" --node-ip="$node_ip" \
  --pod-infra-container-image="$pause_ref" --containerd="$containerd_sock"
start kube-proxy "$bin/kube-proxy" --config="$state/kube-proxy.yaml"

node_ready() {
  [ "$(kc get node "$node_name" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')" = True ]
}
wait_for "node $node_name to be Ready" 300 kubelet node_ready
wait_for "the default service account" 180 kube-controller-manager kc -n default get serviceaccount default
for c in "${components[@]}"; do
  pid_of "$c" >/dev/null || { log "$c is not running; the end of $state/logs/$c.log:"; tail -25 "$state/logs/$c.log" >&2; exit 1; }
done
log "up in $(($(date +%s) - started)) s: node $node_name Ready, kubectl at $kubectl, logs in $state/logs"
echo "KUBECONFIG=$kubeconfig"
