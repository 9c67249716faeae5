#!/usr/bin/env bash
# The gate's power on a cluster target (issue 24): A/A gates and +5% CPU
# gates (power/cpu-5.patch) of the example service at its default config
# (examples/perfgate.yml) on kind or on the local Kubernetes, through
# scripts/power.sh, which keeps every gate's report and prints
# scripts/power.py's summary: failures, catches, per-round SD of the CPU
# log-ratios, could-detect and each gate's wall time. The time includes
# both builds and the image loads; kind's cluster creation is in each
# report's environment.prepare_seconds (summarised at the end).
#
#   sudo bash scripts/cluster-power.sh kind          # 10 A/A + 10 cpu-5 gates
#   sudo bash scripts/cluster-power.sh kubernetes
#   sudo AA=2 CPU5=2 bash scripts/cluster-power.sh kind   # a quick look
#   CPU=1 (resources.cpu; default 500m, so that a duet fits a 2-CPU machine)
#   LOAD_FROM=cluster (kubernetes.load_from, kubernetes only; default auto:
#   from this machine, as the local cluster's node is this machine)
#
# kind: builds the offline node image (scripts/kind/prepare.sh) on the private
# Docker engine and installs kind in /usr/local/bin, where perfgate as root
# runs it from. kubernetes: starts scripts/k8s-local and leaves it up.
# Results in results/power-<target> (OUT= to change); gates already there
# are kept and counted. Nothing else may run on the machine meanwhile.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-}
case $target in
kind | kubernetes) ;;
*)
  echo "usage: cluster-power.sh kind|kubernetes" >&2
  exit 2
  ;;
esac
[ "$(id -u)" = 0 ] || { echo "cluster-power.sh: run me as root (cgroups, Docker, the cluster)" >&2; exit 1; }
out=${OUT:-$root/results/power-$target}
mkdir -p "$out"
out=$(cd "$out" && pwd) # the build below runs in engine/
config=$out/perfgate.yml
cp "$root/examples/perfgate.yml" "$config"
sed -i 's/^target: local$/target: '"$target"'/' "$config"
grep -qx "target: $target" "$config" || { echo "cluster-power.sh: examples/perfgate.yml has no line 'target: local' to replace" >&2; exit 1; }
# A duet needs room for two Guaranteed pods on one node (and the load
# generator beside them): on a 2-CPU machine that is 500m each, not the
# example's 1 CPU (with which the gate falls back to sequential pairs).
cpu=${CPU:-500m}
sed -i 's/^  cpu: "1"$/  cpu: '"$cpu"'/' "$config"
grep -qx "  cpu: $cpu" "$config" || { echo "cluster-power.sh: examples/perfgate.yml has no line '  cpu: \"1\"' to replace" >&2; exit 1; }
if [ "$target" = kind ]; then
  prepared=$(bash "$root/scripts/kind/prepare.sh")
  export "$(grep '^DOCKER_HOST=' <<<"$prepared")"
  image=$(sed -n 's/^KIND_NODE_IMAGE=//p' <<<"$prepared")
  printf 'kind:\n  node_image: %s\n' "$image" >>"$config"
else
  kubeconfig=$(bash "$root/scripts/k8s-local/up.sh" | tail -1)
  export "${kubeconfig?}"
  printf 'kubernetes:\n  image_load: ["bash", "%s", "{archive}"]\n  load_from: %s\n' "$root/scripts/k8s-local/load-image.sh" "${LOAD_FROM:-auto}" >>"$config"
fi
# Static: the cluster targets ship perfgate itself as the load generator's
# FROM-scratch image.
perfgate=$out/perfgate
(cd "$root/engine" && CGO_ENABLED=0 go build -trimpath -o "$perfgate" ./cmd/perfgate)
PERFGATE=$perfgate CONFIG=$config OUT=$out AA=${AA:-10} CPU5=${CPU5:-10} CPU2=0 CPU10=0 ALLOC1=0 LEAK=0 HEAP=0 \
  bash "$root/scripts/power.sh"
echo
echo "the target's set-up (environment.prepare_seconds), per gate:"
python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
secs = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "report.json"))):
    with open(path) as f:
        env = json.load(f).get("environment", {})
    if "prepare_seconds" in env:
        secs.append(env["prepare_seconds"])
if secs:
    print("  %d gates: median %.1f s, max %.1f s" % (len(secs), statistics.median(secs), max(secs)))
else:
    print("  none recorded")
PY
