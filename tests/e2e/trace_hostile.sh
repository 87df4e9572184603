#!/usr/bin/env bash
# Hostile input to `lmroof trace` and to check/compare of a trace.json (issue 47,
# defects 1-7, 11, 16, 18 and its "also seen" trace items): another command's folder
# as --out, inputs inside the set, half-published folders, the same trace twice, two
# documents in one file, names that are not UTF-8 or hold terminal controls, NaN
# times, steps out of order, a trace.json missing fields, a memory bound. Each is one
# line on stderr and exit 2 before anything is written, or a figure that stays right.
#   bash tests/e2e/trace_hostile.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: trace_hostile.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: trace_hostile.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3
gen() { python3 "$src/scripts/gen_trace.py" "$@" >/dev/null || fail "gen_trace.py $*"; }
# json_edit FILE PYTHON: rewrites the JSON document FILE with `d` edited by PYTHON.
json_edit() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[1], "w"))' "$1" "$2" ||
    fail "json_edit $1"
}
# same_files A B: both folders hold the same files with the same bytes.
same_files() { diff -r "$1" "$2" >/dev/null; }

gen --out "$tmp/t.json" --steps 2
gen --out "$tmp/ranks" --ranks 2 --nccl
"$lmroof" trace "$tmp/t.json" --out "$tmp/o" >/dev/null 2>&1 || fail "trace of the generator's trace exited $?"
total() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_time_s"])' "$1"; }

# --- defects 1 and 11: --out holds another command's set, an input, or is the input ------
mkdir -p "$tmp/run"
for f in bench.json results.json report.html; do echo "{}" > "$tmp/run/$f"; done
printf 'bench.json\nresults.json\nreport.html\n' > "$tmp/run/.lmroof-set"
cp -r "$tmp/run" "$tmp/run.before"
expect_error 2 "run: holds the outputs of \`lmroof run\` \(bench.json, report.html, results.json\)" -- \
  trace "$tmp/t.json" --out "$tmp/run"
cp "$src/tests/data/results_measured.json" "$tmp/run/results.json" && cp "$tmp/run/results.json" "$tmp/run.before/"
expect_error 2 "holds the outputs of \`lmroof run\`" -- trace "$tmp/t.json" --ceilings "$tmp/run/results.json" --out "$tmp/run"
rm "$tmp/run/.lmroof-set" "$tmp/run.before/.lmroof-set"  # a folder of a run from before set lists: told by its names
expect_error 2 "holds the outputs of \`lmroof run\`" -- trace "$tmp/t.json" --out "$tmp/run"
same_files "$tmp/run" "$tmp/run.before" && ok "the run's set is untouched" || fail "trace --out a run's folder changed it"
# A trace input listed in the previous set, a --claims or --ceilings file in it.
cp -r "$tmp/o" "$tmp/o2" && cp "$tmp/t.json" "$tmp/o2/trace.csv"
printf 'trace.json\ntrace.csv\ntrace.html\n' > "$tmp/o2/.lmroof-set"
expect_error 2 "trace.csv: is trace.csv in --out .*which \`lmroof trace\` replaces" -- trace "$tmp/o2/trace.csv" --out "$tmp/o2"
printf 'claims: []\n' > "$tmp/o2/trace.html"
expect_error 2 "is trace.html in --out" -- trace "$tmp/t.json" --claims "$tmp/o2/trace.html" --out "$tmp/o2"
expect_error 2 "is trace.json in --out" -- trace "$tmp/t.json" --ceilings "$tmp/o2/trace.json" --out "$tmp/o2"
cmp -s "$tmp/t.json" "$tmp/o2/trace.csv" || fail "the trace input in the previous set was replaced"
# The rank folder as --out (defect 11): refused, the folder left as it was.
cp -r "$tmp/ranks" "$tmp/ranks.before"
expect_error 2 "ranks: is --out .*ranks itself" -- trace "$tmp/ranks" --out "$tmp/ranks"
expect_error 2 "is --out .* itself" -- trace "$tmp/ranks/" --out "$tmp/ranks/./"
same_files "$tmp/ranks" "$tmp/ranks.before" && ok "the rank folder is untouched" || fail "trace --out the rank folder changed it"
# A rank folder that holds a set lmroof trace wrote there (from one of its files): read
# without trace.json, which is lmroof's own output, not a rank.
cp -r "$tmp/ranks" "$tmp/ranks-own"
"$lmroof" trace "$tmp/ranks-own/rank0.pt.trace.json" --out "$tmp/ranks-own" >/dev/null 2>&1 || fail "trace into its rank's folder: exit $?"
"$lmroof" trace "$tmp/ranks-own" --out "$tmp/o-own" >/dev/null 2>"$tmp/err" || fail "a rank folder holding trace.json: $(cat "$tmp/err")"
grep -q "ranks-own/trace.json is lmroof's own output, not a trace: skipped" "$tmp/err" && ok "lmroof's own trace.json is skipped" ||
  fail "trace.json in a rank folder not said skipped: $(cat "$tmp/err")"
