#!/usr/bin/env bash
# The README's picture of the report's first screen (docs/report-first-screen.png),
# from the committed example: renders docs/examples/<latest>/results.json with
# this build's lmroof, opens it in headless Chromium at 1400x900 and keeps the first
# screen (tests/e2e/report_layout.mjs takes the picture while it checks the layout).
#
#   scripts/screenshot.sh [BUILD_DIR]      (default build/, else build-cpu/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}
if [ -z "$build" ]; then
  for b in "$root/build" "$root/build-cpu"; do [ -x "$b/lmroof" ] && build=$b && break; done
fi
[ -n "$build" ] && [ -x "$build/lmroof" ] || { echo "screenshot.sh: no lmroof binary (build first)" >&2; exit 2; }
example=$(ls -d "$root"/docs/examples/*/results.json | sort | tail -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/lmroof" report "$example" -o "$work/report.html" >/dev/null
out=$root/docs/report-first-screen.png
LMROOF_LAYOUT_SCREENSHOT="$work/shot.png" LMROOF_LAYOUT_SCREENSHOT_SCALE=0.7 node "$root/tests/e2e/report_layout.mjs" "$work/report.html" 1400x900
"$root/scripts/shrink-png.sh" "$work/shot.png" "$out"
echo "wrote $out ($(du -k "$out" | cut -f1) kB) from $example"
