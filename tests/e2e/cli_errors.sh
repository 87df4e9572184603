#!/usr/bin/env bash
# Bad input must give one clear line on stderr and a non-zero exit, never a crash
# (exit codes >= 128 are signals) or a hang. Usage: cli_errors.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_error EXPECTED_EXIT PATTERN -- ARGS...
expect_error() {
  local want="$1" pattern="$2"; shift 3
  local err rc
  err=$(timeout 60 "$lmroof" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: lmroof $* exited $rc, expected $want; stderr: $err"; failures=$((failures + 1)); return
  fi
  if ! grep -qE "$pattern" <<<"$err"; then
    echo "FAIL: lmroof $*: stderr lacks /$pattern/: $err"; failures=$((failures + 1)); return
  fi
  if [ "$(grep -c . <<<"$err")" -gt 2 ]; then
    echo "FAIL: lmroof $*: error is not short: $err"; failures=$((failures + 1)); return
  fi
  echo "ok: lmroof $* -> $rc: $(head -1 <<<"$err")"
}

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
