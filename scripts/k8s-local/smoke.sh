#!/usr/bin/env bash
# Checks a running local cluster (up.sh) end to end with a FROM-scratch image
# built here: a Deployment with limits == requests (cpu 250m, memory 64Mi)
# and imagePullPolicy: Never, a ClusterIP Service reached from the host and
# from a Job, kubectl logs, port-forward and the API server's pod proxy, the
# kubelet's cAdvisor metrics (CFS throttling), the pod's cgroup limits and a
# server-side dry run. Removes its namespace afterwards (--keep leaves it).
# Prints one line per check and `N passed, N failed`. Run as root.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
# shellcheck source=scripts/lib/smoke.sh
. "$here/../lib/smoke.sh"
keep=
[ "${1:-}" = --keep ] && keep=1
ns=perfgate-smoke
kc() { "$bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }
finish() {
  [ -n "${pf_pid:-}" ] && kill "$pf_pid" 2>/dev/null
  [ -n "$keep" ] || kc delete namespace "$ns" --wait=false >/dev/null 2>&1
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
}
trap finish EXIT
kc get --raw /readyz >/dev/null || { echo "FAIL  the cluster is not up: run $here/up.sh"; failed=1; exit 1; }

# A namespace left by an earlier --keep run goes first.
kc delete namespace "$ns" --ignore-not-found --timeout=60s >/dev/null

work=$(mktemp -d)
tag=smoke-$(date +%s)
image=perfgate.local/smoke:$tag
(cd "$here/smoke" && GOFLAGS='' CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags '-s -w' -o "$work/smoke" main.go)
"$here/mkimage.sh" "$work/smoke" "$image" "$work/smoke.tar"
check "load-image.sh imports the archive" bash -c "'$here/load-image.sh' '$work/smoke.tar' | grep -x '$image'"
rm -rf "$work"

t0=$(date +%s.%N)
smoke_manifest 1 | kc apply -f - >/dev/null
check "Deployment rolls out (Running and Ready)" kc -n "$ns" rollout status deployment/smoke --timeout=300s
# A server-side dry run of a change: admitted and reported, not applied.
dry_run() {
  local out
  out=$(smoke_manifest 3 | kc apply --dry-run=server -f -) &&
    grep 'deployment.apps/smoke configured (server dry run)' <<<"$out" &&
    [ "$(kc -n "$ns" get deployment smoke -o jsonpath='{.spec.replicas}')" = 1 ]
}
check "server-side dry run (kubectl apply --dry-run=server)" dry_run
echo "      time to Ready: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
pod=$(kc -n "$ns" get pods -l app=smoke -o jsonpath='{.items[0].metadata.name}')
cid=$(kc -n "$ns" get pod "$pod" -o jsonpath='{.status.containerStatuses[0].containerID}')
cid=${cid#containerd://}
cip=$(kc -n "$ns" get service smoke -o jsonpath='{.spec.clusterIP}')
qos() { [ "$(kc -n "$ns" get pod "$pod" -o jsonpath='{.status.qosClass}')" = Guaranteed ]; }
check "pod QoS class Guaranteed" qos
cg=$(find /sys/fs/cgroup/cpu"$cgroup_root" -type d -name "$cid" 2>/dev/null | head -1)
check "container cgroup cpu.cfs_quota_us = 25000" grep -qx 25000 "$cg/cpu.cfs_quota_us"
check "container cgroup memory.limit_in_bytes = 64Mi" grep -qx 67108864 "${cg/\/cpu\//\/memory\/}/memory.limit_in_bytes"
# kube-proxy programs the Service a moment after the endpoint is ready.
poll 120 curl -fsS --max-time 1 "http://$cip/" || true
check "ClusterIP $cip answers from the host" curl -fsS --max-time 5 "http://$cip/"

smoke_client_job "http://$cip/"
check "a Job reaches the ClusterIP from a second pod" kc -n "$ns" wait --for=condition=complete job/smoke-client --timeout=300s
job_logs() {
  local logs
  logs=$(kc -n "$ns" logs job/smoke-client) && grep '200 OK' <<<"$logs"
}
server_logs() {
  local logs
  logs=$(kc -n "$ns" logs "$pod") && grep -m1 'GET /' <<<"$logs"
}
check "kubectl logs of the Job" job_logs
check "kubectl logs of the server" server_logs

port=$((20000 + RANDOM % 10000))
# kubectl itself in the background, not the kc function: $! must be its pid.
"$bin/kubectl" --kubeconfig "$kubeconfig" -n "$ns" port-forward "pod/$pod" "$port:8080" >/dev/null 2>&1 &
pf_pid=$!
poll 120 curl -fsS --max-time 1 "http://127.0.0.1:$port/" || true
check "kubectl port-forward" curl -fsS --max-time 5 "http://127.0.0.1:$port/"
kill "$pf_pid" 2>/dev/null
pf_pid=
check "API server proxy to the pod" kc get --raw "/api/v1/namespaces/$ns/pods/$pod:8080/proxy/"
check "API server proxy to the Service" kc get --raw "/api/v1/namespaces/$ns/services/smoke:80/proxy/"

# Two cores' worth of demand against a 250m limit: throttled for sure.
for _ in 1 2 3 4; do curl -fsS --max-time 10 "http://$cip/burn?ms=400" >/dev/null & done
wait
poll 120 throttled || true
check "cAdvisor metrics: container_cpu_cfs_throttled_periods_total > 0 with pod labels" throttled
job_node() { [ "$(kc -n "$ns" get pods -l job-name=smoke-client -o jsonpath='{.items[0].spec.nodeName}')" = "$node_name" ]; }
check "the Job ran on $node_name" job_node
