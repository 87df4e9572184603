#!/usr/bin/env bash
# `lmroof trace --what-if` on the generator's traces (scripts/gen_trace.py): the trace's
# own device as the target reproduces the step and busy time; two targets give two
# what_if[] entries in trace.json (with the fields docs/trace.schema.json requires),
# three trace.csv columns each, a page section and a terminal block; measured roofs
# (a results.json) are a target too; `compare` sets a prediction beside a trace of the
# target; bad --what-if names are one line and exit 2, nothing written.
#   bash tests/e2e/trace_what_if.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: trace_what_if.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: trace_what_if.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3
gen() { python3 "$src/scripts/gen_trace.py" "$@" || fail "gen_trace.py $*"; }

gen --out "$tmp/h100.json" --streams 2 --nccl --steps 3
gen --out "$tmp/mi300x.json" --rocm --streams 2 --nccl --steps 3

# --- the trace's own device: nothing moves -----------------------------------------------
timeout 60 "$lmroof" trace "$tmp/h100.json" --what-if "H100 SXM" --out "$tmp/o-same" > "$tmp/same.txt" || fail "trace --what-if (same device) exited $?"
python3 - "$tmp/o-same/trace.json" <<'PY' || fail "the trace's own device does not reproduce the source"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["what_if"][0]
assert w["device"] == "H100 SXM" and w["source_device"] == "H100 SXM", w["device"]
for k in ("step_time_s", "busy_s"):
    v = w[k]
    for end in ("predicted", "low", "high"):
        assert abs(v[end] - v["source"]) <= 1e-9 * v["source"], (k, v)
steps = d["window"]["step_count"]
assert abs(w["busy_s"]["source"] - d["window"]["busy_s"] / steps) <= 1e-12, (w["busy_s"], d["window"])
assert abs(w["step_time_s"]["source"] - d["window"]["total_s"] / steps) <= 1e-12
PY

# --- two targets: every surface ------------------------------------------------------------
timeout 60 "$lmroof" trace "$tmp/h100.json" --what-if MI300X --what-if h200 --out "$tmp/o-two" > "$tmp/two.txt" || fail "trace --what-if x2 exited $?"
python3 - "$tmp/o-two/trace.json" "$src/docs/trace.schema.json" <<'PY' || fail "what_if[] entries"
import json, sys
d = json.load(open(sys.argv[1])); schema = json.load(open(sys.argv[2]))
item = schema["properties"]["what_if"]["items"]
assert [w["device"] for w in d["what_if"]] == ["MI300X", "H200 SXM"], [w["device"] for w in d["what_if"]]
for w in d["what_if"]:
    missing = [k for k in item["required"] if k not in w]
    assert not missing, missing
    for k in ("step_time_s", "busy_s"):
        v = w[k]
        assert v["low"] <= v["predicted"] <= v["high"], (k, v)
    for o in w["ops"]:
        assert [k for k in item["properties"]["ops"]["items"]["required"] if k not in o] == [], o
        assert o["low_s"] <= o["predicted_s"] + 1e-15 and o["predicted_s"] <= o["high_s"] + 1e-15, o
    # the class table sums to the same total on both sides of the kept work
    src_total = sum(c["source_s"] for c in w["classes"])
    assert abs(src_total - d["total_time_s"]) <= 1e-9 * d["total_time_s"], (src_total, d["total_time_s"])
    # communication (the all-reduce) is kept as on the source
    comm = [o for o in w["ops"] if o["class"] == "communication"]
    assert comm and all(o["kept"] and o["predicted_s"] == o["source_s"] for o in comm), comm
PY
head -1 "$tmp/o-two/trace.csv" | grep -q '"what_if MI300X s","what_if MI300X low s","what_if MI300X high s","what_if H200 SXM s"' ||
  fail "trace.csv lacks the what_if columns: $(head -1 "$tmp/o-two/trace.csv")"
python3 - "$tmp/o-two/trace.csv" <<'PY' || fail "trace.csv what_if columns are not filled per row"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["what_if MI300X s"] != "" for r in rows if float(r["device_time_s"]) > 0), rows[0]
PY
grep -q "What if on MI300X" "$tmp/o-two/trace.html" || fail "the page has no what-if section"
grep -q "what if on MI300X" "$tmp/two.txt" && grep -q "changes most" "$tmp/two.txt" || fail "the terminal has no what-if block"

