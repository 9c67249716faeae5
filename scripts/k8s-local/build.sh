#!/usr/bin/env bash
# Builds the Kubernetes v1.32.0 commands (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kubectl, kube-proxy, and
# kubeadm for scripts/kind's node image) from the Go module proxy through the wrapper module in build/, into
# $PERFGATE_K8S_CACHE/bin-v1.32.0 (default /var/cache/perfgate-k8s). The Go
# module and build caches live in the same directory, so a second build is
# quick, and a run that finds all seven binaries at the right version and built
# from the same go.mod/go.sum builds nothing. Cold: ~8-10 min on 2 cores.
# Prints the binary directory as its last line. up.sh calls it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=v1.32.0
commit=70d3cc986aa8221cd1dfb1121852688902d3bf53 # the tag's commit upstream
build_date=2024-12-11T21:16:15Z                  # the tag's time on the module proxy
cache=${PERFGATE_K8S_CACHE:-/var/cache/perfgate-k8s}
bin=$cache/bin-$version
cmds=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl kube-proxy kubeadm)

command -v go >/dev/null || { echo "k8s-local/build.sh: go is not on PATH; install Go 1.23 or newer" >&2; exit 1; }

# The stamp ties the binaries to the module files and the Go toolchain that
# built them; any change rebuilds.
stamp=$( { cat "$here/build/go.mod" "$here/build/go.sum" "$here/build/tools.go"; go version; echo "$commit $build_date"; } | sha256sum | cut -c1-16)

up_to_date() {
  [ "$(cat "$bin/.stamp" 2>/dev/null)" = "$stamp" ] || return 1
  local c
  for c in "${cmds[@]}"; do [ -x "$bin/$c" ] || return 1; done
  "$bin/kube-apiserver" --version 2>/dev/null | grep -x "Kubernetes $version" >/dev/null || return 1
  "$bin/kubectl" version --client 2>/dev/null | grep "Client Version: $version" >/dev/null || return 1
}

if up_to_date; then
  echo "$bin"
  exit 0
fi

src=$cache/build-src
mkdir -p "$src" "$bin"
cp "$here/build/go.mod" "$here/build/go.sum" "$here/build/tools.go" "$src/"

export GOMODCACHE=$cache/gomod GOCACHE=$cache/gocache
# The checksum database is out of reach here; build/go.sum, committed, pins
# every module instead. GOTOOLCHAIN=local: use the Go on PATH (1.23+ builds
# v1.32.0; go.mod's `godebug default=go1.23` keeps upstream's runtime defaults).
export GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=32"
  ldflags+=" -X $pkg.gitCommit=$commit -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done
pkgs=()
for c in "${cmds[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done

echo "k8s-local/build.sh: building Kubernetes $version (${cmds[*]}) into $bin; cold this takes ~8-10 min on 2 cores" >&2
start=$(date +%s)
rm -f "$bin/.stamp"
# -dwarf=false: the linker's -w drops the debug information anyway, so the
# compiler need not make it (kube-scheduler cold: 147 s -> 139 s, 2026-12-07).
(cd "$src" && go build -trimpath -gcflags=all=-dwarf=false -ldflags "$ldflags" -o "$bin/" "${pkgs[@]}")
echo "$stamp" >"$bin/.stamp"
if ! up_to_date; then
  echo "k8s-local/build.sh: the binaries in $bin do not report $version after the build" >&2
  exit 1
fi
echo "k8s-local/build.sh: built in $(($(date +%s) - start)) s" >&2
echo "$bin"
