#!/usr/bin/env bash
# `lmroof compare` from the command line: exit codes for CI, every output format,
# the JSON against its schema (docs/compare.schema.json), one-line errors.
#
#   bash tests/e2e/compare_cli.sh PATH/TO/lmroof SOURCE_DIR
#
# Exit 77 (skipped) when no python3 with the jsonschema module is found
# (scripts/install-deps.sh --test installs python3-jsonschema).
set -uo pipefail

lmroof=${1:?usage: compare_cli.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: compare_cli.sh PATH/TO/lmroof SOURCE_DIR}
small=$src/tests/data/results_small.json
slower=$src/tests/data/compare/slower_rmsnorm.json
other=$src/tests/data/compare/other_machine.json
slow_run=norm/rmsnorm/fused/cpu/fp32/tokens:4096/d_model:1024

python=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import jsonschema' 2>/dev/null; then python=$candidate; break; fi
done
[ -n "$python" ] || { echo "SKIP: no python3 with jsonschema (scripts/install-deps.sh --test installs python3-jsonschema)"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# run_compare EXPECTED_EXIT ARGS...: runs compare, output in $work/out and $work/err.
run_compare() {
  local want=$1
  shift
  "$lmroof" compare "$@" > "$work/out" 2> "$work/err"
  local rc=$?
  [ "$rc" = "$want" ] || { cat "$work/err" >&2; fail "lmroof compare $* exited $rc, expected $want"; }
}

# compare_json BASE NEW RUN_ID CHECKS: `compare --format json` of BASE and NEW, validated
# against docs/compare.schema.json; then the python CHECKS, with d the document and r
# the run RUN_ID, must pass.
compare_json() {
  "$lmroof" compare "$1" "$2" --format json > "$work/compare.json" 2> /dev/null
  "$python" - "$src/docs/compare.schema.json" "$work/compare.json" "$3" "$4" <<'EOF'
import json, sys, jsonschema
d = json.load(open(sys.argv[2]))
jsonschema.validate(d, json.load(open(sys.argv[1])), cls=jsonschema.Draft202012Validator)
r = next(r for r in d["runs"] if r["id"] == sys.argv[3])
exec(sys.argv[4])
EOF
}

# --- --help -------------------------------------------------------------------------
for cmd in compare merge; do
  "$lmroof" "$cmd" --help > "$work/help" 2>&1 || fail "lmroof $cmd --help failed"
  grep -q "Usage" "$work/help" || fail "lmroof $cmd --help printed no usage"
done

# --- a file and itself: nothing changed ------------------------------------------------
run_compare 0 "$small" "$small"
grep -q "no significant regression beyond 5.00%" "$work/out" || fail "a file against itself: $(tail -1 "$work/out")"
grep -Eq "slower|faster" <(grep -v '^base\|^new\|^speedup' "$work/out" | awk '{print $NF}') && fail "a file against itself found a change"
echo "ok: file vs itself -> exit 0, no change"

# --- the planted 20% slowdown ------------------------------------------------------------
run_compare 1 "$small" "$slower"
grep -q "regression: $slow_run is 20.0% slower" "$work/err" || { cat "$work/err" >&2; fail "the regression is not named on stderr"; }
[ "$(grep -c 'regression:' "$work/err")" = 1 ] || fail "more than one regression reported: $(cat "$work/err")"
run_compare 0 "$small" "$slower" --threshold 25%
run_compare 0 "$small" "$slower" --threshold 0.25
run_compare 0 "$slower" "$small"
grep -q "1 faster" "$work/out" || fail "the reverse comparison does not find the run faster"
echo "ok: planted slowdown -> exit 1 naming $slow_run; within --threshold 25% -> exit 0"

# --- markdown: a table, one row per run ---------------------------------------------------
run_compare 1 "$small" "$slower" --format markdown
runs=$("$python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$small")
grep -q '^| run | base median | new median | speedup \[CI\] | p (U test) | roof Δ | verdict |$' "$work/out" || fail "markdown: no table header"
grep -q '^|---|---:|---:|---:|---:|---:|---|$' "$work/out" || fail "markdown: no separator row"
rows=$(grep -c '^| `' "$work/out")
[ "$rows" = "$runs" ] || fail "markdown: $rows rows for $runs runs"
marked=$(grep '\*\*slower (regression' "$work/out")
[ "$(wc -l <<< "$marked")" = 1 ] && grep -q '^| `norm/rmsnorm/fused/cpu/fp32 [^`]*tokens=4096' <<< "$marked" ||
  fail "markdown: the slower run (and only it) is not marked: $marked"
# Every row has the header's 7 cells.
awk -F'|' '/^\| `/ && NF != 9 { bad = 1 } END { exit bad }' "$work/out" || fail "markdown: a row does not have 7 cells"
echo "ok: markdown table with $rows rows"

# --- json against the documented schema ---------------------------------------------------
for pair in "$small $small" "$small $slower" "$small $other"; do
  # shellcheck disable=SC2086
  "$lmroof" compare $pair --format json > "$work/compare.json" 2> /dev/null
  "$python" - "$src/docs/compare.schema.json" "$work/compare.json" <<'EOF' || fail "compare --format json ($pair) does not validate"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.validate(json.load(open(sys.argv[2])), schema, cls=jsonschema.Draft202012Validator)
EOF
done
"$python" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["same_machine"] is False and any("different machines" in w for w in d["warnings"]), d["warnings"]' "$work/compare.json" ||
  fail "json: files of different machines carry no warning"
echo "ok: json validates against docs/compare.schema.json"

# --- different machines: a warning on stderr ----------------------------------------------
run_compare 0 "$small" "$other"
grep -q "warning: different machines" "$work/err" || fail "no warning for files of different machines"
grep -q "warning: different machines" "$work/out" || fail "the text output does not carry the warning"
echo "ok: different machines warn"

# --- drift of the machine: the newest example's bench JSON, one DRAM-resident run made
# 1.4x faster while its probes read twice the bandwidth, analyzed into results files -----
# The newest example timed without paired rounds, whose runs all have 10 repetitions
# (with paired rounds, the compared runs keep 3, and this case is about drift, not count).
example=$(dirname "$(grep -L '"paired/' "$src"/docs/examples/*/bench.json 2>/dev/null | sort | tail -1)")
drift_run=norm/rmsnorm/fused/cpu/fp32/tokens:8192/d_model:4096
# (examples measured before bench.json recorded the pair catalogue are migrated first,
# tests/e2e/migrate_examples.sh; newer ones are taken as they are)
if grep -q '"lmroof_catalogue"' "$example/bench.json"; then
  cp "$example/bench.json" "$work/example-bench.json"
else
  "$lmroof" migrate "$example/bench.json" -o "$work/example-bench.json" >/dev/null 2>&1 || fail "migrate of the example failed"
fi
"$python" - "$work/example-bench.json" "$work" "$drift_run" <<'EOF' || fail "could not derive the drifted bench JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
run = sys.argv[3]
for b in doc["benchmarks"]:
    if not b["run_name"].startswith(run + "/") or b.get("aggregate_name") == "cv":
        continue
    for k in ("real_time", "cpu_time"):
        b[k] /= 1.4
    for k in ("bytes/s", "FLOP/s"):
        b[k] *= 1.4
    for k in ("probe_read_bytes_per_s", "probe_copy_nt_bytes_per_s"):
        b[k] *= 2
json.dump(doc, open(sys.argv[2] + "/drifted-bench.json", "w"))
EOF
"$lmroof" analyze "$work/example-bench.json" -o "$work/steady.json" --no-claims > /dev/null 2>&1 || fail "analyze of the example failed"
"$lmroof" analyze "$work/drifted-bench.json" -o "$work/drifted.json" --no-claims > /dev/null 2>&1 || fail "analyze of the drifted bench JSON failed"
run_compare 0 "$work/steady.json" "$work/drifted.json"
grep -A1 "^norm/rmsnorm/fused/cpu/fp32 .*tokens=8192" "$work/out" | grep -q "note: the machine's DRAM read bandwidth moved by 100.0% between the two runs" ||
  fail "drift: the 1.4x change within a 2x drift is not called out: $(grep -A1 'tokens=8192' "$work/out")"
grep -q "widened by the machine's drift" "$work/out" || fail "drift: the note under the table does not explain the widening"
compare_json "$work/steady.json" "$work/drifted.json" "$drift_run" '
assert abs(r["machine_drift"] - 1.0) < 1e-9 and r["verdict"] == "same", r
assert r["speedup"]["low"] <= r["speedup"]["estimate"] / 2 + 1e-9, r["speedup"]
assert any(x["machine_drift"] is None for x in d["runs"]), "every run has a drift: cache-resident runs are not probed"
' || fail "drift: compare --format json"
echo "ok: drift between the runs' probes widens the interval; the 1.4x change is 'same', with the reason"

# --- few repetitions: the example's bench JSON cut to 3 repetitions (as --quick takes), one
# run made 30% slower in a copy: its interval excludes 1 but 3 + 3 repetitions cannot reach
# p < 0.05, so it is "undecided (n=3)", counted apart from "same", and no regression --------
planted_run=norm/rmsnorm/fused/cpu/fp32/tokens:4096/d_model:1024
"$python" - "$work/example-bench.json" "$work" "$planted_run" <<'EOF' || fail "could not derive the 3-repetition bench JSONs"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["benchmarks"] = [b for b in doc["benchmarks"] if b.get("run_type") != "aggregate" and b.get("repetition_index", 0) < 3]
json.dump(doc, open(sys.argv[2] + "/three-bench.json", "w"))
for b in doc["benchmarks"]:
    if b["run_name"].startswith(sys.argv[3] + "/"):
        for k in ("real_time", "cpu_time"):
            b[k] *= 1.3
        for k in ("bytes/s", "FLOP/s"):
            b[k] /= 1.3
json.dump(doc, open(sys.argv[2] + "/planted-bench.json", "w"))
EOF
"$lmroof" analyze "$work/three-bench.json" -o "$work/three.json" --no-claims > /dev/null 2>&1 || fail "analyze of the 3-repetition bench JSON failed"
"$lmroof" analyze "$work/planted-bench.json" -o "$work/planted.json" --no-claims > /dev/null 2>&1 || fail "analyze of the planted bench JSON failed"
run_compare 0 "$work/three.json" "$work/planted.json"
runs=$("$python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$work/three.json")
grep -q "0 faster, 0 slower, 1 undecided (n=3; about 6 repetitions per side would decide it), $((runs - 1)) same within noise" "$work/out" ||
  fail "few repetitions: the headline does not count the planted run undecided: $(tail -1 "$work/out")"
grep -A1 "^norm/rmsnorm/fused/cpu/fp32 .*tokens=4096 .*undecided (n=3)$" "$work/out" |
  grep -q "note: the interval excludes 1 but 3 and 3 repetitions cannot reach p < 0.05: about 6 repetitions per side" ||
  fail "few repetitions: the planted run's row: $(grep -A1 'tokens=4096 d_model=1024' "$work/out")"
run_compare 0 "$work/three.json" "$work/planted.json" --format markdown
grep -q '^| `norm/rmsnorm/fused/cpu/fp32 [^`]*tokens=4096[^`]*` | .* | undecided (n=3) — the interval excludes 1' "$work/out" ||
  fail "few repetitions: markdown row"
grep -q "1 undecided (n=3" "$work/out" || fail "few repetitions: markdown headline"
run_compare 0 "$work/three.json" "$work/planted.json" --html "$work/planted.html"
grep -q "1 undecided (n=3" "$work/planted.html" || fail "few repetitions: html headline"
compare_json "$work/three.json" "$work/planted.json" "$planted_run" '
assert r["verdict"] == "undecided" and r["repetitions_to_decide"] == 6 and not r["regression"], r
assert r["speedup"]["high"] < 1 and r["p_value"] >= 0.05, r
s = d["summary"]
assert (s["faster"], s["slower"], s["undecided"], s["same"]) == (0, 0, 1, len(d["runs"]) - 1), s
x = r["speedup"]
print("ok: planted 30%% slowdown at n=3: speedup %.3f [%.3f, %.3f], p = %.2g" % (x["estimate"], x["low"], x["high"], r["p_value"]))
' || fail "few repetitions: compare --format json"
echo "ok: a planted 30% slowdown on 3 repetitions is 'undecided (n=3)' in text, markdown, html and json"

# --- --html -------------------------------------------------------------------------------
run_compare 1 "$small" "$slower" --html "$work/compare.html"
grep -q 'id="compare-table"' "$work/compare.html" || fail "--html: no table"

# --- bad input: exit 2, one line, naming the file ---------------------------------------------
"$python" - "$small" "$work" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
empty = dict(doc, runs=[], comparisons=[], claims=[])
json.dump(empty, open(sys.argv[2] + "/empty.json", "w"))
other = json.loads(json.dumps(doc))
for r in other["runs"] + other["comparisons"]:  # a comparison's dtype is its runs'
    r["dtype"] = "bf16"
json.dump(other, open(sys.argv[2] + "/bf16.json", "w"))
bad = json.loads(json.dumps(doc))
bad["runs"][2]["time_s"]["samples"][1] = "fast"
json.dump(bad, open(sys.argv[2] + "/badsample.json", "w"))
EOF
printf '{"schema": "lmroof.results/1", ' > "$work/truncated.json"
expect_bad() {  # expect_bad NEEDLE ARGS...
  local needle=$1
  shift
  run_compare 2 "$@"
  [ "$(wc -l < "$work/err")" = 1 ] || fail "compare $*: expected one line on stderr, got: $(cat "$work/err")"
  grep -qF -- "$needle" "$work/err" || fail "compare $*: the error does not mention '$needle': $(cat "$work/err")"
  [ ! -s "$work/out" ] || fail "compare $*: wrote output despite the error"
  echo "ok: exit 2: $(cat "$work/err")"
}
expect_bad "$work/missing.json" "$small" "$work/missing.json"
expect_bad "$work/truncated.json" "$work/truncated.json" "$small"
expect_bad "$work/empty.json: /runs: holds no runs: nothing to compare" "$small" "$work/empty.json"
expect_bad "$work/bf16.json: /runs: none of its" "$small" "$work/bf16.json"
expect_bad "$work/badsample.json: /runs/2/time_s/samples/1" "$work/badsample.json" "$small"
expect_bad "--threshold" "$small" "$small" --threshold fast
expect_bad "--threshold" "$small" "$small" --threshold -5%
expect_bad "--format" "$small" "$small" --format yaml
expect_bad "new is required" "$small"

# --- merge: its own merged file back as input; a broken one is one line, exit 2, nothing written
"$lmroof" merge "$small" "$other" --label a --label b -o "$work/fleet.html" --results "$work/fleet.json" > /dev/null \
  || fail "merge of two results files failed"
# A third machine: results_small.json measured again elsewhere (another host and date).
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["machine"]["hostname"] = "third"; d["machine"]["date"] = "2026-01-02T00:00:00Z"; json.dump(d, open(sys.argv[2], "w"))' \
  "$small" "$work/third.json"
"$lmroof" merge "$work/fleet.json" "$work/third.json" -o "$work/fleet2.html" > "$work/out" 2> "$work/err" \
  || fail "merge of a merged file and a results file failed: $(cat "$work/err")"
# Issue 26, defect 7: a machine the merged file already holds is not counted twice.
"$lmroof" merge "$work/fleet.json" "$small" -o "$work/fleet3.html" > /dev/null 2> "$work/err"; rc=$?
{ [ "$rc" = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -q "results_small.json: the results of machine .* are already merged from" "$work/err" \
  && [ ! -e "$work/fleet3.html" ]; } && echo "ok: a machine merged twice: $(cat "$work/err")" \
  || fail "a machine merged twice: exit $rc, $(cat "$work/err")"
grep -q "merged 3 machines: a (.*), b (.*)" "$work/out" || fail "the merged file's machines lost their labels: $(cat "$work/out")"
python3 - "$work/fleet.json" "$work" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
work = sys.argv[2]
bad = json.loads(json.dumps(doc)); bad["machines"][1]["results"]["runs"][0]["time_s"]["median"] = "slow"
json.dump(bad, open(work + "/fleet-type.json", "w"))
bad = json.loads(json.dumps(doc)); bad["machines"][0]["results"]["runs"][0]["time_s"]["median"] = -1
json.dump(bad, open(work + "/fleet-value.json", "w"))
open(work + "/fleet-deep.json", "w").write('{"schema": "lmroof.fleet/1", "machines": ' + "[" * 300 + "]" * 300 + "}")
PY
for case in "fleet-type.json:/machines/1/results/runs/0/time_s/median" "fleet-value.json:/machines/0/results/runs/0/time_s/median" \
            "fleet-deep.json:"; do
  file=${case%%:*} pointer=${case#*:}
  "$lmroof" merge "$work/$file" -o "$work/bad.html" > /dev/null 2> "$work/err"; rc=$?
  [ "$rc" = 2 ] || fail "merge $file exited $rc, expected 2"
  [ "$(wc -l < "$work/err")" = 1 ] || fail "merge $file: not one line: $(cat "$work/err")"
  grep -qF "$work/$file: $pointer" "$work/err" || fail "merge $file: the error does not name '$pointer': $(cat "$work/err")"
  [ ! -e "$work/bad.html" ] || fail "merge $file wrote a report despite the error"
  echo "ok: merge exit 2: $(cat "$work/err")"
done

# ---- issue 38 item 24: the same measurements on both sides are said to be ------------
# by file identity (the file twice, a hard link) or by content (a copy).
cp "$small" "$work/copy.json"
ln "$work/copy.json" "$work/link.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["runs"][0]["time_s"]["samples"][0]*=1; d["machine"]["date"]="2001-01-01T00:00:00Z"; json.dump(d,open(sys.argv[2],"w"))' "$small" "$work/redated.json"
for pair in "$small $small|same file" "$work/copy.json $work/link.json|same file" "$small $work/copy.json|hold the same measurements"; do
  files=${pair%%|*}; want=${pair#*|}
  # shellcheck disable=SC2086
  run_compare 0 $files
  grep -q "^lmroof compare: warning: .*$want" "$work/err" || fail "compare $files: no '$want' warning: $(cat "$work/err")"
  # shellcheck disable=SC2086
  run_compare 0 --format json $files
  grep -q "$want" "$work/out" || fail "compare --format json $files: the warning is not in the JSON"
  echo "ok: compare $files warns: $want"
done
run_compare 0 "$small" "$work/redated.json"
grep -qE "same file|same measurements" "$work/err" && fail "compare of another date's measurements warns: $(cat "$work/err")"
echo "ok: another date's measurements are not called the same"
# ---- end issue 38 --------------------------------------------------------------------

echo "PASS: compare exit codes, formats, schema and errors"
