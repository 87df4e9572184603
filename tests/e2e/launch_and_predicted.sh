#!/usr/bin/env bash
# Issue #27, parts 3 and 5, end to end on the CPU: `lmroof ceilings` prints the launch
# ceilings (t0) in seconds; `lmroof run --quick --model` predicts its attention, MLP
# and block runs with `lmroof predict`'s model from its own ceilings and writes
# predicted against measured into results.json, the text output and the report.
# Usage: launch_and_predicted.sh LMROOF SOURCE_DIR
set -euo pipefail
lmroof="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
fail() { echo "FAIL: $*"; exit 1; }

"$lmroof" ceilings --quick --backend cpu > "$tmp/ceilings.txt" 2> "$tmp/ceilings.err" ||
  fail "lmroof ceilings exited $?: $(tail -3 "$tmp/ceilings.err")"
grep -Eq '^launch +[0-9.]+ (n|µ|m)?s +empty OpenMP parallel region' "$tmp/ceilings.txt" ||
  fail "ceilings does not print the launch ceiling: $(cat "$tmp/ceilings.txt")"
grep -Eq '^launch_kernel +[0-9.]+ (n|µ|m)?s +one call of the smallest kernel' "$tmp/ceilings.txt" ||
  fail "ceilings does not print the smallest kernel's launch"
grep -q 'median of' "$tmp/ceilings.txt" || fail "the launch ceiling does not say it is a median"

# gpt2, the smallest preset (d 768), without the paired rounds: the predictions, not the
# comparisons, are under test, and this keeps the run to about a minute on two cores.
"$lmroof" run --quick --backend cpu --model gpt2 --suite attention,mlp,block --no-claims \
  --benchmark-flag=--benchmark_filter=-paired/ --out "$tmp/out" \
  > "$tmp/run.txt" 2> "$tmp/run.err" || fail "lmroof run exited $?: $(tail -3 "$tmp/run.err")"
grep -q "predicted by \`lmroof predict\`'s per-op model" "$tmp/run.txt" || fail "the run prints no predicted-vs-measured table"
grep -q 'Predicted against measured' "$tmp/out/report.html" || fail "the report has no predicted-vs-measured table"
python3 - "$tmp/out/results.json" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))
predicted = [x for x in r["runs"] if x.get("predicted")]
pairs = {x["pair"] for x in predicted}
assert pairs == {"attention", "mlp", "block"}, pairs
for x in r["runs"]:
    p = x.get("predicted")
    assert p or x["pair"] not in pairs, ("not predicted", x["id"])
    if not p:
        continue
    assert p["time_s"] > 0 and p["bound"] in ("memory", "compute", "latency"), p
    m = x["time_s"]["median"]
    assert math.isclose(p["error"], (p["time_s"] - m) / m, rel_tol=1e-6), (x["id"], p)
    assert p["ops"] and "t0" in p["basis"], p
print(f"ok: {len(predicted)} runs predicted")
PY
