#!/usr/bin/env bash
# `lmroof trace` on the generator's traces (scripts/gen_trace.py): trace.json reproduces
# the generator's FLOPs, bytes, per-op times, step windows, busy/idle and unattributed
# work exactly, on two overlapping streams, queued kernels, a CUDA-graph replay, a
# CPU-only trace, ROCm naming, an NCCL all-reduce and a two-rank folder; the JSON keeps
# the names docs/trace.schema.json requires; claims hold and fail on fixtures built for
# each; compare reads two trace.json files (step and busy time, fraction of roof per
# side, --html); bad input is one line and exit 2.
#   bash tests/e2e/trace_cli.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: trace_cli.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: trace_cli.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
gen() { python3 "$src/scripts/gen_trace.py" "$@" || fail "gen_trace.py $*"; }
expect() { python3 "$src/tests/e2e/trace_expected.py" "$1" "$2" >/dev/null || fail "$3: trace.json differs from the generator's figures"; }

# --- the generator's figures, reproduced ------------------------------------------------
gen --out "$tmp/gpu.json" --expected "$tmp/gpu.e.json" --streams 2 --queued --graph --nccl --big-ids --steps 3
timeout 60 "$lmroof" trace "$tmp/gpu.json" --out "$tmp/o-gpu" > "$tmp/gpu.txt" || fail "trace (GPU) exited $?"
expect "$tmp/o-gpu/trace.json" "$tmp/gpu.e.json" "two streams, queued, graph replay, NCCL, ids beyond 2^53"
grep -q "unattributed: 11 kernels" "$tmp/gpu.txt" || fail "the summary does not show the 11 unattributed kernels (2 queued, 3 steps x 3 graph kernels)"
for f in trace.json trace.csv trace.html; do [ -s "$tmp/o-gpu/$f" ] || fail "$f not written"; done
python3 - "$tmp/o-gpu/trace.json" <<'PY' || fail "memcpy attribution (class memory)"
import json, sys
d = json.load(open(sys.argv[1]))
item = [o for o in d["ops"] if o["name"] == "aten::_local_scalar_dense"][0]
assert item["class"] == "memory" and item["flops"] is None and item["kernels"] == ["Memcpy DtoH (Device -> Pageable)"], item
assert [c for c in d["classes"] if c["class"] == "memory"][0]["time_s"] == item["device_time_s"]
PY

gen --out "$tmp/cpu.json" --expected "$tmp/cpu.e.json" --cpu-only
timeout 60 "$lmroof" trace "$tmp/cpu.json" --out "$tmp/o-cpu" --format json > "$tmp/cpu.stdout.json" || fail "trace (CPU) exited $?"
expect "$tmp/o-cpu/trace.json" "$tmp/cpu.e.json" "CPU-only (self times, linear's cost at its addmm)"
cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ops"][0])' "$tmp/cpu.stdout.json") \
       <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ops"][0])' "$tmp/o-cpu/trace.json") ||
  fail "--format json differs from trace.json"

gen --out "$tmp/rocm.json.gz" --expected "$tmp/rocm.e.json" --rocm --nccl
timeout 60 "$lmroof" trace "$tmp/rocm.json.gz" --out "$tmp/o-rocm" --threads 2 > /dev/null || fail "trace (ROCm, gz, 2 threads) exited $?"
expect "$tmp/o-rocm/trace.json" "$tmp/rocm.e.json" "ROCm naming, gzipped, 2 threads"
python3 - "$tmp/o-rocm/trace.json" <<'PY' || fail "ROCm device or NCCL busbw"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["device"]["table_name"] == "MI300X" and d["device"]["source"] == "trace", d["device"]
ar = [o for o in d["ops"] if o["class"] == "communication"][0]
assert ar["collective"] == "all_reduce", ar
# nccl-tests: busbw = algbw * 2(n-1)/n; n = 2 here
assert abs(ar["busbw_bytes_per_s"] - ar["algbw_bytes_per_s"]) < 1e-6 * ar["algbw_bytes_per_s"], ar
assert abs(ar["algbw_bytes_per_s"] - ar["message_bytes"] * ar["calls"] / ar["device_time_s"]) < 1e-3, ar
PY

