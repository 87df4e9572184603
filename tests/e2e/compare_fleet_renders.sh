#!/usr/bin/env bash
# `lmroof merge` of the committed CPU example and a second machine's results (the
# small fixture, labelled as another run) renders in headless Chromium: every chart
# an <svg>, no page error, nothing on the console; the page shows both machines'
# roofs and the claims x machines matrix. The `lmroof compare --html` page must
# render the same way.
#
#   bash tests/e2e/compare_fleet_renders.sh PATH/TO/lmroof SOURCE_DIR
#
# Exit 77 (skipped) without Chromium.
set -uo pipefail

lmroof=${1:?usage: compare_fleet_renders.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: compare_fleet_renders.sh PATH/TO/lmroof SOURCE_DIR}
example=$(ls -d "$src"/docs/examples/*/results.json | sort | tail -1)  # the newest committed example
second=$src/tests/data/results_small.json

source "$(dirname "${BASH_SOURCE[0]}")/render_ok.bash"

# --- merge ----------------------------------------------------------------------------
"$lmroof" merge "$example" --label epyc-example "$second" --label xeon-small -o "$work/fleet.html" --results "$work/fleet.json" \
  > "$work/merge.out" 2>&1 || { cat "$work/merge.out" >&2; fail "lmroof merge failed"; }
cat "$work/merge.out"
render_ok "$work/fleet.html"
sed '/<script/,$d' "$work/fleet.html" > "$work/markup.html"
# Self-contained: nothing refers to another file or a server.
if grep -Eiq '<(script|img|iframe|embed|source)[^>]* src=|<link[^>]*href=|@import|url\(' "$work/markup.html"; then
  fail "the fleet report refers to an external resource"
fi
# The claims x machines matrix: one column per machine, a verdict in every cell.
matrix=$(between "$work/fleet.html.dom" 'id="claims-matrix"' '</table>') || fail "no claims x machines matrix"
grep -q '<th>epyc-example</th><th>xeon-small</th>' <<< "$matrix" || fail "the matrix does not have one column per machine"
# One row per claim either machine checked; the small fixture checked only 3 of them.
claims=$(python3 -c 'import json,sys; print(len({c["id"] for f in sys.argv[1:] for c in json.load(open(f))["claims"]}))' "$example" "$second")
[ "$(grep -o '<tr><td>' <<< "$matrix" | wc -l)" = "$claims" ] || fail "the matrix does not have a row per claim ($claims)"
grep -q '>not checked<' <<< "$matrix" || fail "the matrix does not say which claims a machine did not check"
grep -q 'verdict-holds' <<< "$matrix" || fail "the matrix shows no verdict"
# Both machines' roofs: each panel of the side-by-side roofline is drawn, with its roof lines.
roofline=$(between "$work/fleet.html.dom" 'id="chart-fleet-rooflines"' '</section>') || fail "no side-by-side roofline"
for label in epyc-example xeon-small; do
  grep -q ">$label<" <<< "$roofline" || fail "the side-by-side roofline has no panel for $label"
done
python3 - "$work/fleet.fleet-rooflines.vl.json" <<'EOF' || fail "the roofline spec lacks a machine's roofs"
import json, sys
values = json.load(open(sys.argv[1]))["data"]["values"]
for machine in ("epyc-example", "xeon-small"):
    assert any(v["kind"] == "roof" and v["machine"] == machine for v in values), machine
    assert any(v["kind"] == "run" and v["machine"] == machine for v in values), machine
EOF
grep -q 'id="chart-fleet-normalized"' "$work/markup.html" || fail "no normalized roofline"
grep -q 'id="chart-fleet-pair-norm"' "$work/markup.html" || fail "no per-pair chart across machines"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "lmroof.fleet/1"
assert [m["label"] for m in d["machines"]] == ["epyc-example", "xeon-small"]
assert all(m["results"]["schema"] == "lmroof.results/1" for m in d["machines"])' "$work/fleet.json" || fail "--results is not the merged file"

# --- merge errors: one line, exit 2 -------------------------------------------------------
"$lmroof" merge "$example" "$work/missing.json" -o "$work/x.html" > /dev/null 2> "$work/err"
[ $? = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -q missing.json "$work/err" || fail "merge of a missing file: $(cat "$work/err")"
"$lmroof" merge "$example" "$second" --label only-one -o "$work/x.html" > /dev/null 2> "$work/err"
[ $? = 2 ] && grep -q -- '--label' "$work/err" || fail "merge with one label for two files: $(cat "$work/err")"
[ ! -e "$work/x.html" ] || fail "merge wrote a report despite bad input"

# --- the compare page ---------------------------------------------------------------------
"$lmroof" compare "$second" "$src/tests/data/compare/slower_rmsnorm.json" --html "$work/compare.html" > /dev/null 2>&1
[ $? = 1 ] || fail "compare with the planted slowdown did not exit 1"
render_ok "$work/compare.html"
echo "PASS: fleet report and compare page render; both machines' roofs and the claims matrix are shown"
