#!/usr/bin/env bash
# trace.html from `lmroof trace` renders in headless Chromium with no console output:
# the roofline chart is an <svg>; the first screen's sections are there; nothing is
# fetched from outside; so does `compare --html` of two traces. LMROOF_REPORT_SCREENSHOT=FILE
# also writes a screenshot.
#   bash tests/e2e/trace_renders.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: trace_renders.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: trace_renders.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/render_ok.bash"

python3 "$src/scripts/gen_trace.py" --out "$work/ranks" --ranks 2 --nccl --queued --graph --streams 2 || fail "gen_trace.py failed"
"$lmroof" trace "$work/ranks" --out "$work/out" --claims "$src/claims/trace-lecture3.yaml" > "$work/trace.out" 2>&1
[ $? -le 1 ] || { cat "$work/trace.out" >&2; fail "lmroof trace failed"; }
render_ok "$work/out/trace.html"
for id in window classes top-ops unattributed launch-bound idle ranks claims chart-trace-roofline; do
  grep -q "id=\"$id\"" "$work/out/trace.html" || fail "trace.html has no #$id"
done
sed '/<script/,$d' "$work/out/trace.html" > "$work/markup.html"
if grep -Eiq '<(script|img|iframe|embed|source)[^>]* src=|<link[^>]*href=|@import|url\(' "$work/markup.html"; then
  fail "trace.html refers to an external resource"
fi
screenshot_if_asked "$work/out/trace.html"
# compare --html of two traces: its charts render too, and it fetches nothing.
python3 "$src/scripts/gen_trace.py" --out "$work/one.json" --steps 2 || fail "gen_trace.py failed"
"$lmroof" trace "$work/one.json" --out "$work/out-one" > /dev/null 2>&1 || fail "lmroof trace (one rank) failed"
"$lmroof" compare "$work/out-one/trace.json" "$work/out/trace.json" --html "$work/compare.html" > /dev/null 2> "$work/compare.err" ||
  fail "compare --html of two traces: $(cat "$work/compare.err")"
render_ok "$work/compare.html"
sed '/<script/,$d' "$work/compare.html" > "$work/compare-markup.html"
if grep -Eiq '<(script|img|iframe|embed|source)[^>]* src=|<link[^>]*href=|@import|url\(' "$work/compare-markup.html"; then
  fail "the compare page refers to an external resource"
fi
echo "PASS: trace.html renders (roofline), with the window, classes, top ops, unattributed, launch-bound, idle, ranks and claims;"
echo "      compare --html of two traces renders its charts"