gen --out "$tmp/ranks" --expected "$tmp/ranks.e.json" --ranks 2 --nccl
timeout 60 "$lmroof" trace "$tmp/ranks" --out "$tmp/o-ranks" > "$tmp/ranks.txt" 2>&1 || fail "trace (ranks) exited $?"
python3 "$src/tests/e2e/trace_expected.py" "$tmp/o-ranks/trace.json" "$tmp/ranks.e.json" >/dev/null || fail "rank folder"
# An A100 rank and a V100 rank of different world sizes: each judged on its own roofs, and
# both mixes said on the third and fourth lines of the text and on the page's first screen.
gen --out "$tmp/mixed" --expected "$tmp/mixed.e.json" --ranks 2 --nccl --rank-devices "NVIDIA A100-SXM4-80GB,Tesla V100-SXM2-32GB" \
  --rank-world-sizes 2,4
timeout 60 "$lmroof" trace "$tmp/mixed" --out "$tmp/o-mixed" > "$tmp/mixed.txt" 2>/dev/null || fail "trace (mixed ranks) exited $?"
python3 "$src/tests/e2e/trace_expected.py" "$tmp/o-mixed/trace.json" "$tmp/mixed.e.json" > "$tmp/mixed.check" 2>&1 ||
  fail "mixed ranks: $(tail -1 "$tmp/mixed.check")"
sed -n 3p "$tmp/mixed.txt" | grep -q "^warning: the ranks ran on different devices: NVIDIA A100-SXM4-80GB (rank 0), Tesla V100-SXM2-32GB (rank 1)" &&
  sed -n 4p "$tmp/mixed.txt" | grep -q "^warning: the ranks report different world sizes" ||
  fail "the summary does not warn of the mixed ranks first: $(sed -n 1,5p "$tmp/mixed.txt")"
python3 - "$tmp/o-mixed/trace.html" <<'PY' || fail "the page does not warn of the mixed ranks before its class table"
import sys
page = open(sys.argv[1]).read()
warn = page.find("the ranks ran on different devices")
assert 0 <= warn < page.find('id="classes"') and page.find("different world sizes") < page.find('id="classes"'), warn
PY

# --- the real format with module events: classes from modules, kernel names and custom ops,
# Ivanov's grouping, host-only steps, the idle split, an optimizer launch with no op, the
# all_gather's args, an out= tensor (figures computed by the generator, apart from lmroof).
gen --out "$tmp/mod.json" --expected "$tmp/mod.e.json" --modules
timeout 60 "$lmroof" trace "$tmp/mod.json" --out "$tmp/o-mod" > "$tmp/mod.txt" || fail "trace (modules) exited $?"
python3 "$src/tests/e2e/trace_expected.py" "$tmp/o-mod/trace.json" "$tmp/mod.e.json" > "$tmp/mod.check" 2>&1 ||
  fail "modules fixture: $(tail -1 "$tmp/mod.check")"
sed -n 3p "$tmp/mod.txt" | grep -q "^host-bound: 2 of 2 steps" || fail "the summary's third line is not the host-bound verdict: $(sed -n 1,4p "$tmp/mod.txt")"
grep -q "host-bound: 2 of 2 steps" "$tmp/o-mod/trace.html" || fail "the page does not say host-bound"
for id in classes ivanov-classes modules; do grep -q "id=\"$id\"" "$tmp/o-mod/trace.html" || fail "the page has no $id section"; done
grep -q "grouped as Ivanov" "$tmp/mod.txt" && grep -q "Qwen2RMSNorm" "$tmp/mod.txt" || fail "the summary lacks the Ivanov table or the modules"
# The rotary mul on a transposed input: its own row, its strides and calls' range shown in the text and on the page.
grep -q "strides \[\[32768,64,256,1\],\[8192,8192,64,1\]\], calls 5.50 µs to 5.75 µs" "$tmp/mod.txt" &&
  grep -q "strides \[\[32768,64,256,1\],\[8192,8192,64,1\]\], calls 5.50 µs to 5.75 µs" "$tmp/o-mod/trace.html" ||
  fail "the layout split of the rotary mul is not shown"
