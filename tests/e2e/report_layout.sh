#!/usr/bin/env bash
# The report's layout and controls in headless Chromium (tests/e2e/report_layout.mjs)
# at 1400x900 and 800x900, on two reports:
#   1. the committed example (docs/examples/*/results.json, re-rendered by this lmroof);
#   2. a fresh `lmroof run --quick` on this machine.
# No table wider than its box (its last columns would scroll out of sight), no
# horizontal scrolling, the roofline within two screens, no overlapping facet
# headers or cut chart text, every chart rendered, no console output, PNG/SVG export
# and the bytes-basis switch clicked. Exit 77 (skipped) without Chromium or Node.
#
#   bash tests/e2e/report_layout.sh PATH/TO/lmroof SOURCE_DIR
# LMROOF_LAYOUT_SKIP_RUN=1 skips the fresh run (the example only).
set -uo pipefail
lmroof=${1:?usage: report_layout.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: report_layout.sh PATH/TO/lmroof SOURCE_DIR}
harness=$src/tests/e2e/report_layout.mjs

command -v node >/dev/null 2>&1 || { echo "SKIP: node not installed (scripts/install-deps.sh --test installs it)"; exit 77; }
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  echo "SKIP: chromium not installed (scripts/install-deps.sh --test installs it)"; exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

example=$(ls -d "$src"/docs/examples/*/results.json 2>/dev/null | sort | tail -1)
if [ -n "$example" ]; then
  echo "== committed example: $example"
  mkdir -p "$work/example"
  "$lmroof" report "$example" -o "$work/example/report.html" >/dev/null || { echo "FAIL: lmroof report $example"; exit 1; }
  node "$harness" "$work/example/report.html" || failures=$((failures + 1))
else
  echo "note: no committed example under docs/examples/"
fi

if [ "${LMROOF_LAYOUT_SKIP_RUN:-0}" != 1 ]; then
  echo "== fresh quick run"
  timeout 500 "$lmroof" run --quick --backend cpu --out "$work/run" >"$work/run.log" 2>&1
  rc=$?
  if [ ! -s "$work/run/report.html" ]; then
    tail -20 "$work/run.log"; echo "FAIL: lmroof run --quick exited $rc without a report"; exit 1
  fi
  node "$harness" "$work/run/report.html" || failures=$((failures + 1))
  for csv in runs comparisons; do
    [ -s "$work/run/report.$csv.csv" ] || { echo "FAIL: report.$csv.csv was not written beside the report"; failures=$((failures + 1)); }
  done
fi
[ "$failures" = 0 ] || { echo "$failures report(s) failed the layout checks"; exit 1; }
echo "PASS: report layout"
