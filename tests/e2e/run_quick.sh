#!/usr/bin/env bash
# `lmroof run --quick` end to end on the CPU: results.json follows the schema's
# essentials, every pair is present, the report and bench JSON exist, and a
# second run over the same folder replaces results atomically.
# Usage: run_quick.sh LMROOF SOURCE_DIR
set -euo pipefail
lmroof="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