python3 "$src/tests/e2e/schema_check.py" "$src/docs/trace.schema.json" "$tmp/o-mod/trace.json" >/dev/null || fail "modules trace.json vs the schema"

# --steps N: one step's window.
"$lmroof" trace "$tmp/gpu.json" --steps 4 --out "$tmp/o-step" --format json > "$tmp/step.json" || fail "--steps 4 exited $?"
python3 - "$tmp/step.json" "$tmp/gpu.e.json" <<'PY' || fail "--steps 4 does not give step 4's window"
import json, sys
d, e = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = [s for s in e["window"]["steps"] if s["number"] == 4][0]
assert d["window"]["step_count"] == 1 and d["window"]["steps"][0]["number"] == 4, d["window"]
assert abs(d["window"]["total_s"] - want["duration_s"]) < 1e-12 and abs(d["window"]["busy_s"] - want["busy_s"]) < 1e-12, d["window"]
PY

# A CPU-only trace on measured roofs (--ceilings): device.source measured, fractions known.
"$lmroof" trace "$tmp/cpu.json" --ceilings "$src/tests/data/results_measured.json" --out "$tmp/o-ceil" --format json > "$tmp/ceil.json" ||
  fail "--ceilings exited $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["device"]["source"]=="measured" and any(o["fraction_of_roof"] is not None for o in d["ops"]), d["device"]' \
  "$tmp/ceil.json" || fail "--ceilings: roofs not measured"

# --ceilings: the fix-first fusion estimate checked on that results.json's own fused pairs
# (docs/trace.md "The fusion estimate, checked"): in trace.json, in the text and on the page.
example="$src/docs/examples/2026-12-05-cpu-amd-epyc-zen5-2core/results.json"
"$lmroof" trace "$tmp/cpu.json" --ceilings "$example" --out "$tmp/o-fcheck" > "$tmp/fcheck.txt" || fail "--ceilings (fusion check) exited $?"
python3 - "$tmp/o-fcheck/trace.json" "$tmp/fcheck.txt" <<'PY' || fail "fix_first_check"
import json, statistics, sys
c = json.load(open(sys.argv[1]))["fix_first_check"]
assert len(c["rows"]) == 10, len(c["rows"])  # norm: 2 ops x 3 shapes; stability: 4 tricks
errors = [r["estimate_s"] / r["fused_s"] - 1 for r in c["rows"]]
assert abs(statistics.median(abs(e) for e in errors) - c["median_abs_error"]) < 1e-12
assert abs(min(errors) - c["min_error"]) < 1e-12 and abs(max(errors) - c["max_error"]) < 1e-12
line = [l for l in open(sys.argv[2]) if "fusion estimate checked on" in l]
assert line and "10 fused pairs: median |error| " in line[0], line
PY
grep -q 'id="fix-first-check"' "$tmp/o-fcheck/trace.html" || fail "the page does not say the fusion check"

# --- the JSON names scripts rely on (docs/trace.schema.json's required lists) -------------
python3 "$src/tests/e2e/schema_check.py" "$src/docs/trace.schema.json" "$tmp/o-gpu/trace.json" "$tmp/o-ranks/trace.json" "$tmp/o-mixed/trace.json" "$tmp/o-fcheck/trace.json" ||
  fail "trace.json does not match the schema"
python3 -c 'import json,sys; assert "ranks" in json.load(open(sys.argv[1]))' "$tmp/o-ranks/trace.json" || fail "a ranked trace.json has no ranks"

# --- claims: built to hold and to fail --------------------------------------------------
gen --out "$tmp/norm-heavy.json" --norm-slowdown 8 --seq 32
"$lmroof" trace "$tmp/norm-heavy.json" --out "$tmp/o-heavy" > /dev/null || fail "trace (norm-heavy) exited $?"
cat > "$tmp/norm.yaml" <<'EOF'
claims:
  - id: normalization-cheap-flops-costly-time
    statement: Normalization layers are at most 1% of the FLOPs and at least 10% of the time.
    source: Stanford CS336 lecture 3
    check: {kind: class_share, class: normalization, flop_share: {max: 0.01}, time_share: {min: 0.10}}
