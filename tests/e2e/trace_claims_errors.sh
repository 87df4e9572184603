#!/usr/bin/env bash
# Trace claims through the one strict claims loader (issue 47 #8, #9, #10; issue 43 "One
# model, one checker"): `lmroof check CLAIMS trace.json` and `lmroof trace --claims`
# refuse every bad claims file in one line, "FILE:LINE: problem", exit 2: NaN and
# infinite bounds, min above max, a metric twice, unknown fields, an id holding ESC, a
# mapping where a string belongs (#8), YAML aliases and an oversized file (#9), and a
# Latin-1 byte, refused before the trace is read (#10). Good files are judged and shown
# in the formats the results' claims use.
#   bash tests/e2e/trace_claims_errors.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: trace_claims_errors.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: trace_claims_errors.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3

python3 "$src/scripts/gen_trace.py" --out "$tmp/t.json" --steps 2 || fail "gen_trace.py"
timeout 60 "$lmroof" trace "$tmp/t.json" --out "$tmp/o" >/dev/null || fail "trace exited $?"
trace_json="$tmp/o/trace.json"

# claim FILE CHECK [ID]: a claims file of one claim with this check (a flow mapping), line 5
claim() { printf 'claims:\n  - id: %s\n    statement: s\n    source: x\n    check: %s\n' "${3:-c}" "$2" >"$tmp/$1"; }

# --- #8: each bad input, one line naming the file and the line ---------------------------
claim nan.yaml '{kind: class_share, class: normalization, time_share: {min: .nan}}'
expect_error 2 "nan\.yaml:5: 'time_share\.min' must be a number, got '\.nan'" -- check "$tmp/nan.yaml" "$trace_json"
claim inf.yaml '{kind: class_share, class: normalization, time_share: {max: .inf}}'
expect_error 2 "inf\.yaml:5: 'time_share\.max' must be a number, got '\.inf'" -- check "$tmp/inf.yaml" "$trace_json"
claim minmax.yaml '{kind: class_share, class: normalization, time_share: {min: 0.5, max: 0.1}}'
expect_error 2 "minmax\.yaml:5: 'time_share' has min 0\.5 > max 0\.1" -- check "$tmp/minmax.yaml" "$trace_json"
claim twice.yaml '{kind: class_share, class: normalization, time_share: {min: 0.1}, time_share: {max: 0.9}}'
expect_error 2 "twice\.yaml:5: field 'time_share' appears twice" -- check "$tmp/twice.yaml" "$trace_json"
claim unknown.yaml '{kind: class_share, class: normalization, time_shares: {min: 0.1}}'
expect_error 2 "unknown\.yaml:5: unknown field 'time_shares' in a class_share check" -- check "$tmp/unknown.yaml" "$trace_json"
claim esc.yaml '{kind: class_share, class: matmul, time_share: {min: 0.5}}' '"norm\eclaim"'
expect_error 2 "esc\.yaml:2: a claim id holds U\+001B" -- check "$tmp/esc.yaml" "$trace_json"
grep -q $'\x1b' <<<"$(timeout 60 "$lmroof" check "$tmp/esc.yaml" "$trace_json" 2>&1)" && fail "the ESC of an id is printed raw"
claim map.yaml '{kind: class_share, class: {name: matmul}, time_share: {min: 0.5}}'
expect_error 2 "map\.yaml:5: 'class' must be a string" -- check "$tmp/map.yaml" "$trace_json"
printf 'claims:\n  - id: c\n    statement: {a: b}\n    source: x\n    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n' >"$tmp/map2.yaml"
expect_error 2 "map2\.yaml:3: 'statement' must be a string" -- check "$tmp/map2.yaml" "$trace_json"
claim kind.yaml '{kind: bound, run: {pair: norm}, expect: memory}'
expect_error 2 "kind\.yaml:5: a bound check is checked against a results\.json" -- check "$tmp/kind.yaml" "$trace_json"
# the same loader for trace --claims
expect_error 2 "nan\.yaml:5: 'time_share\.min' must be a number" -- trace "$tmp/t.json" --out "$tmp/o2" --claims "$tmp/nan.yaml"

