#!/usr/bin/env bash
# `lmroof check` output formats and exit codes on a results file with claims of every
# verdict (tests/data/claims/results-small.json and the test claims):
#   --format json      validates against docs/check-output.schema.json (python3 jsonschema)
#   --format markdown  a table: header, separator, one row per claim
#   --format text      each claim's block starts with its verdict; nothing is cut ("...")
#   --strict           exits 1 when a claim is inconclusive, where plain check exits 0
#   analyze            requires -o, writes the built-in claims' verdicts (--no-claims: none),
#                      whose noise is their comparison's noise
# Usage: check_formats.sh LMROOF SOURCE_DIR (exit 77 = skipped, reason printed)
set -uo pipefail
lmroof=$1
src=$2
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
results=$src/tests/data/claims/results-small.json
# A claims file whose verdicts are all inconclusive or holding, none failing.
claims=$src/tests/data/claims/faster.yaml
[ -f "$results" ] && [ -f "$claims" ] || { echo "FAIL: test data missing"; exit 1; }

"$lmroof" check --format json "$claims" "$results" >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "check --format json exited $rc: $(cat "$tmp/err")"
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$src/docs/check-output.schema.json" "$tmp/out.json" "$rc" <<'PY' || fail "the JSON output does not validate"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
assert doc["exit_code"] == int(sys.argv[3]), "exit_code field differs from the exit code"
counted = sum(sum(t.values()) for t in doc["summary"].values())
assert counted == len(doc["claims"]), f"summary counts {counted}, claims {len(doc['claims'])}"
order = {"fails": 0, "inconclusive": 1, "not measured": 2, "holds": 3}
ranks = [order[c["verdict"]] for c in doc["claims"]]
assert ranks == sorted(ranks), "claims are not listed failing first"
print("ok: json validates,", len(doc["claims"]), "claims")
PY
else
  echo "note: python3 jsonschema missing; JSON parsed only"
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out.json" || fail "not JSON"
fi

"$lmroof" check --format markdown "$claims" "$results" >"$tmp/out.md"
n_claims=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["claims"]))' "$tmp/out.json")
grep -q '^| verdict | claim | evidence | expected | measured |$' "$tmp/out.md" || fail "markdown: no table header"
grep -q '^|---|---|---|---|---|$' "$tmp/out.md" || fail "markdown: no separator row"
rows=$(grep -c '^| .* |$' "$tmp/out.md")
[ "$rows" = $((n_claims + 1)) ] || fail "markdown: $rows table lines (header and rows) for $n_claims claims"
while IFS= read -r line; do
  cells=$(sed 's/\\|//g' <<< "$line" | tr -cd '|' | wc -c)
  [ "$cells" = 6 ] || fail "markdown row with $((cells - 1)) cells: $line"
done < <(grep '^| ' "$tmp/out.md")

NO_COLOR=1 COLUMNS=80 "$lmroof" check "$claims" "$results" >"$tmp/out.txt"
plain_rc=$?
grep -q $'\033' "$tmp/out.txt" && fail "text output has colour codes when not on a terminal"
grep -Eq '^(HOLDS\??|FAILS|INCONCLUSIVE|NOT MEASURED) ' "$tmp/out.txt" || fail "text: no line starts with a verdict"
grep -q '\.\.\.$' "$tmp/out.txt" && fail "text: a line was cut"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$tmp/out.txt" || fail "text: a line is wider than COLUMNS=80"
grep -Eq '^[0-9]+ claims?: measured: ' "$tmp/out.txt" || fail "text: no summary line"

# On a terminal (a pseudo-terminal from util-linux `script`): colour, unless NO_COLOR is set.
if command -v script >/dev/null 2>&1; then
  cmd="$(printf '%q ' "$lmroof" check "$claims" "$results")"
  n=$(env -u NO_COLOR script -qec "$cmd" /dev/null | grep -c $'\033\[')
  [ "$n" -gt 0 ] || fail "no colour on a terminal"
  n=$(NO_COLOR=1 script -qec "$cmd" /dev/null | grep -c $'\033\[')
  [ "$n" = 0 ] || fail "colour on a terminal although NO_COLOR is set"
fi