EOF
"$lmroof" check "$tmp/norm.yaml" "$tmp/o-heavy/trace.json" > "$tmp/hold.txt"; rc=$?
[ "$rc" = 0 ] && grep -q "holds" "$tmp/hold.txt" || fail "the normalization claim should hold on the norm-heavy trace (exit $rc)"
# Normalization's share from the modules: the RMSNorm's eight primitives count as normalization.
"$lmroof" check "$tmp/norm.yaml" "$tmp/o-mod/trace.json" > "$tmp/hold-mod.txt"; rc=$?
[ "$rc" = 0 ] && grep -q "holds" "$tmp/hold-mod.txt" || fail "the normalization claim should hold on the modules fixture (exit $rc)"
"$lmroof" check "$tmp/norm.yaml" "$tmp/o-gpu/trace.json" > "$tmp/fails.txt"; rc=$?
[ "$rc" = 1 ] && grep -q "fails" "$tmp/fails.txt" || fail "the normalization claim should fail on the plain trace (exit $rc)"
"$lmroof" trace "$tmp/gpu.json" --out "$tmp/o-claims" --claims "$src/claims/trace-lecture3.yaml" > /dev/null; rc=$?
[ "$rc" = 1 ] || fail "trace --claims with a failing claim should exit 1, got $rc"
# The lecture's claim (normalization layers) fails on the plain trace; Ivanov's grouping
# counts the softmax with the norms and holds there; claims[] as results.json's.
python3 - "$tmp/o-claims/trace.json" <<'PY' || fail "trace.json claims[]"
import json, sys
verdicts = {c["id"]: c["verdict"] for c in json.load(open(sys.argv[1]))["claims"]}
assert verdicts == {"normalization-cheap-flops-costly-time": "fails", "statistical-normalizations-cheap-flops-costly-time": "holds",
                    "matmul-dominates-time": "fails"}, verdicts
PY
printf 'claims:\n  - id: x\n    statement: s\n    source: x\n    check: {kind: class_share, class: norms, time_share: {min: 0.1}}\n' > "$tmp/bad.yaml"
"$lmroof" check "$tmp/bad.yaml" "$tmp/o-gpu/trace.json" 2> "$tmp/err" >/dev/null; rc=$?
[ "$rc" = 2 ] && grep -q "bad.yaml:5: unknown class 'norms' in the lmroof grouping" "$tmp/err" || fail "a bad claims file: exit $rc, $(cat "$tmp/err")"

# --- compare -----------------------------------------------------------------------------
"$lmroof" compare "$tmp/o-gpu/trace.json" "$tmp/o-rocm/trace.json" --format json > "$tmp/cmp.json" || fail "compare exited $?"
# Each side's step time, busy time and fraction of roof per matched op shape, worked
# again here from the two trace.json files.
python3 - "$tmp/cmp.json" "$tmp/o-gpu/trace.json" "$tmp/o-rocm/trace.json" <<'PY' || fail "compare JSON"
import json, sys
d, a, b = (json.load(open(p)) for p in sys.argv[1:4])
assert d["schema"] == "lmroof.trace-compare/2" and d["classes"] and d["ops"], d.keys()
for side, t in (("base", a), ("new", b)):
    w = t["window"]
    step = w["total_s"] / w["step_count"] if w["kind"] == "steps" and w["step_count"] > 0 else None
    got = d[side]["step_time_s"]
    assert (got is None) == (step is None) and (step is None or abs(got - step) <= 1e-12 * step), (side, got, step)
    assert d[side]["busy_s"] == t["total_time_s"], side
