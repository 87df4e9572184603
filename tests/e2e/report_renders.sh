#!/usr/bin/env bash
# The HTML report renders in a real browser: tests/data/results_small.json is
# rendered to report.html, which headless Chromium opens from disk. Every chart
# must end up as an <svg>, the page must record no error, and nothing may reach
# the browser console (Vega warnings included). The runs table must sort.
#
#   bash tests/e2e/report_renders.sh PATH/TO/lmroof SOURCE_DIR
#
# Renders with `lmroof report`. Exit 77 (skipped) without Chromium.
# LMROOF_REPORT_SCREENSHOT=FILE.png also saves a screenshot of the page.
set -uo pipefail

lmroof=${1:?usage: report_renders.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: report_renders.sh PATH/TO/lmroof SOURCE_DIR}
# LMROOF_REPORT_FIXTURE / LMROOF_REPORT_CHARTS render another results file and
# expect its charts (tests/e2e/reader_errors.sh: pair names with CSS-special characters).
fixture=${LMROOF_REPORT_FIXTURE:-$src/tests/data/results_small.json}
# Charts the fixture must produce: it has all four pairs and a block breakdown.
want_charts=${LMROOF_REPORT_CHARTS:-"roofline pair-norm pair-bias pair-block pair-decode block-shares"}

browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
if [ -z "$browser" ]; then
  echo "SKIP: chromium not installed (scripts/install-deps.sh --test installs it)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# --- render ----------------------------------------------------------------
render=("$lmroof" report)
"${render[@]}" "$fixture" -o "$work/report.html" || fail "${render[*]} $fixture -o $work/report.html exited $?"
[ -s "$work/report.html" ] || fail "no report.html written"

# The page's own markup (everything before the first inline script).
sed '/<script/,$d' "$work/report.html" > "$work/markup.html"
chart_ids=$(grep -o 'data-chart="[^"]*"' "$work/markup.html" | sed 's/data-chart="\(.*\)"/\1/')
for id in $want_charts; do
  grep -qx "$id" <<< "$chart_ids" || fail "chart '$id' is missing from the report (charts: $(echo $chart_ids))"
  [ -s "$work/report.$id.vl.json" ] || fail "report.$id.vl.json was not written beside report.html"
done
# Self-contained: nothing in the markup refers to another file or a server.
if grep -Eiq '<(script|img|iframe|embed|source)[^>]* src=|<link[^>]*href=|@import|url\(' "$work/markup.html"; then
  fail "the report refers to an external resource: $(grep -Eio '<(script|img|iframe|embed|source)[^>]* src=[^>]*>|<link[^>]*>|@import[^;]*|url\([^)]*\)' "$work/markup.html" | head -3)"
fi

# --- open it in headless Chromium -------------------------------------------
chromium_run() {
  local profile
  profile=$(mktemp -d -p "$work" profile.XXXXXX)
  timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 --virtual-time-budget=15000 "$@"
}

# Lines Chromium writes for the page's console (console.log/warn/error, uncaught
# exceptions, CSP violations): "...:INFO:CONSOLE:255] "text", source: URL (255)"
# (older builds: "CONSOLE(255)"). A correct report logs nothing at all, so every
# such line fails the test; the rest of stderr is Chromium's own logging (D-Bus,
# GPU, sandbox) and is ignored.
check_console() {
  local log=$1
  if grep -Eq ':CONSOLE[(:]' "$log"; then
    echo "browser console output from the page:" >&2
    grep -E ':CONSOLE[(:]' "$log" | cut -c1-600 >&2
    fail "the page logged to the console"
  fi
}

attr() {  # attr NAME BODY_TAG
  sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p" <<< "$2"
}

# between FILE START END: the text after the first START up to the next END (the
# DOM is a megabyte of inlined JavaScript: awk's index() is linear where bash's
# pattern expansion is not). Fails when START or END is not there.
between() {
  awk -v a="$2" -v b="$3" 'BEGIN { RS = "\001" }
    { s = index($0, a); if (!s) exit 1; rest = substr($0, s + length(a)); e = index(rest, b); if (!e) exit 1
      printf "%s", substr(rest, 1, e - 1); exit 0 }' "$1"
}

chromium_run --dump-dom "file://$work/report.html" > "$work/dom.html" 2> "$work/chromium.log"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$work/dom.html" ]; then
  tail -20 "$work/chromium.log" >&2
  fail "chromium exited $rc without a DOM"
fi
check_console "$work/chromium.log"

