# Sourced by the e2e scripts (tests/e2e/*.sh; this file is no test itself: CMake
# registers *.sh only): a temporary folder $tmp, removed on exit; a failure count
# and `fail`, which adds to it and goes on (the script ends with the count); `ok`;
# `need_python3`, which skips (exit 77) where there is no python3.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
need_python3() { command -v python3 >/dev/null || { echo "skipped: python3 not found"; exit 77; }; }
