#!/usr/bin/env bash
# Builds, with no registry in reach, the kind command and a kind node image
# for Kubernetes v1.32.0, and loads the image into the Docker engine that
# DOCKER_HOST names (scripts/docker/up.sh's private engine). Everything comes
# from the package registries:
#   - kind v0.30.0 and etcd v3.5.16 from the Go module proxy (build/);
#   - kubeadm, kubelet, kubectl and the control plane's commands from
#     scripts/k8s-local/build.sh (the same v1.32.0 the local cluster runs);
#   - the node's root file system from Debian bookworm (mmdebstrap): systemd,
#     containerd, runc, iptables, the CNI plugins, as kind's own base image
#     has them, with kind's base files (entrypoint, systemd units, containerd
#     config) taken from the kind module itself;
#   - the images kubeadm starts (kube-apiserver, kube-controller-manager,
#     kube-scheduler, kube-proxy, etcd, pause) made here and imported into
#     the node's containerd, as `kind build node-image` does.
# What differs from kindest/node, and why, is in docs/kind-node-image.md.
# Cached in $PERFGATE_KIND_CACHE (default /var/cache/perfgate-kind): the
# image is saved there as a tar, so a fresh Docker engine only loads it
# (~12 s); anything that changes the inputs rebuilds (~3 min warm).
# Prints two lines: KIND=<kind command> and KIND_NODE_IMAGE=<image>.
# Run as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
log() { echo "kind/build.sh: $*" >&2; }
# shellcheck source=scripts/lib/apt.sh
. "$repo/scripts/lib/apt.sh"
# shellcheck source=scripts/lib/poll.sh
. "$repo/scripts/lib/poll.sh"
[ "$(id -u)" = 0 ] || { log "run me as root: mmdebstrap builds the node's root file system as root"; exit 1; }
command -v go >/dev/null || { log "go is not on PATH"; exit 1; }
docker info >/dev/null 2>&1 || { log "no Docker engine answers at DOCKER_HOST=${DOCKER_HOST:-}; start one with scripts/docker/up.sh"; exit 1; }

kind_version=v0.30.0
k8s_version=v1.32.0
cache=${PERFGATE_KIND_CACHE:-/var/cache/perfgate-kind}
k8s_cache=${PERFGATE_K8S_CACHE:-/var/cache/perfgate-k8s}
mkdir -p "$cache/bin"

install_missing mmdebstrap:mmdebstrap jq:jq

