#!/usr/bin/env bash
# load-image.sh IMAGE.tar [IMAGE.tar...]   (or `-` for standard input)
# Imports docker-archive tarballs (as `docker save`, go-containerregistry's
# tarball.Write or mkimage.sh write them) into the containerd of the local
# cluster, namespace k8s.io, where the kubelet finds them: pods then use the
# image by its tag with `imagePullPolicy: Never`. A name without a registry
# is stored as docker.io/library/NAME, as the kubelet looks it up. Prints the
# names it imported. Run as root, with the cluster up (up.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
if [ $# -lt 1 ]; then
  echo "usage: load-image.sh IMAGE.tar [IMAGE.tar...]  (- reads standard input)" >&2
  exit 2
fi
if [ ! -S "$containerd_sock" ]; then
  log "no containerd socket at $containerd_sock: start the cluster with $here/up.sh first"
  exit 1
fi
case $(uname -m) in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
for archive in "$@"; do
  if [ "$archive" != - ] && [ ! -r "$archive" ]; then
    log "cannot read the image archive $archive"
    exit 1
  fi
  ctr --address "$containerd_sock" --namespace k8s.io images import --platform "linux/$arch" "$archive" |
    sed -n 's/^unpacking \(.*\) (sha256:.*$/\1/p'
done
