#!/usr/bin/env bash
# time-image-load.sh: how long handing one service image to a kind node
# takes, two ways, alternated N times (N=10): `kind load image-archive`
# (what the kind target ran before 2026-11-30) and one
# `docker exec -i <node> ctr ... images import -` reading the archive on
# stdin (what kind load runs last, after finding the cluster's nodes and
# asking the node's containerd for its snapshotter). Each image is new
# content, as every round's relinked binary is: the example service with
# 16 random bytes appended. Creates its own cluster from the offline node
# image (build.sh) with the kind target's cluster config, deletes it at the
# end, and prints each time and the medians. Needs DOCKER_HOST
# (scripts/docker/up.sh). Root. Nothing else should run meanwhile.
#
#   sudo bash scripts/kind/time-image-load.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
n=${N:-10}
kind_env=$(bash "$here/build.sh")
kind=$(sed -n 's/^KIND=//p' <<<"$kind_env")
node_image=$(sed -n 's/^KIND_NODE_IMAGE=//p' <<<"$kind_env")
cluster=perfgate-loadtime-$$
node=$cluster-control-plane
work=$(mktemp -d)
trap '"$kind" delete cluster --name "$cluster" >/dev/null 2>&1; rm -rf "$work"' EXIT

golden=$root/engine/internal/target/kind/testdata/cluster-config.yaml
sed "s|^\( *\)image: kindest/node:v1.32.0\$|\1image: $node_image|" "$golden" >"$work/kind.yaml"
"$kind" create cluster --name "$cluster" --config "$work/kind.yaml" --kubeconfig "$work/kubeconfig" --wait 3m >&2
snapshotter=$(docker exec "$node" containerd config dump | sed -n 's/^ *snapshotter = "\(.*\)"$/\1/p' | head -1)
echo "node $node, containerd snapshotter ${snapshotter:?not found in containerd config dump}" >&2

(cd "$root/examples/service" && GOFLAGS='' CGO_ENABLED=0 go build -trimpath -o "$work/service" ./cmd/server)
archive() { # archive I: a FROM-scratch image of new content
  cp "$work/service" "$work/service-$1"
  head -c 16 /dev/urandom >>"$work/service-$1"
  bash "$root/scripts/k8s-local/mkimage.sh" "$work/service-$1" "perfgate.local/loadtime:$1" "$work/image-$1.tar"
}
seconds() { # seconds CMD...: the command's wall time
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
kind_load=() ctr_import=()
for i in $(seq 1 "$n"); do
  archive "k$i"
  archive "c$i"
  kind_load+=("$(seconds "$kind" load image-archive "$work/image-k$i.tar" --name "$cluster")")
  ctr_import+=("$(seconds sh -c 'docker exec -i "$1" ctr --namespace=k8s.io images import --all-platforms --digests --snapshotter="$2" - <"$3"' sh "$node" "$snapshotter" "$work/image-c$i.tar")")
  echo "$i: kind load ${kind_load[-1]} s, docker exec ctr import ${ctr_import[-1]} s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "median over $n: kind load $(median "${kind_load[@]}") s, docker exec ctr import $(median "${ctr_import[@]}") s"
