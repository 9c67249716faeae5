#!/usr/bin/env bash
# The release notes of one version: its section of CHANGELOG.md, without the
# heading. Exits 1, saying what to add, when CHANGELOG.md has no section for
# the version or the section is empty. .github/workflows/release.yml uses it
# for the GitHub release; run it before tagging to see the notes.
#
#   bash scripts/release-notes.sh 1.2.3 [CHANGELOG.md]
set -euo pipefail
version=${1:?usage: release-notes.sh X.Y.Z [CHANGELOG.md]}
version=${version#v}
changelog=${2:-$(cd "$(dirname "$0")/.." && pwd)/CHANGELOG.md}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "release-notes: $version is not a version X.Y.Z" >&2
  exit 2
fi
# The section runs from "## [X.Y.Z]" (with or without " - date") to the next
# "## " heading or the link definitions at the end.
notes=$(awk -v want="## [$version]" '
  index($0, want) == 1 && (length($0) == length(want) || substr($0, length(want) + 1, 1) == " ") { inside = 1; next }
  inside && (/^## / || /^\[[^]]+\]: /) { exit }
  inside { print }
' "$changelog" | sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}')
if [ -z "$notes" ]; then
  echo "release-notes: $changelog has no section \"## [$version] - YYYY-MM-DD\" with entries; move the Unreleased entries under it (docs/versioning.md)" >&2
  exit 1
fi
printf '%s\n' "$notes"
