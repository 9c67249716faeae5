#!/usr/bin/env bash
# The engine's release assets: perfgate built for each platform, static
# (CGO_ENABLED=0), reproducible (-trimpath, -buildvcs=false, the toolchain
# pinned by engine/go.mod, GOAMD64/GOARM64 and GOFLAGS fixed rather than
# taken from the environment), plus checksums.txt in sha256sum's format and
# engine-release-pin.json, the table the Action compiles in
# (src/engine-release-pin.json) to check a downloaded asset against its own
# code instead of only against the server's checksums.txt (docs/install.md).
#
#   bash scripts/release-build.sh X.Y.Z OUTDIR [GOOS/GOARCH ...]
#
# Platforms default to linux/amd64 and linux/arm64, the runners the Action
# supports. The same sources and toolchain give the same bytes on any
# machine: .github/workflows/release.yml rebuilds the assets and refuses to
# publish them unless their checksums equal the pin committed with the tag.
#
# PERFGATE_RELEASE_GOTOOLCHAIN overrides the pinned toolchain, for tests
# only (`local` reuses the packages CI compiled with the Go on PATH); a
# release never sets it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: release-build.sh X.Y.Z OUTDIR [GOOS/GOARCH ...]"
version=${1:?$usage}
out=${2:?$usage}
shift 2
version=${version#v}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "release-build: $version is not a version X.Y.Z (docs/versioning.md)" >&2
  exit 2
fi
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64)

# The toolchain engine/go.mod names: its toolchain line, else its go line
# (a go line without a patch, "1.26", means the release go1.26.0).
go_mod=$root/engine/go.mod
toolchain=$(awk '$1 == "toolchain" { print $2; exit }' "$go_mod")
if [ -z "$toolchain" ]; then
  toolchain=go$(awk '$1 == "go" { print $2; exit }' "$go_mod")
  [[ $toolchain =~ ^go[0-9]+\.[0-9]+$ ]] && toolchain=$toolchain.0
fi
if ! [[ $toolchain =~ ^go[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "release-build: cannot read a toolchain go1.N.M from $go_mod (got \"$toolchain\"); give it a \`toolchain go1.N.M\` line" >&2
  exit 2
fi
build_toolchain=${PERFGATE_RELEASE_GOTOOLCHAIN:-$toolchain}

# engine_source_hash is src/engine.ts's sourceHash: the engine's Go sources,
# go.mod, go.sum and templates outside testdata, sorted, each as
# "path\0content\0", sha256, first 20 hex digits. The Action takes a
# release's asset only when its own engine/ hashes to the pinned value
# (__tests__/release-build.test.ts checks that both agree).
engine_source_hash() {
  (
    cd "$root/engine"
    find . -type f | sed 's|^\./||' | grep -E '\.go$|(^|/)go\.(mod|sum)$|\.tmpl$' | grep -v '/testdata/' | LC_ALL=C sort |
      while IFS= read -r f; do
        printf '%s\0' "$f"
        cat "$f"
        printf '\0'
      done
  ) | sha256sum | cut -c1-20
}

mkdir -p "$out"
assets=()
for platform in "${platforms[@]}"; do
  goos=${platform%/*}
  goarch=${platform#*/}
  asset=perfgate-$goos-$goarch
  echo "release-build: $asset (v$version, $build_toolchain)" >&2
  (
    cd "$root/engine"
    env -u GOFLAGS -u GOEXPERIMENT \
      GOTOOLCHAIN="$build_toolchain" CGO_ENABLED=0 GOOS="$goos" GOARCH="$goarch" GOAMD64=v1 GOARM64=v8.0 \
      go build -trimpath -buildvcs=false -mod=readonly -ldflags='-s -w' -o "$out/$asset" ./cmd/perfgate
  )
  assets+=("$asset")
done

(cd "$out" && sha256sum "${assets[@]}" >checksums.txt)

# The pin, in the layout prettier keeps (it checks src/).
{
  printf '{\n'
  printf '  "version": "%s",\n' "$version"
  printf '  "toolchain": "%s",\n' "$build_toolchain"
  printf '  "engineSourceHash": "%s",\n' "$(engine_source_hash)"
  printf '  "assets": {\n'
  n=0
  while read -r sum name; do
    n=$((n + 1))
    sep=,
    [ "$n" = ${#assets[@]} ] && sep=
    printf '    "%s": "%s"%s\n' "$name" "$sum" "$sep"
  done <"$out/checksums.txt"
  printf '  }\n}\n'
} >"$out/engine-release-pin.json"
cat "$out/checksums.txt"
