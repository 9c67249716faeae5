#!/usr/bin/env bash
# Pins every `uses: perfgate/perfgate@...` line that users copy (README.md,
# docs/*.md, examples/workflows/*.yml and the workflow `perfgate init`
# writes, engine/internal/initconfig/workflow.go) to one commit, by its
# full SHA, with a comment that says what that commit is:
#
#   bash scripts/pin-action.sh <40-hex commit> vX.Y.Z       # a release's commit
#   bash scripts/pin-action.sh <40-hex commit> unreleased   # a commit of main, before the first release
#
# A commit SHA cannot be moved, a tag can (docs/versioning.md). A commit
# cannot hold its own SHA, so the pin always names an earlier commit:
# .github/workflows/release.yml runs this with the released commit and
# opens a pull request with the result. __tests__/workflows.test.ts
# checks that every such line is pinned so, all to the same commit.
set -euo pipefail
sha=${1:?usage: pin-action.sh <40-hex commit> vX.Y.Z|unreleased}
version=${2:?usage: pin-action.sh <40-hex commit> vX.Y.Z|unreleased}
if ! [[ $sha =~ ^[0-9a-f]{40}$ ]]; then
  echo "pin-action: $sha is not a full 40-hex commit SHA" >&2
  exit 2
fi
if [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  comment=$version
elif [ "$version" = unreleased ]; then
  comment="unreleased commit of main, not a release (docs/versioning.md)"
else
  echo "pin-action: $version is neither a release vX.Y.Z nor unreleased" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
files=(README.md docs/*.md examples/workflows/*.yml engine/internal/initconfig/workflow.go)
sed -i -E "s~^([[:space:]]*(- )?uses: perfgate/perfgate@)[^[:space:]]+([[:space:]]+#.*)?\$~\\1$sha # $comment~" "${files[@]}"
grep -l "uses: perfgate/perfgate@$sha" "${files[@]}" | sed 's/^/pinned: /'
