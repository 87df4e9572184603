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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

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
"$toy" run --quick --backend cpu --suite 'toy(v2)' --min-time 0.002 --repetitions 3 --claims "$tmp/toy.yaml" \
  --out "$tmp/out" >"$tmp/run.log" 2>&1 || { fail "run exited $?"; tail -5 "$tmp/run.log"; }
grep -q "Toy pair: scale vs copy" "$tmp/out/report.html" || fail "the report does not title the toy pair"
python3 - "$tmp/out/results.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
pairs = {p["name"]: p for p in r["catalogue"]["pairs"]}
assert pairs["toy(v2)"]["title"] == "Toy pair: scale vs copy", pairs.get("toy(v2)")
assert {x["pair"] for x in r["runs"]} == {"toy(v2)"}, "runs of the toy pair"
assert any(c["pair"] == "toy(v2)" for c in r["comparisons"]), "no comparison of the toy pair"
v = {c["id"]: c["verdict"] for c in r["claims"]}
assert v.get("toy-scale-moves-copy-bytes") == "holds", v
print("ok: the toy pair is in results.json's catalogue, runs, comparisons and claims")
PY
"$toy" check "$tmp/toy.yaml" "$tmp/out/results.json" >"$tmp/check.txt" 2>&1 || fail "check exited $?"
grep -q "toy-scale-moves-copy-bytes" "$tmp/check.txt" || fail "check does not show the toy claim"
[ "$failures" = 0 ] && echo "ok: a pair added to the registry shows in list, report, results and claims" || exit 1