# --- kind and etcd from the Go module proxy -----------------------------------
# The same module and build caches as k8s-local: they share most modules.
export GOMODCACHE=$k8s_cache/gomod GOCACHE=$k8s_cache/gocache
go_stamp=$(cat "$here"/build/go.* "$here/build/tools.go" "$here/build/etcd/main.go" "$here"/build/crictl/* <(go version) | sha256sum | cut -c1-16)
if [ "$(cat "$cache/bin/.stamp" 2>/dev/null)" != "$go_stamp" ] || [ ! -x "$cache/bin/kind" ] || [ ! -x "$cache/bin/etcd" ] || [ ! -x "$cache/bin/crictl" ]; then
  log "building kind $kind_version, etcd v3.5.16 and crictl v1.37.0"
  rm -f "$cache/bin/.stamp"
  # build/go.sum and build/crictl/go.sum, committed, pin every module: the
  # checksum database is out of reach here.
  export GOSUMDB=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local CGO_ENABLED=0
  (cd "$here/build" && go build -trimpath -ldflags '-s -w' -o "$cache/bin/kind" sigs.k8s.io/kind &&
    go build -trimpath -ldflags '-s -w' -o "$cache/bin/etcd" ./etcd)
  (cd "$here/build/crictl" && go build -trimpath -ldflags '-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=v1.37.0' \
    -o "$cache/bin/crictl" sigs.k8s.io/cri-tools/cmd/crictl)
  unset GOSUMDB GOFLAGS GOTOOLCHAIN CGO_ENABLED
  echo "$go_stamp" >"$cache/bin/.stamp"
fi
"$cache/bin/kind" version | grep -q "kind $kind_version " || { log "$cache/bin/kind is not kind $kind_version"; exit 1; }
kind_files=$(cd "$here/build" && GOFLAGS=-mod=readonly go list -m -f '{{.Dir}}' sigs.k8s.io/kind)/images/base/files

# --- the Kubernetes commands ---------------------------------------------------
k8s_bin=$(bash "$repo/scripts/k8s-local/build.sh" | tail -1)
pause_tar=$(find "$k8s_cache" -maxdepth 1 -name "pause-*.tar" 2>/dev/null | head -1)
pause_src=$repo/scripts/k8s-local/pause/main.go

# --- is the cached image current? -----------------------------------------------
stamp=$( {
  cat "$here/build.sh" "$here/node-files/"* "$cache/bin/.stamp" "$k8s_bin/.stamp" "$pause_src"
  echo "$kind_version $k8s_version"
} | sha256sum | cut -c1-12)
image=perfgate.local/kind-node:$k8s_version-$stamp
image_tar=$cache/node-$stamp.tar
print() { echo "KIND=$cache/bin/kind"; echo "KIND_NODE_IMAGE=$image"; }
if docker image inspect "$image" >/dev/null 2>&1; then
  print
  exit 0
fi
if [ -s "$image_tar" ]; then
  log "loading the cached node image $image"
  docker load -i "$image_tar" >&2
  print
  exit 0
fi

started=$(date +%s)
work=$(mktemp -d "$cache/work.XXXXXX")
builder=
cleanup() {
  [ -z "$builder" ] || docker rm -f -v "$builder" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- images kubeadm runs ---------------------------------------------------------
# import_dir DIR REF [CHANGE...]: a one-layer image of DIR's contents.
import_dir() {
  local dir=$1 ref=$2
  shift 2
  local changes=() c
  for c in "$@"; do changes+=(--change "$c"); done
  tar --numeric-owner -C "$dir" -c . | docker import "${changes[@]}" - "$ref" >/dev/null
}
# static_image REF ENTRYPOINT BINARY...: FROM scratch with the binaries in
# /usr/local/bin, which is where the commands of kubeadm's manifests are
# looked up; ENTRYPOINT (may be empty) for images run without a command.
static_image() {
  local ref=$1 entrypoint=$2 dir
  shift 2
  dir=$(mktemp -d "$work/img.XXXXXX")
  mkdir -p "$dir/usr/local/bin" "$dir/tmp" "$dir/etc"
  chmod 1777 "$dir/tmp"
  install -m 0755 "$@" "$dir/usr/local/bin/"
  echo 'root:x:0:0:root:/root:/sbin/nologin' >"$dir/etc/passwd"
  import_dir "$dir" "$ref" 'ENV PATH=/usr/local/bin:/usr/bin:/bin' ${entrypoint:+"ENTRYPOINT [\"$entrypoint\"]"}
}
log "making the control plane's images"
images=()
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  static_image "registry.k8s.io/$c:$k8s_version" "" "$k8s_bin/$c"
  images+=("registry.k8s.io/$c:$k8s_version")
done
static_image registry.k8s.io/etcd:3.5.16-0 "" "$cache/bin/etcd"
images+=(registry.k8s.io/etcd:3.5.16-0)
if [ -z "$pause_tar" ]; then
  (cd "$repo/scripts/k8s-local/pause" && GOFLAGS='' CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags '-s -w' -o "$work/pause" main.go)
else
  tar -xOf "$pause_tar" --wildcards '*/layer.tar' | tar -xO app >"$work/pause"
fi
static_image registry.k8s.io/pause:3.10 /usr/local/bin/pause "$work/pause"
docker image inspect registry.k8s.io/pause:3.10 >/dev/null
images+=(registry.k8s.io/pause:3.10)

# kube-proxy programs iptables, so its image holds Debian's iptables; the
# wrapper picks the backend (nft or legacy) the node uses, as upstream's
# iptables-wrapper does.
log "making kube-proxy's image (Debian's iptables)"
proxy_root=$work/kube-proxy-root
# shellcheck disable=SC2016 # $1 is mmdebstrap's root directory
mmdebstrap --mode=root --variant=minbase --include=iptables,conntrack bookworm "$proxy_root" >&2 2>"$work/mmdebstrap-proxy.log" ||
  { cat "$work/mmdebstrap-proxy.log" >&2; exit 1; }
rm -rf "$proxy_root"/var/cache/apt/archives/*.deb "$proxy_root"/var/lib/apt/lists/* "$proxy_root"/usr/share/doc "$proxy_root"/usr/share/man
install -m 0755 "$k8s_bin/kube-proxy" "$proxy_root/usr/local/bin/kube-proxy.real"
install -m 0755 "$here/node-files/kube-proxy-wrapper.sh" "$proxy_root/usr/local/bin/kube-proxy"
import_dir "$proxy_root" "registry.k8s.io/kube-proxy:$k8s_version" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
images+=("registry.k8s.io/kube-proxy:$k8s_version")

# --- the node's root file system -------------------------------------------------
log "building the node's Debian root file system (mmdebstrap, ~1-2 min)"
root=$work/node-root
# The packages of kind's base image (images/base/Dockerfile), less the
# network storage clients and fuse-overlayfs (rootless), plus Debian's
# containerd, runc and CNI plugins where kind builds its own.
packages=systemd,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,bash,ca-certificates,curl,jq,procps,containerd,runc,containernetworking-plugins
mmdebstrap --mode=root --variant=minbase --include="$packages" bookworm "$root" >&2 2>"$work/mmdebstrap-node.log" ||
  { cat "$work/mmdebstrap-node.log" >&2; exit 1; }
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

# kind's base files, with the modes its Dockerfile gives them.
install -m 0755 "$kind_files"/usr/local/bin/* "$root/usr/local/bin/"
mkdir -p "$root/kind/bin" "$root/etc/systemd/system/kubelet.service.d" "$root/etc/containerd" "$root/etc/kubernetes/manifests"
cp -r "$kind_files/kind/." "$root/kind/"
chmod 0755 "$root/kind/bin" "$root"/kind/bin/*
install -m 0644 "$kind_files/etc/crictl.yaml" "$root/etc/"
install -m 0644 "$kind_files"/etc/default/* "$root/etc/default/"
install -m 0644 "$kind_files"/etc/sysctl.d/* "$root/etc/sysctl.d/"
install -m 0644 "$kind_files"/etc/systemd/system/*.service "$kind_files"/etc/systemd/system/*.slice "$root/etc/systemd/system/"
install -m 0644 "$kind_files"/etc/systemd/system/kubelet.service.d/* "$root/etc/systemd/system/kubelet.service.d/"
# This host grants no CAP_SYS_RESOURCE even to privileged containers, so
# containerd may not lower a sandbox's oom_score_adj (k8s-local needs the
# same setting; it only keeps pods from being less killable than containerd).
sed 's/^\(\s*restrict_oom_score_adj\s*=\s*\)false/\1true/' "$kind_files/etc/containerd/config.toml" >"$root/etc/containerd/config.toml"
grep -q 'restrict_oom_score_adj = true' "$root/etc/containerd/config.toml"

# What kind's Dockerfile does after installing its packages.
find "$root/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
rm -f "$root"/lib/systemd/system/multi-user.target.wants/* "$root"/etc/systemd/system/*.wants/* \
  "$root"/lib/systemd/system/local-fs.target.wants/* "$root"/lib/systemd/system/sockets.target.wants/*udev* \
  "$root"/lib/systemd/system/sockets.target.wants/*initctl* "$root"/lib/systemd/system/basic.target.wants/*
echo "ReadKMsg=no" >>"$root/etc/systemd/journald.conf"
ln -sf /lib/systemd/systemd "$root/sbin/init"
chroot "$root" systemctl enable kubelet.service containerd.service undo-mount-hacks.service >&2
chroot "$root" systemctl mask systemd-binfmt.service >&2

# Debian installs containerd and runc in /usr/bin and /usr/sbin, the CNI
# plugins in /usr/lib/cni; kind's units and containerd's config look in
# /usr/local/bin, /usr/local/sbin and /opt/cni/bin.
for c in containerd ctr containerd-shim-runc-v2; do ln -sf "/usr/bin/$c" "$root/usr/local/bin/$c"; done
ln -sf /usr/sbin/runc "$root/usr/local/sbin/runc"
mkdir -p "$root/opt/cni/bin"
for p in "$root"/usr/lib/cni/*; do ln -sf "/usr/lib/cni/$(basename "$p")" "$root/opt/cni/bin/"; done
chroot "$root" ctr oci spec |
  jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' |
  jq 'del(.process.rlimits)' >"$root/etc/containerd/cri-base.json"

# The Kubernetes commands, where kind's build puts them.
for c in kubeadm kubelet kubectl; do install -m 0755 "$k8s_bin/$c" "$root/usr/bin/$c"; done
install -m 0755 "$cache/bin/crictl" "$root/usr/local/bin/crictl"
printf '%s' "$k8s_version" >"$root/kind/version"
mkdir -p "$root/kind/manifests" "$root/etc/cni/net.d"
install -m 0644 "$here/node-files/default-cni.yaml" "$root/kind/manifests/default-cni.yaml"
install -m 0644 "$here/node-files/default-storage.yaml" "$root/kind/manifests/default-storage.yaml"
install -m 0644 "$here/node-files/10-perfgate-ptp.conflist" "$root/etc/cni/net.d/10-perfgate-ptp.conflist"

base=perfgate.local/kind-node-base:$stamp
import_dir "$root" "$base"

# --- the images into the node's containerd, as `kind build node-image` does --------
log "importing ${#images[@]} images into the node's containerd"
builder=$(docker run -d --entrypoint=sleep "$base" infinity)
docker exec "$builder" bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &'
poll 120 docker exec "$builder" ctr version || true
docker exec "$builder" ctr version >/dev/null
for ref in "${images[@]}"; do
  docker save "$ref" | docker exec -i "$builder" ctr --namespace=k8s.io images import \
    --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests - >&2
done
listed=$(docker exec "$builder" ctr --namespace=k8s.io images list -q)
for ref in "${images[@]}"; do
  grep -qx "$ref" <<<"$listed" || { log "the node's containerd lacks $ref after the import"; exit 1; }
done
docker exec "$builder" pkill containerd
poll 120 bash -c '! docker exec "$1" pgrep -x containerd' _ "$builder" || true
docker exec "$builder" rm -f /tmp/containerd.log
docker commit "$builder" "$image-imported" >/dev/null
# The node's own settings, as kind's base image has them: the builder ran
# `sleep infinity`, and systemd stops on SIGRTMIN+3 (which docker import and
# commit cannot set, a build can).
mkdir -p "$work/final"
cat >"$work/final/Dockerfile" <<DOCKERFILE
FROM $image-imported
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
CMD []
DOCKERFILE
DOCKER_BUILDKIT=0 docker build -q -t "$image" "$work/final" >/dev/null 2>"$work/final.log" || { cat "$work/final.log" >&2; exit 1; }
docker rmi "$image-imported" >/dev/null
docker rm -f -v "$builder" >/dev/null
builder=
docker rmi "$base" "${images[@]}" >/dev/null

log "saving $image to $image_tar"
rm -f "$cache"/node-*.tar
docker save "$image" -o "$image_tar.tmp"
mv "$image_tar.tmp" "$image_tar"
log "built in $(($(date +%s) - started)) s"
print
