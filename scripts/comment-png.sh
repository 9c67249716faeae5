#!/usr/bin/env bash
# Renders a golden comment (engine/internal/render/testdata/*.md, itself
# rendered from a real run's report: scripts/goldens.sh) as GitHub shows it,
# to a PNG with headless Chromium, for the README's picture:
#
#   bash scripts/comment-png.sh regression-links.md docs/img/comment.png [height]
#
# The Markdown is rendered by a CommonMark renderer with GitHub's
# extensions (the one the render package's safety tests use), in a page
# styled like a pull request comment; folded sections stay folded.
#
# Needs chromium and an emoji font (apt-get install chromium
# fonts-noto-color-emoji): without the font the outcomes show as boxes.
set -euo pipefail
if ! fc-list 2>/dev/null | grep -qi emoji; then
  echo "comment-png: no emoji font; install one first: apt-get install fonts-noto-color-emoji" >&2
  exit 1
fi
root=$(cd "$(dirname "$0")/.." && pwd)
golden=$1 out=$2 height=${3:-1100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root/engine" && PERFGATE_COMMENT_MD="$golden" PERFGATE_COMMENT_HTML="$work/comment.html" \
  go test ./internal/render -run '^TestCommentPicture$' -count=1 >/dev/null)
chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
  --window-size=930,"$height" --screenshot="$work/comment.png" "file://$work/comment.html" >/dev/null 2>&1
cp "$work/comment.png" "$out"
echo "wrote $out"
