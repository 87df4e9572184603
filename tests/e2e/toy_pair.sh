#!/usr/bin/env bash
# A pair added to the registry shows everywhere with its title and no other edit:
# build/lmroof_with_toy_pair is the CLI plus tests/toy_pair/toy_pair.cpp, which
# registers the pair 'toy(v2)' ("Toy pair: scale vs copy") from outside kernels/.
# `list`, a run's report and results, and a claim on the pair must all carry it.
# Usage: toy_pair.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof=$1
toy="$(dirname "$lmroof")/lmroof_with_toy_pair"
[ -x "$toy" ] || { echo "skip: $toy was not built"; exit 77; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

"$toy" list >"$tmp/list.txt" 2>&1 || fail "list exited $?"
grep -q "^toy(v2): Toy pair: scale vs copy" "$tmp/list.txt" || fail "list does not show the toy pair with its title"
# (captured first: under pipefail `list | grep -q` can read as "not found" when grep
# exits on its match before `list` finishes writing)
plain_list=$("$lmroof" list)
grep -q "toy(v2)" <<< "$plain_list" && fail "the plain lmroof lists the toy pair"

cat >"$tmp/toy.yaml" <<'YAML'
claims:
  - id: toy-scale-moves-copy-bytes
    statement: Scaling moves the bytes a copy moves.
    source: tests/toy_pair/toy_pair.cpp (cost model)
    check:
      kind: ratio
      candidate: {pair: toy(v2), variant: scale, impl: plain}
      baseline: {pair: toy(v2), variant: copy, impl: plain}
      metric: bytes.model
      range: [1.0, 1.0]
YAML
# The toy pair's impl "broken" (scale by 2.002) is a fault injected only in this binary:
# `run` validates every kernel against its float64 reference before timing it, refuses
# to time that one with a one-line reason, times the others, and exits 1 as it does
# whenever a benchmark could not run.
broken='toy(v2)/scale/broken/cpu/fp32/n:65536'
# --model gpt2: the toy pair declares a model mapping (PairDef::model_mapping), so its
# runs are predicted with no edit in analysis/.
"$toy" run --quick --backend cpu --suite 'toy(v2)' --min-time 0.002 --repetitions 3 --claims "$tmp/toy.yaml" \
  --model gpt2 --out "$tmp/out" >"$tmp/run.log" 2>"$tmp/run.err"
rc=$?
[ "$rc" = 1 ] || { fail "run exited $rc, expected 1 (the broken kernel could not run)"; tail -5 "$tmp/run.err"; }
grep -Eq "^\[ *[0-9]+/[0-9]+ +[0-9]+s\] $(sed 's/[()]/\\&/g' <<< "$broken") +skipped: failed validation: error 0.001 against float64 > tolerance 1e-05 at n=[0-9]+ \(seed [0-9]+\)$" "$tmp/run.err" ||
  fail "the progress does not show the broken kernel skipped with its one-line reason: $(grep broken "$tmp/run.err")"
grep -Eq "^  $(sed 's/[()]/\\&/g' <<< "$broken"): failed validation: " "$tmp/run.err" ||
  fail "the summary of what could not run does not name the broken kernel: $(tail -3 "$tmp/run.err")"
grep -q "failed validation" "$tmp/out/report.html" || fail "the report does not show the broken kernel as not timed"
grep -q "Toy pair: scale vs copy" "$tmp/out/report.html" || fail "the report does not title the toy pair"
python3 - "$tmp/out/results.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
pairs = {p["name"]: p for p in r["catalogue"]["pairs"]}
assert pairs["toy(v2)"]["title"] == "Toy pair: scale vs copy", pairs.get("toy(v2)")
assert {x["pair"] for x in r["runs"]} == {"toy(v2)"}, "runs of the toy pair"
assert all(x["impl"] != "broken" for x in r["runs"]), "the broken kernel was timed"
# (skipped ids keep Google Benchmark's suffixes: ".../n:65536/min_time:0.002/repeats:3/real_time")
assert [s["id"].split("/min_time:")[0] for s in r["skipped"]] == ["toy(v2)/scale/broken/cpu/fp32/n:65536"], r["skipped"]
reason = r["skipped"][0]["reason"]
assert reason.startswith("failed validation: error 0.001 against float64 > tolerance 1e-05 at n=") and "\n" not in reason, reason
for x in r["runs"]:
    v = x["validated"]
    assert v and 0 <= v["error"] <= v["tolerance"] == 1e-05 and v["shapes"] >= 1 and "n" in v["shape"], (x["id"], v)
print("ok: every timed run of results.json has validated; the broken kernel is skipped with its reason")
assert any(c["pair"] == "toy(v2)" for c in r["comparisons"]), "no comparison of the toy pair"
v = {c["id"]: c["verdict"] for c in r["claims"]}
assert v.get("toy-scale-moves-copy-bytes") == "holds", v
print("ok: the toy pair is in results.json's catalogue, runs, comparisons and claims")
assert pairs["toy(v2)"]["model_mapping"]["ops"] == ["mlp_act"], pairs["toy(v2)"].get("model_mapping")
for x in r["runs"]:
    p = x.get("predicted")
    assert p and p["time_s"] > 0 and p["ops"] == "mlp_act", (x["id"], p)
print("ok: every toy run is predicted from the pair's own model mapping")
chart = pairs["toy(v2)"]["chart"]
import os
assert os.path.isfile(os.path.join(os.path.dirname(sys.argv[1]), f"report.{chart}.vl.json")), f"no chart {chart}"
print(f"ok: the toy pair has its chart report.{chart}.vl.json")
PY
grep -q "predicted by \`lmroof predict\`'s per-op model" "$tmp/run.log" || fail "the run prints no predicted-vs-measured table"
grep -q 'Predicted against measured' "$tmp/out/report.html" || fail "the report has no predicted-vs-measured table"
"$toy" check "$tmp/toy.yaml" "$tmp/out/results.json" >"$tmp/check.txt" 2>&1 || fail "check exited $?"
grep -q "toy-scale-moves-copy-bytes" "$tmp/check.txt" || fail "check does not show the toy claim"
[ "$failures" = 0 ] && echo "ok: a pair added to the registry shows in list, report, results and claims; its broken kernel is not timed" || exit 1
