#!/usr/bin/env bash
# Makes this machine ready to run kind gates by hand (scripts/cluster-power.sh
# kind, scripts/kind/ab.sh): starts the private Docker engine
# (scripts/docker/up.sh), builds kind and its offline node image
# (scripts/kind/build.sh, cached), and installs kind in /usr/local/bin,
# where perfgate run as root finds it. Prints two lines for the caller to
# export or use: DOCKER_HOST=<the engine> and KIND_NODE_IMAGE=<image>.
# Run as root.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "kind/prepare.sh: run me as root (Docker, the node image's root file system)" >&2; exit 1; }
docker_host=$(bash "$root/scripts/docker/up.sh" | tail -1)
export "${docker_host?}"
kind_env=$(bash "$root/scripts/kind/build.sh")
kind=$(sed -n 's/^KIND=//p' <<<"$kind_env")
image=$(sed -n 's/^KIND_NODE_IMAGE=//p' <<<"$kind_env")
cmp -s "$kind" /usr/local/bin/kind || install -o root -g root -m 0755 "$kind" /usr/local/bin/kind
echo "$docker_host"
echo "KIND_NODE_IMAGE=$image"
