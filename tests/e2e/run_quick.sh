#!/usr/bin/env bash
# `lmroof run --quick` end to end on the CPU: results.json follows the schema's
# essentials, every pair is present, the report and bench JSON exist, and a
# second run over the same folder replaces results atomically.
# Usage: run_quick.sh LMROOF SOURCE_DIR
set -euo pipefail
lmroof="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
"$lmroof" run --quick --backend cpu --out "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr" || {
  echo "FAIL: lmroof run --quick exited $?"; cat "$tmp/stderr"; exit 1; }
for f in results.json report.html bench.json; do
  [ -s "$tmp/out/$f" ] || { echo "FAIL: out/$f missing"; exit 1; }
done
ls "$tmp/out" | grep -q 'partial\|\.tmp' && { echo "FAIL: temporary files left behind"; ls "$tmp/out"; exit 1; }
grep -q '\[ *[0-9]*/[0-9]*' "$tmp/stderr" || { echo "FAIL: no progress lines on stderr"; exit 1; }
"$lmroof" list --json > "$tmp/pairs.json"
python3 - "$tmp/out/results.json" "$tmp/pairs.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "lmroof.results/1", r["schema"]
pairs = {run["pair"] for run in r["runs"]}
registered = {p["pair"] for p in json.load(open(sys.argv[2]))["pairs"]}  # every pair the registry lists
assert pairs == registered, (pairs, registered)
names = {c["name"] for c in r["ceilings"]}
assert {"copy", "copy_nt", "triad", "fp32_fma", "sgemm", "launch", "launch_kernel"} <= names, names
for c in r["ceilings"]:
    assert c["source"] == "measured" and c["value"] > 0, c
    if c["name"].startswith("launch"):  # t0: a median in seconds, microseconds on any CPU
        assert (c["kind"], c["unit"], c["statistic"]) == ("latency", "s", "median"), c
        assert 1e-8 < c["value"] < 1e-2, c
assert r["roofs"]["launch"] == "launch", r["roofs"]
for run in r["runs"]:
    assert run["time_s"]["median"] > 0 and run["time_s"]["samples"], run["id"]
    assert run["bytes"]["minimum"] > 0 and run["bytes"]["model"] >= run["bytes"]["minimum"], run["id"]
    assert run["bytes"]["measured"] is None, run["id"]
    assert run["bound"] in ("memory", "compute", "latency"), run["id"]
    t0 = run["roofline"]["launch"]
    assert (run["bound"] == "latency") == (run["time_s"]["median"] <= 2 * t0), (run["id"], t0)
assert r["comparisons"], "no comparisons"
assert r["metrics"]["source"] == "analytic" and r["metrics"]["reason"]
print("ok:", len(r["runs"]), "runs,", len(r["comparisons"]), "comparisons")
PY

# ---- issue 38 item 15: --benchmark_filter chooses runs, never the ceilings silently ------
"$lmroof" run --quick --backend cpu --suite norm --no-claims --benchmark-flag=--benchmark_filter=rmsnorm/fused \
  --out "$tmp/filtered" > /dev/null 2> "$tmp/filtered.err" || { echo "FAIL: run with --benchmark_filter=rmsnorm/fused"; cat "$tmp/filtered.err"; exit 1; }
python3 - "$tmp/filtered/results.json" "$tmp/filtered/bench.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert {run["variant"] + "/" + run["impl"] for run in r["runs"]} == {"rmsnorm/fused"}, [run["id"] for run in r["runs"]]
names = {c["name"] for c in r["ceilings"]}
assert {"copy", "fp32_fma", "sgemm"} <= names, f"the filter dropped ceilings: {names}"
assert r["roofs"].get("bandwidth") and all(run["roofline"].get("bandwidth") for run in r["runs"]), "a run judged against no roof"
assert b["context"]["lmroof_benchmark_filter"] == "--benchmark_filter=rmsnorm/fused", b["context"].get("lmroof_benchmark_filter")
print("ok: --benchmark_filter=rmsnorm/fused ran", len(r["runs"]), "run(s) and", len(names), "ceilings")
PY
# A negative filter that excludes the ceilings: the run says so plainly.
"$lmroof" run --quick --backend cpu --suite norm --no-claims '--benchmark-flag=--benchmark_filter=-ceiling|layernorm|unfused|paired' \
  --out "$tmp/noceil" > /dev/null 2> "$tmp/noceil.err" || true
grep -q "warning: no ceiling was measured (--benchmark_filter=-ceiling|layernorm|unfused|paired excluded them all)" "$tmp/noceil.err" ||
  { echo "FAIL: a run without ceilings does not say so: $(tail -3 "$tmp/noceil.err")"; exit 1; }
echo "ok: a filter that excludes every ceiling is said plainly"
# ---- end issue 38 item 15 ----------------------------------------------------------------
