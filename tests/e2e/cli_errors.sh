#!/usr/bin/env bash
# Bad input must give one clear line on stderr and a non-zero exit, never a crash
# (exit codes >= 128 are signals) or a hang. Usage: cli_errors.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

# CLI11's own errors may add a second line (the --help hint).
error_lines=2

expect_error 2 "unknown pair 'nosuch'" -- run --suite nosuch --out "$tmp/a"
expect_error 2 "unknown pair 'normm'" -- run --suite norm,normm --out "$tmp/a"
expect_error 2 "error" -- run --backend tpu --out "$tmp/a"
expect_error 2 "error" -- run --repetitions 0 --out "$tmp/a"
expect_error 2 "cannot open" -- report "$tmp/missing.json" -o "$tmp/r.html"
printf '{"schema": "lmroof.results/1", "runs": [' > "$tmp/truncated.json"
expect_error 2 "truncated.json:1:.*malformed JSON" -- report "$tmp/truncated.json" -o "$tmp/r.html"
echo '{"schema": "something/9"}' > "$tmp/wrong.json"
expect_error 2 "wrong.json: /schema: this lmroof reads lmroof.results/1" -- report "$tmp/wrong.json" -o "$tmp/r.html"
expect_error 2 "cannot open" -- analyze "$tmp/missing-bench.json" -o "$tmp/x.json"
echo '{"benchmarks": 3}' > "$tmp/badbench.json"
expect_error 2 "badbench.json: /benchmarks: must be an array" -- analyze "$tmp/badbench.json" -o "$tmp/x.json"
expect_error 2 "error" -- nosuchcommand
expect_error 2 "GPU counters unavailable: .*(INVALID_CHIP_NAME|without CUDA)" -- counters --chip NOT_A_CHIP
[ -e "$tmp/r.html" ] && { echo "FAIL: a report was written from bad input"; failures=$((failures + 1)); }

# Issue 26: these break the one-line promise or were silently accepted. Each must be
# exactly one line ("lmroof: error: ..."), exit 2, refused before anything runs.
expect_one_line() {  # expect_one_line PATTERN -- ARGS...
  local pattern="$1"; shift 2
  local err rc
  err=$(timeout 60 "$lmroof" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != 2 ] || ! grep -qE -- "$pattern" <<<"$err" || [ "$(grep -c . <<<"$err")" != 1 ] || ! grep -q '^lmroof: error: ' <<<"$err"; then
    echo "FAIL: lmroof $*: exit $rc, expected 2 and one line matching /$pattern/; stderr: $err"; failures=$((failures + 1)); return
  fi
  echo "ok: lmroof $* -> 2: $err"
}
quick=(run --quick --backend cpu --suite norm --out "$tmp/q")
# defect 9: empty values and a dimension given twice
for opt in --model --context --tokens --batch --min-time --remeasure-budget; do
  expect_one_line "^lmroof: error: $opt is empty" -- "${quick[@]}" "$opt" ''
done
expect_one_line "^lmroof: error: --model is empty" -- list --model ''
expect_one_line "context is given twice" -- list --suite decode --shape decode:context=1,context=2
# defect 10: --benchmark-flag values checked before Google Benchmark sees them
expect_one_line "benchmark_min_warmup_time=1e9': give seconds in \[0, 60\]" -- "${quick[@]}" --benchmark-flag=--benchmark_min_warmup_time=1e9
expect_one_line "'--v=abc': give a whole number" -- "${quick[@]}" --benchmark-flag=--v=abc
expect_one_line "'--benchmark_filter': give a value" -- "${quick[@]}" --benchmark-flag=--benchmark_filter
expect_one_line "random_interleaving=maybe': give true or false" -- "${quick[@]}" --benchmark-flag=--benchmark_enable_random_interleaving=maybe
# issue #25: the re-measurement budget is checked and capped like --min-time
for b in -1 601 nan inf; do
  expect_one_line "--remeasure-budget .*: give seconds in \[0, 600\]" -- "${quick[@]}" --remeasure-budget "$b"