# `run --out TRACE_DIR` deleted trace.*: refused before measuring, the trace's set kept.
cp -r "$tmp/o" "$tmp/o.before"
expect_error 2 "o: holds the outputs of \`lmroof trace\` \(trace.csv, trace.html, trace.json\)" -- run --quick --out "$tmp/o"
same_files "$tmp/o" "$tmp/o.before" && ok "the trace's set is untouched" || fail "run --out a trace's folder changed it"

# --- defect 16: an input folder with an unfinished publish ----------------------------------
cp -r "$tmp/ranks" "$tmp/half" && echo ".lmroof-staging-1-0" > "$tmp/half/.lmroof-publishing"
expect_error 2 "half: may hold the outputs of two runs" -- trace "$tmp/half" --out "$tmp/o-half"
expect_error 2 "half: may hold the outputs of two runs" -- trace "$tmp/half/rank0.pt.trace.json" --out "$tmp/o-half"
mkdir -p "$tmp/half-ceil" && cp "$src/tests/data/results_measured.json" "$tmp/half-ceil/" &&
  echo ".lmroof-staging-1-0" > "$tmp/half-ceil/.lmroof-publishing"
expect_error 2 "half-ceil: may hold the outputs of two runs" -- \
  trace "$tmp/t.json" --ceilings "$tmp/half-ceil/results_measured.json" --out "$tmp/o-half"
[ ! -e "$tmp/o-half" ] || fail "a refused trace left its --out"
cp -r "$tmp/o" "$tmp/o-half-json" && echo ".lmroof-staging-1-0" > "$tmp/o-half-json/.lmroof-publishing"
printf 'claims:\n  - id: x\n    statement: Matmuls take some time.\n    source: test fixture\n    check: {kind: class_share, class: matmul, time_share: {min: 0}}\n' > "$tmp/claims.yaml"
expect_error 2 "o-half-json: may hold the outputs of two runs" -- check "$tmp/claims.yaml" "$tmp/o-half-json/trace.json"
expect_error 2 "o-half-json: may hold the outputs of two runs" -- compare "$tmp/o/trace.json" "$tmp/o-half-json/trace.json"

# --- defect 2: each file once; one rank twice refused ----------------------------------------
one=$(total "$tmp/o/trace.json")
mkdir -p "$tmp/dup" && cp "$tmp/t.json" "$tmp/dup/t.json" && ln -s t.json "$tmp/dup/link.json" && ln "$tmp/dup/t.json" "$tmp/dup/hard.json"
"$lmroof" trace "$tmp/t.json" "$tmp/t.json" --out "$tmp/o-twice" >/dev/null 2>"$tmp/err" || fail "the same file twice: exit $?"
"$lmroof" trace "$tmp/dup" "$tmp/dup/t.json" --out "$tmp/o-dup" >/dev/null 2>"$tmp/err2" || fail "folder + file + links: exit $?"
for o in o-twice o-dup; do
  [ "$(total "$tmp/$o/trace.json")" = "$one" ] && ok "$o: read once ($one s)" || fail "$o: total $(total "$tmp/$o/trace.json"), want $one"
  python3 -c 'import json,sys; assert "ranks" not in json.load(open(sys.argv[1]))' "$tmp/$o/trace.json" || fail "$o: counted as ranks"
done
grep -q "read once" "$tmp/err2" || fail "the repeated files are not said: $(cat "$tmp/err2")"
cp "$tmp/ranks/rank0.pt.trace.json" "$tmp/ranks/rank0-copy.pt.trace.json"
json_edit "$tmp/ranks/rank0-copy.pt.trace.json" 'd["traceEvents"].append({"ph":"i","name":"x"})'  # another file, same rank
error_lines=3 expect_error 2 "rank0.pt.trace.json: distributedInfo.rank: 0, as in .*rank0-copy.pt.trace.json; two traces of one rank" -- \
  trace "$tmp/ranks" --out "$tmp/o-same-rank"
rm "$tmp/ranks/rank0-copy.pt.trace.json"

