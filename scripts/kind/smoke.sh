#!/usr/bin/env bash
# smoke.sh KIND NODE_IMAGE: creates a kind cluster from the offline node
# image (build.sh prints both), with the kind target's own cluster config
# (API server on loopback, no CoreDNS), and checks it end to end as
# scripts/k8s-local/smoke.sh checks the local cluster: an image loaded with
# `kind load image-archive`, a Deployment with limits == requests (cpu
# 250m, memory 64Mi, QoS Guaranteed) whose container cgroup holds the quota
# and the memory limit, a ClusterIP Service reached from a Job's pod and
# from the node, the API server's proxy, kubectl logs, crictl in the node,
# CFS throttling in the kubelet's cAdvisor metrics. Deletes the cluster and
# checks that no node container is left. Prints one line per check and
# `N passed, N failed`. Needs DOCKER_HOST (scripts/docker/up.sh). Root.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k8s_local=$here/../k8s-local
# shellcheck source=scripts/lib/smoke.sh
. "$here/../lib/smoke.sh"
if [ $# -ne 2 ]; then
  echo "usage: smoke.sh KIND NODE_IMAGE (scripts/kind/build.sh prints both)" >&2
  exit 2
fi
kind=$1 node_image=$2
kubectl=${PERFGATE_K8S_CACHE:-/var/cache/perfgate-k8s}/bin-v1.32.0/kubectl
cluster=perfgate-smoke-$$
node=$cluster-control-plane
node_name=$node # the smoke checks' name for it
ns=perfgate-smoke
work=$(mktemp -d)
kc() { "$kubectl" --kubeconfig "$work/kubeconfig" "$@"; }
on_node() { docker exec "$node" "$@"; }
finish() {
  "$kind" delete cluster --name "$cluster" >/dev/null 2>&1
  if docker ps -a --format '{{.Names}}' | grep -qx "$node"; then
    failed=$((failed + 1))
    echo "FAIL  the node container $node is left after kind delete cluster"
  fi
  rm -rf "$work"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
}
trap finish EXIT

# The kind target's own cluster config, as its test keeps it
# (engine/internal/target/kind/testdata/cluster-config.yaml, written by
# clusterConfig), with this node image.
golden=$here/../../engine/internal/target/kind/testdata/cluster-config.yaml
sed "s|^\( *\)image: kindest/node:v1.32.0\$|\1image: $node_image|" "$golden" >"$work/kind.yaml"
grep -q "image: $node_image\$" "$work/kind.yaml" || { echo "smoke.sh: $golden has no line 'image: kindest/node:v1.32.0' to point at $node_image" >&2; exit 1; }
t0=$(date +%s)
check "kind create cluster --image $node_image" "$kind" create cluster --name "$cluster" --config "$work/kind.yaml" --kubeconfig "$work/kubeconfig" --wait 3m
echo "      cluster created in $(($(date +%s) - t0)) s"
system_pods() {
  local c
  for c in etcd kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
    kc -n kube-system wait --for=condition=Ready pod -l "component=$c" --timeout=180s >/dev/null 2>&1 ||
      kc -n kube-system wait --for=condition=Ready pod -l "k8s-app=$c" --timeout=180s >/dev/null || return 1
  done
  echo "etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy Ready"
}
check "the control plane's pods and kube-proxy are Ready" system_pods
no_dns() { [ -z "$(kc -n kube-system get pods -l k8s-app=kube-dns -o name)" ]; }
check "no CoreDNS pods (the kind target skips the add-on)" no_dns
check "crictl in the node" on_node crictl --version

tag=smoke-$(date +%s)
image=perfgate.local/smoke:$tag
(cd "$k8s_local/smoke" && GOFLAGS='' CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags '-s -w' -o "$work/smoke" main.go)
"$k8s_local/mkimage.sh" "$work/smoke" "$image" "$work/smoke.tar"
check "kind load image-archive" "$kind" load image-archive "$work/smoke.tar" --name "$cluster"

smoke_manifest 1 | kc apply -f - >/dev/null
check "Deployment rolls out (Running and Ready)" kc -n "$ns" rollout status deployment/smoke --timeout=300s
pod=$(kc -n "$ns" get pods -l app=smoke -o jsonpath='{.items[0].metadata.name}')
cid=$(kc -n "$ns" get pod "$pod" -o jsonpath='{.status.containerStatuses[0].containerID}')
cid=${cid#containerd://}
cip=$(kc -n "$ns" get service smoke -o jsonpath='{.spec.clusterIP}')
qos() { [ "$(kc -n "$ns" get pod "$pod" -o jsonpath='{.status.qosClass}')" = Guaranteed ]; }
check "pod QoS class Guaranteed" qos
# Seen from this machine, as the kind target reads its counters: the
# node's cgroups nest under its container's (the systemd driver names the
# container's cgroup cri-containerd-<id>.scope on both cgroup versions).
cg=$(find /sys/fs/cgroup/cpu /sys/fs/cgroup -maxdepth 12 -type d -name "*$cid*" 2>/dev/null | head -1)
quota() {
  if [ -f "$cg/cpu.max" ]; then grep -x '25000 100000' "$cg/cpu.max"; else grep -x 25000 "$cg/cpu.cfs_quota_us"; fi
}
memory() {
  if [ -f "$cg/memory.max" ]; then grep -x 67108864 "$cg/memory.max"; else grep -x 67108864 "${cg/\/cpu\//\/memory\/}/memory.limit_in_bytes"; fi
}
check "the container's cgroup, seen from this machine ($cg): CPU quota 25 ms per 100 ms" quota
check "the container's cgroup: memory limit 64Mi" memory
poll 120 on_node curl -fsS --max-time 1 "http://$cip/" || true
check "ClusterIP $cip answers from the node" on_node curl -fsS --max-time 5 "http://$cip/"

smoke_client_job "http://$cip/"
check "a Job reaches the ClusterIP from a second pod" kc -n "$ns" wait --for=condition=complete job/smoke-client --timeout=300s
job_logs() {
  local logs
  logs=$(kc -n "$ns" logs job/smoke-client) && grep '200 OK' <<<"$logs"
}
check "kubectl logs of the Job" job_logs
check "API server proxy to the pod" kc get --raw "/api/v1/namespaces/$ns/pods/$pod:8080/proxy/"

# Two cores' worth of demand against a 250m limit: throttled for sure.
for _ in 1 2 3 4; do on_node curl -fsS --max-time 10 "http://$cip/burn?ms=400" >/dev/null & done
wait
poll 120 throttled || true
check "cAdvisor metrics: container_cpu_cfs_throttled_periods_total > 0" throttled
