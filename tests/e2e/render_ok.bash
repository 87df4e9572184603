# Sourced by the render tests (tests/e2e/*_renders.sh): a work folder, fail, and
# render_ok PAGE, which opens PAGE in headless Chromium ($browser) and requires every
# chart to be an <svg>, with no error recorded and no console output.
# Skips the test (exit 77) where no Chromium is installed.
browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
[ -n "$browser" ] || { echo "SKIP: chromium not installed (scripts/install-deps.sh --test installs it)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
attr() { sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p" <<< "$2"; }
between() {  # between FILE START END (see report_renders.sh)
  awk -v a="$2" -v b="$3" 'BEGIN { RS = "\001" }
    { s = index($0, a); if (!s) exit 1; rest = substr($0, s + length(a)); e = index(rest, b); if (!e) exit 1
      printf "%s", substr(rest, 1, e - 1); exit 0 }' "$1"
}

# render_ok PAGE: opens PAGE in headless Chromium; every chart must be an <svg>,
# with no error recorded and no console output. Leaves the DOM in PAGE.dom.
render_ok() {
  local page=$1
  timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d -p "$work")" --enable-logging=stderr --v=0 --virtual-time-budget=15000 \
    --dump-dom "file://$page" > "$page.dom" 2> "$page.log"
  [ -s "$page.dom" ] || { tail -20 "$page.log" >&2; fail "chromium produced no DOM for $page"; }
  if grep -Eq ':CONSOLE[(:]' "$page.log"; then
    grep -E ':CONSOLE[(:]' "$page.log" | cut -c1-600 >&2
    fail "$(basename "$page") logged to the browser console"
  fi
  local body expected id
  body=$(grep -o -m1 '<body[^>]*>' "$page.dom" | head -1)
  [ "$(attr data-report-errors "$body")" = 0 ] || fail "$(basename "$page") recorded errors: $(between "$page.dom" '<pre id="report-errors"' '</pre>')"
  [ "$(attr data-report-state "$body")" = "done" ] || fail "$(basename "$page"): the charts did not finish ($body)"
  expected=$(attr data-charts-expected "$body")
  [ -n "$expected" ] && [ "$expected" -gt 0 ] || fail "$(basename "$page") has no charts"
  [ "$(attr data-charts-rendered "$body")" = "$expected" ] || fail "$(basename "$page"): $(attr data-charts-rendered "$body") of $expected charts rendered"
  for id in $(sed '/<script/,$d' "$page" | grep -o 'data-chart="[^"]*"' | sed 's/data-chart="\(.*\)"/\1/'); do
    # Into a variable first: `between ... | grep -q` under pipefail fails whenever grep
    # exits on its first match before awk has written the rest (SIGPIPE), which made
    # this check fail now and then on charts that were there.
    local section
    section=$(between "$page.dom" "id=\"chart-$id\"" '</section>') || fail "$(basename "$page"): no section for chart $id"
    grep -q "<svg" <<< "$section" || fail "$(basename "$page"): chart $id holds no <svg>"
  done
  echo "ok: $(basename "$page") renders ($expected charts, no console output)"
}

# screenshot_if_asked PAGE: with LMROOF_REPORT_SCREENSHOT=FILE.png set, saves PAGE's first
# screen there (scripts/screenshot.sh); otherwise does nothing.
screenshot_if_asked() {
  [ -n "${LMROOF_REPORT_SCREENSHOT:-}" ] || return 0
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1000 \
    --user-data-dir="$(mktemp -d -p "$work")" --virtual-time-budget=15000 --screenshot="$LMROOF_REPORT_SCREENSHOT" \
    "file://$1" > /dev/null 2>&1 || fail "screenshot failed"
  echo "wrote $LMROOF_REPORT_SCREENSHOT"
}