# --- defect 3: one document per file ----------------------------------------------------------
printf '{"traceEvents":[]}' > "$tmp/two.json" && cat "$tmp/t.json" >> "$tmp/two.json"
expect_error 2 "two.json: byte 18: content after the document \('\{'\)" -- trace "$tmp/two.json" --out "$tmp/o-bad"
{ cat "$tmp/t.json"; echo " trailing text"; } > "$tmp/text.json"
expect_error 2 "text.json: byte [0-9]+: content after the document \('t'\)" -- trace "$tmp/text.json" --out "$tmp/o-bad"
{ printf '{"traceEvents":[]}' | gzip; gzip < "$tmp/t.json"; } > "$tmp/two.json.gz"
expect_error 2 "two.json.gz: byte 18 \(uncompressed\): content after the document" -- trace "$tmp/two.json.gz" --out "$tmp/o-bad"
printf '{"traceEvents":[\0]}' > "$tmp/nul.json"
expect_error 2 "nul.json: byte 16: a NUL byte: not JSON" -- trace "$tmp/nul.json" --out "$tmp/o-bad"
printf '{"traceEvents":{"ph":"X"}}' > "$tmp/obj.json"
expect_error 2 "obj.json: traceEvents: is an object, not an array of events" -- trace "$tmp/obj.json" --out "$tmp/o-bad"

# --- defect 4: names that are not UTF-8 --------------------------------------------------------
python3 - "$tmp/t.json" "$tmp/ff.json" "$tmp/surrogate.json" <<'PY'
import re, sys
text = open(sys.argv[1], "rb").read()
mm = re.compile(rb'("name": ?"aten::mm)"')
open(sys.argv[2], "wb").write(mm.sub(lambda m: m.group(1) + b'\xff"', text, count=1))     # a raw 0xFF byte
open(sys.argv[3], "wb").write(mm.sub(lambda m: m.group(1) + b'\\udc00"', text, count=1))  # the escape \udc00
PY
expect_error 2 "ff.json: byte [0-9]+: traceEvents\[[0-9]+\].name: a string that is not valid UTF-8 \(byte 0xff" -- \
  trace "$tmp/ff.json" --out "$tmp/o-bad"
expect_error 2 "surrogate.json: byte [0-9]+: traceEvents\[[0-9]+\].name: .*surrogate" -- trace "$tmp/surrogate.json" --out "$tmp/o-bad"
[ ! -e "$tmp/o-bad" ] || fail "a refused trace wrote its --out"
# A file name is the filesystem's bytes, not the trace's: replaced in trace.json, never a write-time throw.
cp "$tmp/t.json" "$tmp/name-"$'\xff'".json"
"$lmroof" trace "$tmp/name-"$'\xff'".json" --out "$tmp/o-name" >/dev/null 2>"$tmp/err" &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "\ufffd" in json.dumps(d, ensure_ascii=False)' "$tmp/o-name/trace.json" &&
  ok "a file name that is not UTF-8 is replaced in trace.json" || fail "a file name that is not UTF-8: $(cat "$tmp/err")"

# --- defect 5: NaN and Infinity times ----------------------------------------------------------
python3 - "$tmp/t.json" "$tmp/nan.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kernels = [e for e in d["traceEvents"] if e.get("cat") == "kernel"]
kernels[0]["dur"] = float("nan"); kernels[1]["ts"] = float("inf"); kernels[2]["dur"] = float("-inf")
open(sys.argv[2], "w").write(json.dumps(d))   # NaN, Infinity, -Infinity as Python writes them
PY
"$lmroof" trace "$tmp/nan.json" --out "$tmp/o-nan" >/dev/null 2>"$tmp/err" || fail "NaN times: exit $? $(cat "$tmp/err")"
python3 - "$tmp/o-nan/trace.json" <<'PY' || fail "trace.json of a trace with NaN times"
import json, math, sys
def numbers(v):
    if isinstance(v, dict): v = list(v.values())
    if isinstance(v, list):
        for x in v: yield from numbers(x)
    elif isinstance(v, float): yield v
d = json.load(open(sys.argv[1]), parse_constant=lambda c: float(c))
assert all(math.isfinite(x) for x in numbers(d)), "a number that is not finite"
w = d["window"]
assert all(isinstance(w[k], (int, float)) for k in ("total_s", "busy_s", "idle_s")) and d["total_time_s"] is not None, w
assert [a["count"] for a in d["anomalies"] if a["kind"].startswith("ts or dur that is not a finite")] == [3], d["anomalies"]
PY
"$lmroof" check "$tmp/claims.yaml" "$tmp/o-nan/trace.json" >/dev/null 2>"$tmp/err" || fail "check of it: exit $? $(cat "$tmp/err")"
"$lmroof" compare "$tmp/o/trace.json" "$tmp/o-nan/trace.json" >/dev/null 2>"$tmp/err" || fail "compare of it: exit $? $(cat "$tmp/err")"