done
# defect 12: errors found after choosing the backend are still the only line
expect_one_line "CPU backend runs fp32 only" -- "${quick[@]}" --dtype bf16
expect_one_line "--metrics cupti" -- "${quick[@]}" --metrics cupti
expect_one_line "$tmp/q/x+: cannot create the output folder: File name too long" -- run --quick --backend cpu --suite norm --out "$tmp/q/$(printf 'x%.0s' $(seq 300))"
printf 'claims:\n  - id: "a\\nb"\n    statement: x\n' >"$tmp/nl.yaml"
expect_one_line "nl.yaml" -- check "$tmp/nl.yaml" "$2/tests/data/results_small.json"
# defect 14: the documented block options are shape dimensions
if timeout 60 "$lmroof" list --suite block --shape block:qk_norm=1,softcap=30 >"$tmp/list.out" 2>&1 && grep -q "qk_norm=1" "$tmp/list.out"; then
  echo "ok: --shape block:qk_norm=1,softcap=30 is accepted"
else
  echo "FAIL: --shape block:qk_norm=1: $(tail -1 "$tmp/list.out")"; failures=$((failures + 1))
fi
expect_one_line "has no dimension 'nosuch'" -- list --suite block --shape block:nosuch=1

# ===== issue 38: a third hostile review (items 16, 17) ===================================
# Item 17: --no-claims with --claims FILE is refused, as analyze refuses it.
echo "claims: []" >"$tmp/empty-claims.yaml"
expect_one_line "(--claims excludes --no-claims|--no-claims excludes --claims)" -- "${quick[@]}" --no-claims --claims "$tmp/empty-claims.yaml"
expect_one_line "(--claims excludes --no-claims|--no-claims excludes --claims)" -- analyze "$2/tests/data/bench_small.json" -o "$tmp/x.json" --no-claims --claims "$tmp/empty-claims.yaml"
# Item 16: a pair named twice is measured once: the plan counts the same runs as for
# the pair named once (a filter matching nothing stops it before measuring).
planned() {
  timeout 60 "$lmroof" run --quick --backend cpu --suite "$1" --no-claims --out "$tmp/q16" \
    --benchmark-flag=--benchmark_filter=nomatch 2>&1 >/dev/null | grep -oE 'among the [0-9]+ runs planned' | grep -oE '[0-9]+'
}
once=$(planned norm); twice=$(planned norm,norm); again=$(planned "norm, norm,norm")
if [ -n "$once" ] && [ "$once" = "$twice" ] && [ "$once" = "$again" ]; then
  echo "ok: --suite norm,norm plans $twice runs, as --suite norm does"
else
  echo "FAIL: --suite norm plans '$once' runs, norm,norm '$twice', 'norm, norm,norm' '$again'"; failures=$((failures + 1))
fi
# ===== end of issue 38 ===================================================================

# Each --help lists the exit codes of its own command: an exit 1 only where the command
# has one (run: a benchmark could not run, check: a claim fails, compare: a regression).
declare -A exit1=([run]="1 some benchmarks could not run" [check]="1 a claim fails" [compare]="1 a regression")
for sub in "" run report ceilings list analyze check counters compare merge; do
  # shellcheck disable=SC2086  # an empty $sub means the top-level --help
  if out=$(COLUMNS=200 "$lmroof" $sub --help 2>&1) && grep -q "Usage" <<<"$out"; then
    echo "ok: lmroof $sub --help"
  else
    echo "FAIL: lmroof $sub --help"; failures=$((failures + 1)); continue
  fi
  [ -z "$sub" ] && continue
  codes=$(sed -n '/^Exit codes/,$p' <<<"$out" | tr '\n' ' ')
  if [ -z "$codes" ]; then
    echo "FAIL: lmroof $sub --help lists no exit codes"; failures=$((failures + 1))
  elif [ -n "${exit1[$sub]:-}" ]; then
    grep -qF "${exit1[$sub]}" <<<"$codes" || { echo "FAIL: lmroof $sub --help lacks '${exit1[$sub]}': $codes"; failures=$((failures + 1)); }
  elif grep -qE '[;:] 1 |run: |check: ' <<<"$codes"; then
    echo "FAIL: lmroof $sub --help lists an exit code it does not give: $codes"; failures=$((failures + 1))
  fi
done
grep -qF "measurements are published" <<<"$(COLUMNS=200 "$lmroof" run --help)" ||
  { echo "FAIL: run --help does not say a claims error after the runs still publishes them"; failures=$((failures + 1)); }

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
