#!/usr/bin/env bash
# Render the HTML report of a saved report object in headless Chromium (Debian's
# `chromium` package: apt-get install chromium) and write a screenshot to look at.
#
#   bash scripts/check_html_chromium.sh [STATS.json] [OUT.png]
#
# The page must need nothing from the network: Chromium runs with networking
# pointed at a dead proxy, so a page that fetched anything would render broken.
set -euo pipefail
cd "$(dirname "$0")/.."
stats="${1:-tests/reports/trois_camps_outsider.json}"
png="${2:-/tmp/pf1e-sim-report.png}"
html="$(mktemp --suffix=.html)"
uv run pf1e-sim report "$stats" --no-narrate --html "$html" > /dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --proxy-server=127.0.0.1:9 --window-size=1000,1800 \
    --screenshot="$png" "file://$html" 2> /dev/null
rm -f "$html"
echo "capture : $png"