# --- defect 6: step numbers against time order; a step number beyond 64 bits ----------------
python3 - "$tmp/t.json" "$tmp/order.json" "$tmp/big-step.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = [e for e in d["traceEvents"] if e.get("name", "").startswith("ProfilerStep#")]
numbers = sorted({e["name"] for e in steps})
swap = {numbers[0]: numbers[-1], numbers[-1]: numbers[0]}   # the first step in time gets the last number
for e in steps: e["name"] = swap.get(e["name"], e["name"])
json.dump(d, open(sys.argv[2], "w"))
for e in steps: e["name"] = "ProfilerStep#99999999999999999999"
json.dump(d, open(sys.argv[3], "w"))
PY
"$lmroof" trace "$tmp/order.json" --out "$tmp/o-order" >/dev/null 2>"$tmp/err" || fail "steps out of order: exit $?"
python3 - "$tmp/o-order/trace.json" "$tmp/o/trace.json" <<'PY' || fail "steps out of order: the window is not the steps' time"
import json, sys
a, b = json.load(open(sys.argv[1]))["window"], json.load(open(sys.argv[2]))["window"]
assert a["total_s"] > 0 and abs(a["total_s"] - b["total_s"]) < 1e-12 and abs(a["idle_s"] - b["idle_s"]) < 1e-12, (a, b)
PY
expect_error 2 "big-step.json: byte [0-9]+: traceEvents\[[0-9]+\].name: \"ProfilerStep#99999999999999999999\": the step number does not fit in 64 bits" -- \
  trace "$tmp/big-step.json" --out "$tmp/o-bad"

# --- defect 7: a trace.json missing a field, or of the wrong type ------------------------------
for field in ops total_time_s classes device; do
  cp "$tmp/o/trace.json" "$tmp/no-$field.json" && json_edit "$tmp/no-$field.json" "del d['$field']"
  expect_error 2 "no-$field.json: /: missing '$field'" -- compare "$tmp/o/trace.json" "$tmp/no-$field.json"
  expect_error 2 "no-$field.json: /: missing '$field'" -- check "$tmp/claims.yaml" "$tmp/no-$field.json"
done
cp "$tmp/o/trace.json" "$tmp/types.json" && json_edit "$tmp/types.json" 'd["ops"][0]["time_s"] = "1"; d["classes"] = {}'
expect_error 2 "types.json: /classes: must be an array \\(is an object\\)" -- compare "$tmp/types.json" "$tmp/o/trace.json"
json_edit "$tmp/types.json" 'd["classes"] = []'
expect_error 2 "types.json: /ops/0/time_s: must be a number \\(is \"1\"\\)" -- check "$tmp/claims.yaml" "$tmp/types.json"

# --- defect 18: the kept events bounded by the memory available --------------------------------
LMROOF_MEMORY_LIMIT=20000 expect_error 2 "t.json: byte [0-9]+: traceEvents\[[0-9]+\]: [0-9]+ kept events and strings so far, at [0-9]+ bytes each .* pass the 20.0 kB available" -- \
  trace "$tmp/t.json" --out "$tmp/o-bad"
LMROOF_MEMORY_LIMIT=1000000000 "$lmroof" trace "$tmp/t.json" --out "$tmp/o-mem" >/dev/null 2>&1 || fail "a trace within 1 GB refused"
LMROOF_MEMORY_LIMIT=-3 expect_error 2 "LMROOF_MEMORY_LIMIT='-3' is less than one byte" -- trace "$tmp/t.json" --out "$tmp/o-bad"
[ ! -e "$tmp/o-bad" ] || fail "a refused trace wrote its --out"

# --- also seen: signs and terminal controls ----------------------------------------------------
cp "$tmp/ranks/rank1.pt.trace.json" "$tmp/neg.json" && json_edit "$tmp/neg.json" 'd["distributedInfo"]["rank"] = -1'
expect_error 2 "neg.json: byte [0-9]+: distributedInfo.rank: -1 is no rank" -- trace "$tmp/neg.json" --out "$tmp/o-bad"
cp "$tmp/t.json" "$tmp/esc.json"
json_edit "$tmp/esc.json" 'd["deviceProperties"][0]["name"] = "\x1b]0;pwned\x07GPU\x1b[2J"; [e.update(name="aten::mm\x1b[31m") for e in d["traceEvents"] if e.get("name") == "aten::mm"]'
"$lmroof" trace "$tmp/esc.json" --out "$tmp/o-esc" > "$tmp/esc.txt" 2>&1 || fail "control characters in names: exit $?"
"$lmroof" compare "$tmp/o/trace.json" "$tmp/o-esc/trace.json" >> "$tmp/esc.txt" 2>&1 || fail "compare with control characters: exit $?"
! grep -q $'\x1b' "$tmp/esc.txt" && grep -qF 'aten::mm\x1b[31m' "$tmp/esc.txt" && grep -qF '\x1b]0;pwned\x07GPU' "$tmp/esc.txt" &&
  ok "control characters in names are shown escaped" || fail "a raw control character reached the terminal: $(cat -v "$tmp/esc.txt" | head -5)"

[ "$failures" = 0 ] && echo "ok: trace hostile input" || { echo "$failures failure(s)"; exit 1; }
