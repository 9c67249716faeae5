#!/usr/bin/env bash
# mkimage.sh BINARY REF OUT.tar [ARG...]
# Packs one static binary as a FROM-scratch image in docker-archive format
# (what `docker save` writes and `ctr images import` and load-image.sh read):
# the binary at /app, Entrypoint ["/app"], Cmd [ARG...] (a pod's `args`
# replace Cmd), one layer, fixed times so the same binary always gives the
# same image ID. No Docker daemon needed.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: mkimage.sh BINARY REF OUT.tar [ARG...]" >&2
  exit 2
fi
binary=$1 ref=$2 out=$3
shift 3
case $(uname -m) in
x86_64) arch=amd64 ;;
aarch64) arch=arm64 ;;
*) arch=$(uname -m) ;;
esac
json_string() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
cmd=
for a in "$@"; do cmd+="${cmd:+,}$(json_string "$a")"; done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rootfs" "$work/image"
install -m 0755 "$binary" "$work/rootfs/app"
tar --numeric-owner --owner=0 --group=0 --mtime=@0 --sort=name -C "$work/rootfs" -cf "$work/layer.tar" app
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
config="{\"architecture\":\"$arch\",\"os\":\"linux\",\"created\":\"1970-01-01T00:00:00Z\",\"config\":{\"Entrypoint\":[\"/app\"],\"Cmd\":[$cmd],\"Env\":[\"PATH=/\"],\"WorkingDir\":\"/\"},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:$diff_id\"]}}"
config_id=$(printf '%s' "$config" | sha256sum | cut -d' ' -f1)
mkdir "$work/image/$diff_id"
mv "$work/layer.tar" "$work/image/$diff_id/layer.tar"
printf '%s' "$config" >"$work/image/$config_id.json"
printf '[{"Config":"%s.json","RepoTags":[%s],"Layers":["%s/layer.tar"]}]' "$config_id" "$(json_string "$ref")" "$diff_id" >"$work/image/manifest.json"
tar --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$work/image" -cf "$out.tmp" manifest.json "$config_id.json" "$diff_id"
mv "$out.tmp" "$out"
