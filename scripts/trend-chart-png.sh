#!/usr/bin/env bash
# Renders one chart of a trend page (perfgate trend's index.html) to a PNG
# with headless Chromium, for the docs: docs/img/trend-chart.png is the
# allocations chart of the engine's end-to-end trend test, regenerated with
#
#   PERFGATE_KEEP_TREND=/tmp/trend go test -run TestTrendFindsConfirmsAndBisects ./cmd/perfgate   # in engine/, as root
#   bash scripts/trend-chart-png.sh /tmp/trend/index.html "Allocations per request" docs/img/trend-chart.png
#
# docs/img/trend-paired-chart.png is the CPU chain of the real paired
# nights of scripts/paired-nightlies.sh:
#
#   bash scripts/trend-chart-png.sh results/paired-nightlies/trend/index.html "CPU per request (cpu): paired nights compounded" docs/img/trend-paired-chart.png
#
# The chart is the page's own SVG, unchanged: the figure whose title starts
# with the given text.
set -euo pipefail
page=$1 title=$2 out=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$page" "$title" "$work/chart.html" <<'PY'
import re, sys
page, title, out = sys.argv[1:]
html = open(page, encoding="utf-8").read()
figures = re.findall(r"<figure>(.*?)</figure>", html, re.S)
chosen = [f for f in figures if re.search(r'font-size="14">' + re.escape(title), f)]
if not chosen:
    sys.exit(f"no chart titled {title!r} in {page}")
with open(out, "w", encoding="utf-8") as f:
    f.write('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:8px;background:#fff">' + chosen[0] + "</body></html>")
PY
chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
  --window-size=980,380 --screenshot="$work/chart.png" "file://$work/chart.html" >/dev/null 2>&1
cp "$work/chart.png" "$out"
echo "wrote $out"