def by_shape(t):
    out = {}
    for o in t["ops"]:
        k = (o["name"], json.dumps(o["input_dims"]), json.dumps(o["input_types"]))
        time, roof = out.get(k, (0.0, 0.0))
        out[k] = (time + o["time_s"], None if roof is None or o["roof_time_s"] is None else roof + o["roof_time_s"])
    return out
sa, sb = by_shape(a), by_shape(b)
matched = 0
for o in d["ops"]:
    k = (o["name"], json.dumps(o["input_dims"]), json.dumps(o["input_types"]))
    for side, shapes in (("base", sa), ("new", sb)):
        want = None
        if k in shapes and shapes[k][1] is not None and shapes[k][0] > 0:
            want = shapes[k][1] / shapes[k][0]
        got = o[side + "_fraction_of_roof"]
        assert (got is None) == (want is None) and (want is None or abs(got - want) <= 1e-9 * want), (k, side, got, want)
    matched += o["status"] == "both" and o["base_fraction_of_roof"] is not None
assert matched > 0, "no op shape matched with a roof on both sides"
PY
mkdir "$tmp/cmp-page"
"$lmroof" compare "$tmp/o-gpu/trace.json" "$tmp/o-rocm/trace.json" --html "$tmp/cmp-page/traces.html" > "$tmp/cmp.txt" 2> "$tmp/cmp.err" ||
  fail "compare --html exited $? $(cat "$tmp/cmp.err")"
grep -q "^step time: .* -> " "$tmp/cmp.txt" && grep -q "^busy time (summed over ops, whole window): " "$tmp/cmp.txt" &&
  ! grep -qi "total time" "$tmp/cmp.txt" || fail "compare text: step and busy time per side: $(head -5 "$tmp/cmp.txt")"
grep -q "base roof" "$tmp/cmp.txt" || fail "compare text has no fraction of roof per side"
grep -q "wrote $tmp/cmp-page/traces.html" "$tmp/cmp.err" && [ -s "$tmp/cmp-page/traces.html" ] || fail "compare --html wrote no page"
for id in sides classes ops chart-trace-compare-classes chart-trace-compare-roof; do
  grep -q "id=\"$id\"" "$tmp/cmp-page/traces.html" || fail "the compare page has no #$id"
done
"$lmroof" compare --help | grep -q "trace.json" || fail "compare --help does not name trace.json"
# --html checked as results' compare --html is: before reading, never an input, never a folder.
cp "$tmp/o-gpu/trace.json" "$tmp/cmp-page/input.json"; before=$(sha256sum < "$tmp/cmp-page/input.json")
"$lmroof" compare "$tmp/cmp-page/input.json" "$tmp/o-rocm/trace.json" --html "$tmp/cmp-page/input.json" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "this command's input" "$tmp/err" &&
  [ "$(sha256sum < "$tmp/cmp-page/input.json")" = "$before" ] || fail "compare --html onto an input: exit $rc, $(cat "$tmp/err")"
"$lmroof" compare "$tmp/o-gpu/trace.json" "$tmp/o-rocm/trace.json" --html "$tmp/cmp-page" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] || fail "compare --html onto a folder: exit $rc, $(cat "$tmp/err")"

# --- lmroof.trace/1 (shapes as JSON text in strings): check and compare say to migrate it;
#     migrate writes it as /2, the document lmroof trace writes now --------------------------
mkdir "$tmp/v1"
python3 - "$tmp/o-gpu/trace.json" "$tmp/v1/trace.json" <<'PY' || fail "writing a /1 trace.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "lmroof.trace/2" and any(isinstance(o["input_dims"], list) for o in d["ops"])
def text(v):
    return "" if v is None else json.dumps(v)
d["schema"] = "lmroof.trace/1"
for rows in [d["ops"]] + [w["ops"] for w in d.get("what_if", [])]:
    for o in rows:
        o["input_dims"], o["input_types"] = text(o["input_dims"]), text(o["input_types"])
