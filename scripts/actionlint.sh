#!/usr/bin/env bash
# Lints the project's workflows (.github/workflows) and the example
# workflows for users (examples/workflows) with actionlint, pinned in
# scripts/tools/go.mod: built through the Go module proxy on first use,
# then from the build cache. actionlint also runs shellcheck on run:
# scripts when shellcheck is on PATH.
#
#   bash scripts/actionlint.sh [extra actionlint flags]
#
# The examples call the published action (perfgate/perfgate@<commit>), which
# actionlint cannot read offline; they are linted in a scratch copy where
# that line says `uses: ./` beside this repository's action.yml, so their
# inputs are checked against action.yml too. Exits non-zero on any problem.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v go >/dev/null || { echo "actionlint: Go is not installed (https://go.dev/dl/)" >&2; exit 3; }
command -v shellcheck >/dev/null || echo "actionlint: shellcheck is not on PATH, so run: scripts are not checked (apt-get install shellcheck)" >&2

cd "$root"
# `go tool -n` builds the pinned version (or finds it in the build cache)
# and prints its path, so actionlint can run from any directory.
actionlint=$(go -C scripts/tools tool -n actionlint)
"$actionlint" -version | head -1

shopt -s nullglob
own=(.github/workflows/*.yml .github/workflows/*.yaml)
examples=(examples/workflows/*.yml examples/workflows/*.yaml)
if [ $((${#own[@]} + ${#examples[@]})) -eq 0 ]; then
  echo "actionlint: no workflows in .github/workflows or examples/workflows" >&2
  exit 1
fi

status=0
if [ ${#own[@]} -gt 0 ]; then
  "$actionlint" "$@" "${own[@]}" || status=1
fi

if [ ${#examples[@]} -gt 0 ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir -p "$scratch/.github/workflows" "$scratch/.git" # .git marks the project root for actionlint
  cp action.yml "$scratch/action.yml"
  mkdir -p "$scratch/dist" && : >"$scratch/dist/index.js" # actionlint checks that runs.main exists
  for f in "${examples[@]}"; do
    sed -E 's#uses: perfgate/perfgate@[^ ]+( +\#.*)?$#uses: ./#' "$f" >"$scratch/.github/workflows/$(basename "$f")"
  done
  # Report the examples under their real names (the lines are unchanged).
  (cd "$scratch" && "$actionlint" "$@" .github/workflows/*) >"$scratch/out" 2>&1 || status=1
  sed 's#\.github/workflows/#examples/workflows/#g' "$scratch/out"
fi

if [ "$status" -ne 0 ]; then
  echo "actionlint: problems found (above)" >&2
  exit 1
fi
echo "actionlint: $((${#own[@]} + ${#examples[@]})) workflows OK"
