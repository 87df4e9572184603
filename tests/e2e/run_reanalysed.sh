#!/usr/bin/env bash
# `lmroof run` is a straight line (issue 36): measure (the suite, its paired rounds and
# the re-measurement's extra rounds, joined in memory), build the results once from all
# rounds, check the claims, publish. bench.json, written once and whole, stays the only
# contract between measuring and analysing: `lmroof analyze` of the run's bench.json
# gives the run's results.json, but for the time of the analysis, re-measurement rounds
# included. A hidden flag (--remeasure-every-comparison, not in --help) makes sure a
# re-measurement happens, whatever the claims say on this machine.
# Usage: run_reanalysed.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$lmroof" run --help | grep -q -- "--remeasure-every-comparison" && fail "the test-only flag shows in lmroof run --help"

timeout 600 "$lmroof" run --quick --backend cpu --suite norm --remeasure-budget 60 --remeasure-every-comparison \
  --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: lmroof run exited $rc"; tail -5 "$tmp/stderr"; exit 1; }
line=$(grep -E "^(re-measured|timed a second sitting of) " "$tmp/stdout") || { echo "FAIL: the run re-measured nothing"; tail -5 "$tmp/stdout"; exit 1; }
echo "run: $line"
grep -qE "re-measuring up to|a second sitting of every paired comparison" "$tmp/stderr" || fail "no progress line for the re-measurement on stderr"
ls -A "$tmp/out" | grep -q 'remeasure\|\.merge\|partial\|\.tmp' && fail "temporary files left in --out: $(ls -A "$tmp/out")"

timeout 120 "$lmroof" analyze "$tmp/out/bench.json" -o "$tmp/analyzed.json" >/dev/null 2>"$tmp/analyze.err" ||
  { echo "FAIL: lmroof analyze of the run's bench.json: $(cat "$tmp/analyze.err")"; exit 1; }

python3 - "$tmp/out/results.json" "$tmp/analyzed.json" "$tmp/out/bench.json" "$line" <<'PY' || fail "see above"
import json, re, sys
run, analyzed, bench, line = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
# The extra rounds are in bench.json, marked, as many as the run says it took.
extra = [b for b in bench["benchmarks"] if b.get("paired_extra") == 1 and b.get("run_type", "iteration") == "iteration"]
said = int(re.search(r"(\d+) more paired rounds", line).group(1))
assert said > 0 and len(extra) == said, f"bench.json holds {len(extra)} extra rounds, the run says {said}"
# ... and the results use them.
assert any(c["paired"] and c["paired"].get("extra_rounds", 0) > 0 for c in run["comparisons"] if c.get("paired")), \
    "no comparison of the run counts an extra round"
# Each comparison timed in two sittings lists both sittings' speedups, inside its interval.
for c in run["comparisons"]:
    p = c.get("paired")
    if p and 0 < p.get("extra_rounds", 0) < p["rounds"]:
        assert len(p.get("sittings", [])) == 2, c
        assert all(p["low"] <= s <= p["high"] for s in p["sittings"]), p
for doc in (run, analyzed):
    doc["machine"].pop("date", None)  # when the analysis ran
diff = [k for k in sorted(set(run) | set(analyzed)) if run.get(k) != analyzed.get(k)]
assert not diff, f"results.json of the run and of `lmroof analyze` of its bench.json differ in {diff}"
assert run["claims"], "the run checked no claims"
print(f"ok: analyze of the run's bench.json ({len(extra)} extra rounds) gives the run's results.json, "
      f"{len(run['runs'])} runs, {len(run['comparisons'])} comparisons, {len(run['claims'])} claims")
PY

[ "$failures" = 0 ] || exit 1
echo "ok"
