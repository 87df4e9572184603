#!/usr/bin/env bash
# The roofline's picture in docs/ (docs/roofline-levels.png, issue #34): a roof per
# memory level, each run coloured by the level it is judged at and its judged roof as a
# tick above it. Renders RESULTS.json (default: the latest committed example) with
# this build's lmroof and takes #chart-roofline in headless Chromium at 1400x900
# (tests/e2e/report_layout.mjs checks the page's layout while it takes it).
#
#   scripts/screenshot-roofline.sh [RESULTS.json] [BUILD_DIR]   (default build/, else build-cpu/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
results=${1:-$(ls -d "$root"/docs/examples/*/results.json | sort | tail -1)}
build=${2:-}
if [ -z "$build" ]; then
  for b in "$root/build" "$root/build-cpu"; do [ -x "$b/lmroof" ] && build=$b && break; done
fi
[ -n "$build" ] && [ -x "$build/lmroof" ] || { echo "screenshot-roofline.sh: no lmroof binary (build first)" >&2; exit 2; }
[ -f "$results" ] || { echo "screenshot-roofline.sh: $results: no such file" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/lmroof" report "$results" -o "$work/report.html" >/dev/null
out=$root/docs/roofline-levels.png
LMROOF_LAYOUT_SCREENSHOT="$work/shot.png" LMROOF_LAYOUT_SCREENSHOT_SCALE=0.8 LMROOF_LAYOUT_SCREENSHOT_SELECTOR="#chart-roofline" \
  node "$root/tests/e2e/report_layout.mjs" "$work/report.html" 1400x900
"$root/scripts/shrink-png.sh" "$work/shot.png" "$out"
echo "wrote $out ($(du -k "$out" | cut -f1) kB) from $results"