# --- a rank folder: summed as the trace sums its ranks -------------------------------------
gen --out "$tmp/ranks" --ranks 2
timeout 60 "$lmroof" trace "$tmp/ranks" --what-if "H100 SXM" --what-if MI300X --out "$tmp/o-ranks" > /dev/null 2>&1 || fail "trace --what-if on a rank folder exited $?"
python3 - "$tmp/o-ranks/trace.json" <<'PY' || fail "rank folder: what_if[] summed over ranks"
import json, sys
d = json.load(open(sys.argv[1]))
same, mi = d["what_if"]
steps = d["window"]["step_count"]
assert abs(same["window"]["source_busy_s"] - d["window"]["busy_s"]) <= 1e-12, (same["window"], d["window"]["busy_s"])
assert abs(same["window"]["predicted_busy_s"] - d["window"]["busy_s"]) <= 1e-9 * d["window"]["busy_s"]
assert any("2 ranks" in n for n in mi["notes"]), mi["notes"]
assert sum(o["calls"] for o in mi["ops"]) == sum(o["calls"] for o in d["ops"] if o["time_s"] > 0), "ops not summed over ranks"
PY

# --- measured roofs as the target ----------------------------------------------------------
timeout 60 "$lmroof" trace "$tmp/h100.json" --what-if "$src/tests/data/results_measured.json" --out "$tmp/o-meas" --format json > /dev/null ||
  fail "--what-if RESULTS.json exited $?"
python3 - "$tmp/o-meas/trace.json" <<'PY' || fail "--what-if RESULTS.json: origin measured"
import json, sys
w = json.load(open(sys.argv[1]))["what_if"][0]
assert w["origin"] == "measured" and w["device"].startswith("this ("), w["device"]
PY

# --- compare: the prediction beside a trace of the target ---------------------------------
timeout 60 "$lmroof" trace "$tmp/mi300x.json" --out "$tmp/o-mi" > /dev/null || fail "trace (MI300X) exited $?"
timeout 60 "$lmroof" compare "$tmp/o-two/trace.json" "$tmp/o-mi/trace.json" --format json > "$tmp/cmp.json" || fail "compare exited $?"
python3 - "$tmp/cmp.json" "$tmp/o-mi/trace.json" <<'PY' || fail "compare: prediction block"
import json, sys
c = json.load(open(sys.argv[1])); mi = json.load(open(sys.argv[2]))
p = c["prediction"]
assert p["device"] == "MI300X"
b = p["busy_s"]
measured = mi["window"]["busy_s"] / mi["window"]["step_count"]
assert abs(b["measured"] - measured) <= 1e-12, (b, measured)
assert abs(b["error"] - (b["predicted"] - measured) / measured) <= 1e-12
for k in ("same_time_error", "datasheet_error", "inside_interval"):
    assert k in b, k
assert p["classes"] and p["ops"], p
PY
timeout 60 "$lmroof" compare "$tmp/o-two/trace.json" "$tmp/o-mi/trace.json" > "$tmp/cmp.txt" || fail "compare (text) exited $?"
grep -q "prediction for MI300X beside the measured trace" "$tmp/cmp.txt" || fail "compare text has no prediction line"
timeout 60 "$lmroof" compare "$tmp/o-same/trace.json" "$tmp/o-mi/trace.json" --format json > "$tmp/cmp2.json" || fail "compare exited $?"
python3 -c 'import json,sys; assert "prediction" not in json.load(open(sys.argv[1]))' "$tmp/cmp2.json" ||
  fail "compare sets a prediction for another device beside the measured trace"

# --- bad --what-if: one line, exit 2, nothing written ------------------------------------
expect_error 2 'error: --what-if: "NoSuchGPU" is neither a device of the table' -- trace "$tmp/h100.json" --what-if NoSuchGPU --out "$tmp/o-bad1"
expect_error 2 'error: --what-if: ".*nothing.json" is neither' -- trace "$tmp/h100.json" --what-if "$tmp/nothing.json" --out "$tmp/o-bad2"
expect_error 2 "error: --what-if: $tmp/h100.json: not an lmroof results.json" -- trace "$tmp/h100.json" --what-if "$tmp/h100.json" --out "$tmp/o-bad3"
expect_error 2 "error: --what-if: 'a1' is the start of several devices" -- trace "$tmp/h100.json" --what-if a1 --out "$tmp/o-bad4"
for d in o-bad1 o-bad2 o-bad3 o-bad4; do [ -e "$tmp/$d/trace.json" ] && fail "$d: written despite a bad --what-if"; done
# a trace whose own device is unknown has no efficiency to carry
python3 - "$tmp/h100.json" "$tmp/nodev.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("deviceProperties", None); json.dump(d, open(sys.argv[2], "w"))
PY
expect_error 2 "error: --what-if: .*nodev.json: the trace's own device is unknown" -- trace "$tmp/nodev.json" --what-if MI300X --out "$tmp/o-bad5"

[ "$failures" -eq 0 ] && echo "trace_what_if: all passed" || echo "trace_what_if: $failures failure(s)"
exit $((failures > 0))
