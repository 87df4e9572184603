# Sourced by the e2e scripts (tests/e2e/*.sh; this file is no test itself: CMake
# registers *.sh only): a temporary folder $tmp, removed on exit; a failure count
# and `fail`, which adds to it and goes on (the script ends with the count); `ok`;
# `need_python3`, which skips (exit 77) where there is no python3; `expect_error`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
need_python3() { command -v python3 >/dev/null || { echo "skipped: python3 not found"; exit 77; }; }

# expect_error EXIT PATTERN -- ARGS...: `$lmroof ARGS` exits EXIT within 60 s, and its
# stderr matches PATTERN (extended regex) in at most $error_lines lines (default 1: bad
# input gets one line naming the file and the field).
expect_error() {
  local want="$1" pattern="$2"; shift 3
  local err rc
  err=$(timeout 60 "$lmroof" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != "$want" ]; then fail "lmroof $* exited $rc, expected $want; stderr: ${err:0:300}"; return; fi
  if ! grep -qE -- "$pattern" <<<"$err"; then fail "lmroof $*: stderr lacks /$pattern/: ${err:0:300}"; return; fi
  if [ "$(grep -c . <<<"$err")" -gt "${error_lines:-1}" ]; then
    fail "lmroof $*: error is longer than ${error_lines:-1} line(s): ${err:0:300}"; return
  fi
  ok "$(head -1 <<<"$err" | cut -c1-160)"
}

# example_bench IN OUT: a committed example's bench.json, ready to analyse, at OUT. The
# examples measured before bench.json recorded the pair catalogue are migrated first
# (tests/e2e/migrate_examples.sh); newer ones record it and are copied as they are.
example_bench() {
  if grep -q '"lmroof_catalogue"' "$1"; then cp "$1" "$2"; else "$lmroof" migrate "$1" -o "$2" >/dev/null 2>&1; fi
}
