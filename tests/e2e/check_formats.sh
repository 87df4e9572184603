#!/usr/bin/env bash
# `lmroof check` output formats and exit codes on a results file with claims of every
# verdict (tests/data/claims/results-small.json and the test claims):
#   --format json      validates against docs/check-output.schema.json (python3 jsonschema)
#   --format markdown  a table: header, separator, one row per claim
#   --format text      each claim's block starts with its verdict; nothing is cut ("...")
#   --strict           exits 1 when a claim is inconclusive, where plain check exits 0
# Usage: check_formats.sh LMROOF SOURCE_DIR (exit 77 = skipped, reason printed)
set -uo pipefail
lmroof=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
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
grep -Eq '^(HOLDS|FAILS|INCONCLUSIVE|NOT MEASURED) ' "$tmp/out.txt" || fail "text: no line starts with a verdict"
grep -q '\.\.\.$' "$tmp/out.txt" && fail "text: a line was cut"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$tmp/out.txt" || fail "text: a line is wider than COLUMNS=80"
grep -Eq '^[0-9]+ claims?: measured: ' "$tmp/out.txt" || fail "text: no summary line"

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
[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "ok: check --format json|markdown|text and --strict"