"$lmroof" check --strict "$claims" "$results" >/dev/null
strict_rc=$?
if grep -q '^INCONCLUSIVE ' "$tmp/out.txt"; then
  [ "$strict_rc" = 1 ] || fail "--strict exited $strict_rc with an inconclusive claim"
  if ! grep -q '^FAILS ' "$tmp/out.txt"; then
    [ "$plain_rc" = 0 ] || fail "plain check exited $plain_rc with nothing failing"
  fi
else
  fail "the test claims have no inconclusive verdict; --strict untested"
fi
"$lmroof" check --format yaml "$results" >/dev/null 2>&1
[ $? = 2 ] || fail "--format yaml should be bad input (exit 2)"
# `analyze` requires -o and checks the built-in claims, so analyze -> report shows them;
# each faster claim's noise is its comparison's noise (one figure per comparison),
# widened by the comparison's machine_drift where it has one.
# The newest example timed without paired rounds: there a claim's interval is its
# comparison's bootstrap one (with paired rounds the rounds decide, tests/test_claims_paired.cpp).
bench=$(grep -L '"paired/' "$src"/docs/examples/*/bench.json 2>/dev/null | sort | tail -1)
if [ -n "$bench" ]; then
  example_bench "$bench" "$tmp/example-bench.json" || fail "migrate of $bench exited $?"
  bench="$tmp/example-bench.json"
  "$lmroof" analyze "$bench" >/dev/null 2>&1
  [ $? = 2 ] || fail "analyze without -o should be bad input (exit 2)"
  "$lmroof" analyze "$bench" -o "$tmp/results.json" >"$tmp/analyze.out" 2>&1 || fail "analyze -o exited $?: $(tail -3 "$tmp/analyze.out")"
  grep -q '^claims: measured: ' "$tmp/analyze.out" || fail "analyze printed no claims summary"
  python3 - "$tmp/results.json" <<'PY' || fail "claims and comparisons disagree"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["claims"], "analyze wrote no claims"
by_runs = {(c["baseline"]["run"], c["candidate"]["run"]): c for c in doc["comparisons"]}
probe = {r["id"]: r["dram_probe"]["read"] for r in doc["runs"] if r.get("dram_probe")}
checked = 0
for claim in doc["claims"]:
    if claim["kind"] != "faster":
        continue
    ev = claim["evidence"]
    # evidence per run pair: candidate median, baseline median, then the case's figures
    # (speedup, speedup_low, speedup_high, noise, p_value, and the estimator behind them)
    cases = []
    for e in ev:
        if e["metric"] == "time_s.median" and (not cases or cases[-1][-1]["metric"] != "time_s.median"):
            cases.append([e])
        else:
            cases[-1].append(e)
    for case in cases:
        cand, base = case[0]["run"], case[1]["run"]
        figure = {e["metric"]: e for e in case[2:]}
        noise = figure["noise"]
        # this bench.json has no paired rounds: every case says it rests on the medians
        assert "unpaired_medians" in figure, (claim["id"], list(figure))
        comp = by_runs.get((base, cand))
        if comp is None:
            continue
        assert comp["noise"] is not None and noise["value"] is not None
        # widened by the machine's drift between the two runs where both were probed,
        # on the side it can explain: down when the machine read faster during the candidate
        drift = comp.get("machine_drift") or 0.0
        want_noise = max(comp["noise"], drift)
        want_low = comp["speedup_low"]
        if drift > 0 and probe[cand] > probe[base]:
            want_low = min(want_low, comp["speedup"] / (probe[cand] / probe[base]))
        assert abs(want_noise - noise["value"]) < 1e-9, (claim["id"], comp["noise"], drift, noise["value"])
        assert abs(want_low - figure["speedup_low"]["value"]) < 1e-9 * want_low, (claim["id"], want_low, figure["speedup_low"]["value"])
        checked += 1
assert checked >= 5, f"only {checked} claim cases matched a comparison"
print(f"ok: {checked} claim cases carry their comparison's noise and interval")
PY
  "$lmroof" analyze "$bench" -o "$tmp/bare.json" --no-claims >/dev/null || fail "analyze --no-claims failed"
  python3 -c 'import json,sys; sys.exit(1 if json.load(open(sys.argv[1]))["claims"] else 0)' "$tmp/bare.json" || fail "--no-claims wrote claims"
fi
[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "ok: check --format json|markdown|text and --strict; analyze checks claims"