json.dump(d, open(sys.argv[2], "w"))
PY
for cmd in "compare $tmp/v1/trace.json $tmp/o-gpu/trace.json" "check $src/claims/trace-lecture3.yaml $tmp/v1/trace.json"; do
  "$lmroof" $cmd > /dev/null 2> "$tmp/err"; rc=$?
  [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "v1/trace.json: schema: lmroof.trace/1 .*lmroof migrate" "$tmp/err" ||
    fail "$cmd of a /1 file: exit $rc, $(cat "$tmp/err")"
done
"$lmroof" migrate "$tmp/v1/trace.json" -o "$tmp/v1/migrated.json" > "$tmp/migrate.txt" 2>&1 || fail "migrate of a /1 trace.json: $(cat "$tmp/migrate.txt")"
python3 -c 'import json,sys; a, b = (json.load(open(p)) for p in sys.argv[1:3]); assert a == b, [k for k in a if a[k] != b.get(k)]' \
  "$tmp/v1/migrated.json" "$tmp/o-gpu/trace.json" || fail "the migrated /1 file is not the /2 document lmroof trace wrote"
"$lmroof" compare "$tmp/v1/migrated.json" "$tmp/o-gpu/trace.json" > /dev/null || fail "compare of a migrated file exited $?"
"$lmroof" migrate "$tmp/v1/migrated.json" -o "$tmp/v1/again.json" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "already lmroof.trace/2: nothing to migrate" "$tmp/err" || fail "migrate of a /2 file: exit $rc, $(cat "$tmp/err")"
json_text=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["ops"][0]["input_dims"]="[[2,"; print(json.dumps(d))' "$tmp/v1/trace.json")
printf '%s' "$json_text" > "$tmp/v1/bad.json"
"$lmroof" migrate "$tmp/v1/bad.json" -o "$tmp/v1/bad-out.json" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "bad.json: ops\[0\].input_dims: is not the JSON text of an array" "$tmp/err" &&
  [ ! -e "$tmp/v1/bad-out.json" ] || fail "migrate of a bad /1 field: exit $rc, $(cat "$tmp/err")"

# --- bad input: one line naming the file and place, exit 2, nothing written ---------------
bad() {  # bad NAME EXPECTED-TEXT ARGS...
  local name=$1 want=$2; shift 2
  "$lmroof" trace "$@" --out "$tmp/o-bad-$name" > /dev/null 2> "$tmp/err"; local rc=$?
  [ "$rc" = 2 ] || fail "$name: exit $rc, want 2"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$name: not one line: $(cat "$tmp/err")"
  grep -qF -- "$want" "$tmp/err" || fail "$name: '$(cat "$tmp/err")' lacks '$want'"
  [ ! -e "$tmp/o-bad-$name/trace.json" ] || fail "$name: trace.json written"
}
printf '{"traceEvents": []}' > "$tmp/plain.json.gz"
bad not-gzip "plain.json.gz: byte 0: not gzip" "$tmp/plain.json.gz"
printf '\x1f\x8b\x08\x00garbage-after-the-magic' > "$tmp/corrupt.json.gz"
bad corrupt-gzip "corrupt.json.gz: byte" "$tmp/corrupt.json.gz"
printf '{"traceEvents": [ {"ph": "X", "cat": "kernel", "ts": 1, "dur": oops} ]}' > "$tmp/notjson.json"
bad not-json 'not JSON' "$tmp/notjson.json"
grep -q 'traceEvents\[0\].dur' "$tmp/err" || fail "not-json: the field is not named: $(cat "$tmp/err")"
head -c 3000 "$tmp/gpu.json" > "$tmp/cut.json"
bad truncated "cut.json: byte 3000" "$tmp/cut.json"
head -c 2000 "$tmp/rocm.json.gz" > "$tmp/cut.json.gz"
bad truncated-gzip "truncated" "$tmp/cut.json.gz"
printf '{"schemaVersion": 1, "deviceProperties": []}' > "$tmp/none.json"
bad no-trace-events "none.json: traceEvents: missing" "$tmp/none.json"
bad unknown-device '--device: "Voodoo 2" is not in the device table' "$tmp/gpu.json" --device "Voodoo 2"
bad bad-ceilings "--ceilings: $tmp/gpu.json: not an lmroof results.json" "$tmp/gpu.json" --ceilings "$tmp/gpu.json"
bad missing-step "--steps 99" "$tmp/gpu.json" --steps 99
# Not a regular file (a FIFO would hang a reader, /dev/zero never ends), and nesting no
# profiler writes (the parser is iterative, and refuses past 64 levels).
mkfifo "$tmp/fifo.json"
bad fifo "fifo.json: is not a regular file" "$tmp/fifo.json"
bad dev-zero "/dev/zero: is not a regular file" /dev/zero
python3 -c 'import sys; n=200000; open(sys.argv[1],"w").write("{\"traceEvents\":" + "["*n + "]"*n + "}")' "$tmp/deep.json"
bad deep-nesting "deep.json: byte" "$tmp/deep.json"
grep -q "nested deeper than 64 levels" "$tmp/err" || fail "deep-nesting: $(cat "$tmp/err")"
# Wrong types in an event's fields are counted as anomalies, never a crash or a guess.
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":"x","dur":[1],"args":{"Input Dims":"no"}}]}' > "$tmp/types.json"
"$lmroof" trace "$tmp/types.json" --format json --out "$tmp/o-types" > "$tmp/types.out" 2> "$tmp/err" \
  && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["anomalies"], d' "$tmp/o-types/trace.json" \
  || fail "wrong types: not counted as anomalies: $(cat "$tmp/err")"
# An output that is an input is refused before reading.
cp "$tmp/gpu.json" "$tmp/o-in/trace.json" 2>/dev/null || { mkdir -p "$tmp/o-in" && cp "$tmp/gpu.json" "$tmp/o-in/trace.json"; }
"$lmroof" trace "$tmp/o-in/trace.json" --out "$tmp/o-in" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "is trace.json in --out" "$tmp/err" || fail "an output naming the input: exit $rc, $(cat "$tmp/err")"
cmp -s "$tmp/gpu.json" "$tmp/o-in/trace.json" || fail "the input was overwritten"

# --- tolerated: counted in anomalies, never a crash --------------------------------------
cat > "$tmp/odd.json" <<'EOF'
{"deviceProperties": [{"name": "Some Future GPU"}], "traceEvents": [
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":10,"args":{"External id":9223372036854775808,"Input Dims":[[4,4],[4,4],[]],"Input type":["c10::Float4_e2m1","c10::Float4_e2m1","Scalar"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":9223372036854775808}},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":5,"args":{"correlation":9223372036854775808,"stream":7}},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":5,"args":{"correlation":9223372036854775808,"stream":7}},
{"ph":"X","cat":"kernel","name":"neg","pid":0,"tid":7,"ts":30,"dur":-1,"args":{"correlation":3}},
{"ph":"X","cat":"kernel","name":"nodur","pid":0,"tid":7,"ts":40},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":50,"dur":10,"args":{"Input Dims":"[[4,4]","Input type":["float"]}},
{"ph":"s","cat":"ac2g","id":77,"pid":1,"tid":1,"ts":1}
]}
EOF
"$lmroof" trace "$tmp/odd.json" --out "$tmp/o-odd" > "$tmp/odd.txt" 2>&1 || fail "tolerated oddities: exit $?"
python3 - "$tmp/o-odd/trace.json" <<'PY' || fail "tolerated oddities are not all counted"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {a["kind"]: a["count"] for a in d["anomalies"]}
for k in ("negative durations (taken as 0)", "kernel events without dur (ignored)", "duplicate events (counted once)",
          "flows that link nothing (ignored)", "unknown dtypes (bytes unknown)"):
    assert kinds.get(k) == 1, (k, kinds)
assert d["device"]["table_name"] is None and "Some Future GPU" in d["device"]["why_unknown"], d["device"]
add = [o for o in d["ops"] if o["name"] == "aten::add"][0]
assert add["bytes"] is None and abs(add["device_time_s"] - 5e-6) < 1e-15 and add["fraction_of_roof"] is None, add
PY

[ "$failures" = 0 ] && echo "ok: lmroof trace" || { echo "$failures failure(s)"; exit 1; }
