#!/usr/bin/env bash
# check.sh verifies every planted regression in this folder (and the power
# plants in power/, the layout-only plants in layout/, and the leak-slope
# plants in slope/): each patch
# must apply cleanly to a fresh copy of ../service, and the patched service
# must still vet, build and pass its tests (a regression changes cost, not
# behaviour). Exits non-zero if any patch fails. Run from anywhere:
#
#   examples/regressions/check.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
service="$here/../service"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

shopt -s nullglob
patches=("$here"/*.patch "$here"/power/*.patch "$here"/layout/*.patch "$here"/slope/*.patch)
if ((${#patches[@]} == 0)); then
	echo "no patches in $here" >&2
	exit 1
fi

# Keep git from finding an enclosing repository (for example when TMPDIR is
# inside a checkout): there, git apply resolves paths against that
# repository's root and silently skips the files of our copy.
export GIT_CEILING_DIRECTORIES="$work"
# -trimpath: every copy lives in its own directory, and without it the
# directory is part of each compiled package's cache key, so each of the
# ~23 copies compiled the whole service again (and a second run of this
# script compiled them all once more). Trimmed, the packages a patch does
# not touch come from the build cache: 58 s -> 40 s warm (2026-12-07).
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
# Static, as perfgate builds a service (engine/internal/build): the
# standard library's net and everything above it then come from the build
# cache scripts/test.sh's end-to-end build filled, instead of a cgo
# variant compiled for this script alone.
export CGO_ENABLED=0

# check_patch applies one patch to a fresh copy of the service and runs the
# checks. Every step has an explicit "|| return 1": set -e is ignored inside
# a function that is called as an if condition.
check_patch() {
	local patch="$1" copy="$2"
	cp -R "$service" "$copy" || return 1
	(cd "$copy" && git apply --verbose "$patch") || return 1
	if diff -rq "$service" "$copy" >/dev/null; then
		echo "patch changed nothing" >&2
		return 1
	fi
	(cd "$copy" && go vet ./... && go build ./... && go test -count=1 ./...)
}

failed=()
for patch in "${patches[@]}"; do
	name="$(basename "$patch" .patch)"
	echo "=== $name"
	if check_patch "$patch" "$work/$name"; then
		echo "--- ok   $name"
	else
		echo "--- FAIL $name"
		failed+=("$name")
	fi
done

if ((${#failed[@]} > 0)); then
	echo "failed: ${failed[*]}" >&2
	exit 1
fi
echo "all ${#patches[@]} patches ok"