# --- #9: aliases and an oversized file -----------------------------------------------------
python3 - "$tmp/alias.yaml" <<'PY'
import sys
# 107 kB of aliases to a 1 kB anchor (issue 47: peak memory 234 -> 448 MB, exit 0)
lines = ["x: &a " + "y" * 1000, "claims:"]
lines += ["  - {id: c%d, statement: *a, source: *a, check: {kind: class_share, class: matmul, time_share: {min: 0.5}}}" % i
          for i in range(1000)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect_error 2 "alias\.yaml:3: a YAML alias" -- check "$tmp/alias.yaml" "$trace_json"
{ cat "$src/claims/trace-lecture3.yaml"; head -c $((17 << 20)) /dev/zero | tr '\0' '#'; echo; } >"$tmp/big.yaml"
expect_error 2 "big\.yaml: .*larger than the 16777216 byte limit" -- check "$tmp/big.yaml" "$trace_json"

# --- #10: a Latin-1 byte, refused before the trace is read ---------------------------------
printf 'claims:\n  - id: c\n    statement: "Normalisierung gro\xdf"\n    source: x\n    check: {kind: class_share, class: matmul, time_share: {min: 0.5}}\n' >"$tmp/latin1.yaml"
expect_error 2 "latin1\.yaml:3: invalid UTF-8 \(byte 0xDF\)" -- check "$tmp/latin1.yaml" "$trace_json"
# the trace here is not a trace at all: reading it first would name it, not the claims file
printf 'not a trace' >"$tmp/not-a-trace.json"
expect_error 2 "latin1\.yaml:3: invalid UTF-8 \(byte 0xDF\)" -- trace "$tmp/not-a-trace.json" --out "$tmp/o3" --claims "$tmp/latin1.yaml"
[ -e "$tmp/o3/trace.json" ] && fail "trace wrote outputs after a bad claims file"

# --- good files: judged, in the results' claims formats --------------------------------------
timeout 60 "$lmroof" check "$src/claims/trace-lecture3.yaml" "$trace_json" --format json >"$tmp/check.json"; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "check of the lecture's trace claims exited $rc"
python3 - "$tmp/check.json" <<'PY' || fail "check --format json of trace claims"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "lmroof.check/1", d["schema"]
by_id = {c["id"]: c for c in d["claims"]}
assert set(by_id) == {"normalization-cheap-flops-costly-time", "statistical-normalizations-cheap-flops-costly-time",
                      "matmul-dominates-time"}, by_id.keys()
for c in d["claims"]:
    assert c["kind"] == "class_share" and c["verdict"] in ("holds", "fails", "not measured"), c
    assert c["expected"] and c["measured"], c
    assert (c["cause"] is not None) == (c["verdict"] == "fails"), c
iv = by_id["statistical-normalizations-cheap-flops-costly-time"]
doc = json.load(open(sys.argv[1].replace("check.json", "o/trace.json")))
if "ivanov_classes" not in doc:  # a trace.json without Ivanov's table: said, not guessed
    assert iv["verdict"] == "not measured" and "ivanov_classes" in iv["reason"], iv
PY
timeout 60 "$lmroof" check "$src/claims/trace-lecture3.yaml" "$trace_json" --format markdown >"$tmp/check.md"
grep -q "^| " "$tmp/check.md" || fail "check --format markdown of trace claims has no table"
timeout 60 "$lmroof" check "$src/claims/trace-lecture3.yaml" "$trace_json" >"$tmp/check.txt"
grep -q "^trace: " "$tmp/check.txt" && grep -q "matmul-dominates-time" "$tmp/check.txt" || fail "check's text of trace claims: $(head -5 "$tmp/check.txt")"

[ "$failures" = 0 ] && echo "trace_claims_errors: all checks passed" || { echo "trace_claims_errors: $failures failures"; exit 1; }
