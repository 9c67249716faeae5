#!/usr/bin/env bash
# A/B measurements of the kind duet, not part of perfgate: kind A/A gates
# of the example service, 20 rounds each with no profile rounds (so every
# gate measures the per-round spread over the same number of rounds), the
# arms alternated in the order ARMS gives. Each arm is a letter; for arm X:
#
#   PERFGATE_X=path   the perfgate binary it runs (default: one built from
#                     this checkout)
#   CONFINE_X=1       while its gate runs, every kind node's processes but
#                     its init (containerd, its shims, kubelet, journald)
#                     are moved into a cpuset cgroup of the node's on CPU 0,
#                     and its kube-system pods' cgroups narrowed to CPU 0,
#                     where perfgate places the load generator (the service
#                     pods perfgate narrows to CPU 1 as usual)
#
#   # the node's own processes on the generator's CPU, or not
#   # (docs/benchmarks.md, "kind: the node's own processes on the generator's CPU"):
#   sudo CONFINE_c=1 ARMS="c p p c c p p c" bash scripts/kind/ab.sh
#   # two engines (docs/benchmarks.md, "kind driven from this machine"):
#   sudo PERFGATE_o=/path/to/old/perfgate ARMS="h o o h h o o h" bash scripts/kind/ab.sh
#   python3 scripts/rounds.py results/kind-ab/*/report.json | grep 'cpu log-ratio'
#
# The node's init (systemd) stays where it is: moved into the narrowed
# cgroup, it made the cpusets of containers created later "0" (checked by
# hand: a pod created then had its containers' cpuset.cpus at 0, and at
# 0-1 with systemd left out). Confining needs this machine's cgroup v1
# cpuset hierarchy. Needs two CPUs and nothing else running; results in
# results/kind-ab (OUT= to change), one directory per gate, <arm>-<n>.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "ab.sh: run me as root (cgroups, Docker)" >&2; exit 1; }
cpuset=/sys/fs/cgroup/cpuset
out=${OUT:-$root/results/kind-ab}
mkdir -p "$out"
out=$(cd "$out" && pwd)

prepared=$(bash "$root/scripts/kind/prepare.sh")
export "$(grep '^DOCKER_HOST=' <<<"$prepared")"
image=$(sed -n 's/^KIND_NODE_IMAGE=//p' <<<"$prepared")

config=$out/perfgate.yml
sed -e 's/^target: local$/target: kind/' -e 's/^  cpu: "1"$/  cpu: 500m/' \
  -e 's/^pairs: .*/pairs: {min: 20, max: 20}/' -e 's/^profile_rounds: .*/profile_rounds: 0/' \
  "$root/examples/perfgate.yml" >"$config"
printf 'kind:\n  node_image: %s\n' "$image" >>"$config"
for want in 'target: kind' '  cpu: 500m' 'pairs: {min: 20, max: 20}' 'profile_rounds: 0'; do
  grep -qxF "$want" "$config" || { echo "ab.sh: examples/perfgate.yml changed; could not set '$want'" >&2; exit 1; }
done
built=$out/perfgate
(cd "$root/engine" && CGO_ENABLED=0 go build -trimpath -o "$built" ./cmd/perfgate)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples/service" "$work/base"
cp -r "$work/base" "$work/head"

# confine_nodes CPUS: every 2 s until killed, confine each kind node found.
confine_nodes() {
  local cpus=$1 node id pid dir system p uid pod c
  while :; do
    for node in $(docker ps --format '{{.Names}}' | grep -- '-control-plane$' || true); do
      read -r id pid < <(docker inspect -f '{{.Id}} {{.State.Pid}}' "$node" 2>/dev/null) || continue
      dir=$cpuset/docker/$id
      [ -d "$dir" ] || continue
      system=$dir/perfgate-system
      if [ ! -d "$system" ]; then
        mkdir "$system" && cat "$dir/cpuset.mems" >"$system/cpuset.mems" && echo "$cpus" >"$system/cpuset.cpus"
      fi
      for p in $(cat "$dir/cgroup.procs"); do
        [ "$p" = "$pid" ] || echo "$p" >"$system/cgroup.procs" 2>/dev/null || true
      done
      for uid in $(docker exec "$node" crictl pods --namespace kube-system -o json 2>/dev/null |
        python3 -c 'import json, sys; [print(p["metadata"]["uid"].replace("-", "_")) for p in json.load(sys.stdin)["items"]]' 2>/dev/null); do
        for pod in $(find "$dir/kubelet.slice" -type d -name "*pod${uid}.slice" 2>/dev/null); do
          # Children first: a v1 cpuset may not be narrower than its children.
          for c in "$pod"/*/; do echo "$cpus" >"$c/cpuset.cpus" 2>/dev/null || true; done
          echo "$cpus" >"$pod/cpuset.cpus" 2>/dev/null || true
        done
      done
    done
    sleep 2
  done
}

for arm in ${ARMS:?set ARMS, such as ARMS="a b b a"}; do
  [[ $arm =~ ^[A-Za-z0-9]+$ ]] || { echo "ab.sh: arm '$arm' is not a letter or a word" >&2; exit 2; }
  perfgate_var=PERFGATE_$arm confine_var=CONFINE_$arm
  perfgate=${!perfgate_var:-$built}
  i=1
  while [ -e "$out/$arm-$i" ]; do i=$((i + 1)); done
  dir=$out/$arm-$i
  mkdir -p "$dir"
  confiner=
  if [ "${!confine_var:-}" = 1 ]; then
    [ -d "$cpuset/docker" ] || { echo "ab.sh: CONFINE_$arm needs the cgroup v1 cpuset hierarchy with Docker's cgroups at $cpuset/docker" >&2; exit 1; }
    confine_nodes 0 &
    confiner=$!
  fi
  start=$(date +%s)
  code=0
  "$perfgate" gate --config "$config" --base-dir "$work/base" --head "$work/head" --out "$work/out" >"$dir/gate.log" 2>&1 || code=$?
  if [ -n "$confiner" ]; then kill "$confiner"; wait "$confiner" 2>/dev/null || true; fi
  cp "$work/out/report.json" "$dir/" 2>/dev/null || true
  echo "$dir: $perfgate, exit $code, $(($(date +%s) - start)) s"
done