body=$(grep -o -m1 '<body[^>]*>' "$work/dom.html" | head -1)
expected=$(attr data-charts-expected "$body")
rendered=$(attr data-charts-rendered "$body")
errors=$(attr data-report-errors "$body")
state=$(attr data-report-state "$body")
echo "body: $body"
report_errors=$(between "$work/dom.html" '<pre id="report-errors"' '</pre>') || fail "no #report-errors element in the page"
report_errors=${report_errors#*>}
[ "$errors" = "0" ] || fail "the page recorded $errors error(s): $report_errors"
[ -z "$report_errors" ] || fail "#report-errors is not empty: $report_errors"
[ "$state" = "done" ] || fail "the charts did not finish rendering (data-report-state=$state)"
[ -n "$expected" ] && [ "$expected" -gt 0 ] || fail "data-charts-expected is '$expected', expected a positive count"
[ "$expected" = "$(wc -w <<< "$chart_ids")" ] || fail "data-charts-expected=$expected but the page has $(wc -w <<< "$chart_ids") chart containers"
[ "$rendered" = "$expected" ] || fail "$rendered of $expected charts rendered"
for id in $chart_ids; do
  section=$(between "$work/dom.html" "id=\"chart-$id\"" '</section>') || fail "no section with id chart-$id"
  grep -q "<svg" <<< "$section" || fail "chart container #chart-$id holds no <svg>"
done

# --- the runs table sorts ------------------------------------------------------
# A copy of the page clicks the "median time" header once loaded; rows must then be
# in ascending order of median time.
click='<script>window.addEventListener("load", function () { document.querySelectorAll("#runs-table thead th")[4].click(); });</script>'
awk -v click="$click" '!done && /^<pre id="report-errors"/ { print click; done = 1 } { print }' "$work/report.html" > "$work/sorted.html"
chromium_run --dump-dom "file://$work/sorted.html" > "$work/sorted-dom.html" 2> "$work/chromium-sorted.log"
check_console "$work/chromium-sorted.log"
table=$(between "$work/sorted-dom.html" 'id="runs-table"' '</table>') || fail "no runs table in the page"
grep -q 'aria-sort="ascending"' <<< "$table" || fail "clicking a runs-table header did not mark it sorted"
# Each row has eight numeric cells (one fraction of a roof: SoL; issue #34 dropped "efficiency"); the first is the median time.
medians=$(grep -o 'data-sort="[^"]*"' <<< "${table#*<tbody>}" | awk 'NR % 8 == 1' | sed 's/data-sort="\(.*\)"/\1/')
rows=$(grep -o '<tr' <<< "${table#*<tbody>}" | wc -l)
[ "$rows" -gt 1 ] && [ "$(wc -l <<< "$medians")" = "$rows" ] || fail "runs table: $rows rows but $(wc -l <<< "$medians") median cells"
sort -g -c <<< "$medians" || fail "runs table is not sorted by median time after a click: $(echo $medians)"

# --- measured axes ---------------------------------------------------------------
# tests/data/results_measured.json adds (invented) counter values: the roofline then
# offers minimum / model / measured / L2 bytes bases. Every view must render with no page error.
"${render[@]}" "$src/tests/data/results_measured.json" -o "$work/measured.html" || fail "rendering results_measured.json failed"
for axes in minimum model measured l2; do
  # Click the button, then record whether the L2 roof's line is drawn (its label is in the
  # legend under every basis; the line carries it as its aria-label).
  pick="<script>window.addEventListener(\"load\", function () { setTimeout(function () {
    var input = document.querySelector('#chart-roofline input[value=\"$axes\"]');
    document.body.setAttribute('data-axes-input', input ? 'found' : 'missing');
    if (input) input.click();
    setTimeout(function () {
      var svg = document.querySelector('#chart-roofline svg');
      var line = svg && Array.from(svg.querySelectorAll('[aria-label*=\"(L2)\"]')).some(function (e) { return !e.closest('g.role-legend'); });
      document.body.setAttribute('data-l2-roof', line ? 'drawn' : 'absent');
    }, 500); }, 500); });</script>"
  awk -v pick="$pick" '!done && /^<pre id="report-errors"/ { print pick; done = 1 } { print }' "$work/measured.html" > "$work/measured-$axes.html"
  chromium_run --dump-dom "file://$work/measured-$axes.html" > "$work/measured-$axes-dom.html" 2> "$work/chromium-$axes.log"
  check_console "$work/chromium-$axes.log"
  body=$(grep -o -m1 '<body[^>]*>' "$work/measured-$axes-dom.html" | head -1)
  [ "$(attr data-axes-input "$body")" = "found" ] || fail "the roofline has no '$axes' bytes-basis button"
  [ "$(attr data-report-errors "$body")" = "0" ] || fail "the page recorded errors with the '$axes' axes"
  [ "$(attr data-charts-rendered "$body")" = "$(attr data-charts-expected "$body")" ] || fail "not every chart rendered ('$axes' axes)"
  section=$(between "$work/measured-$axes-dom.html" 'id="chart-roofline"' '</section>') || fail "no roofline section"
  grep -q "<svg" <<< "$section" || fail "the roofline holds no <svg> with the '$axes' axes"
  want_l2=absent; [ "$axes" = l2 ] && want_l2=drawn
  [ "$(attr data-l2-roof "$body")" = "$want_l2" ] || fail "with the '$axes' axes the L2 roof is $(attr data-l2-roof "$body"), expected $want_l2"
  echo "ok: roofline with '$axes' axes"
done

if [ -n "${LMROOF_REPORT_SCREENSHOT:-}" ]; then
  chromium_run --hide-scrollbars --window-size=1400,3000 --screenshot="$LMROOF_REPORT_SCREENSHOT" "file://$work/report.html" \
    > /dev/null 2>&1 && echo "screenshot: $LMROOF_REPORT_SCREENSHOT"
fi
echo "PASS: $rendered/$expected charts rendered as SVG, no console output, runs table sorts"
