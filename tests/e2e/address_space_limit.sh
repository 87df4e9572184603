#!/usr/bin/env bash
# `lmroof` under an address-space limit (`ulimit -v`), issue 47 #19: the BLAS library's
# start-up, before main, retried an allocation it could not get forever at 100% CPU,
# even for --version. Now a limit too small for start-up is one line on stderr and
# exit 2 within seconds (cli/address_space_guard.cpp); a limit with room runs as usual.
#   bash tests/e2e/address_space_limit.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: address_space_limit.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

# Sanitizer builds reserve terabytes of shadow memory and cannot run under a limit at all.
if nm -C "$lmroof" 2>/dev/null | grep -q "__asan_init"; then echo "skipped: an AddressSanitizer build cannot run under ulimit -v"; exit 77; fi

# limited KB ARGS...: lmroof ARGS under `ulimit -v KB`, at most 60 s; sets rc, err, took
limited() {
  local kb=$1; shift
  local t0; t0=$(date +%s)
  err=$( (ulimit -v "$kb" && exec timeout -k 5 60 "$lmroof" "$@") 2>&1 >/dev/null); rc=$?
  took=$(( $(date +%s) - t0 ))
}

# A CUDA build maps cuBLAS and cuBLASLt (about 650 MB on CUDA 13) before any of lmroof's
# code runs: below that, the dynamic loader itself refuses, in one line naming the library
# (exit 127). That is an exit in one line too (the defect was the spin), so it counts as
# a refusal; a CPU build's loader needs only ~42 MB and lmroof's own guard answers.
# refused_by_loader: the last run ended in the loader's one-line refusal
refused_by_loader() {
  [ "$rc" = 127 ] && [ "$(grep -c . <<<"$err")" = 1 ] && grep -q "error while loading shared libraries" <<<"$err"
}
# refused_by_guard KB: the last run ended in lmroof's own one-line refusal naming the limit
refused_by_guard() {
  [ "$rc" = 2 ] && [ "$(grep -c . <<<"$err")" = 1 ] && grep -q "address-space limit (ulimit -v $1 kB)" <<<"$err"
}
guard_answered=0

# 150 MB: below what start-up needs on any machine (the libraries map ~42 MB, each
# BLAS thread takes a 128 MiB buffer).
for args in "--version" "list"; do
  limited 150000 $args
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then fail "lmroof $args under ulimit -v 150000: still running after 60 s (the spin)"
  elif refused_by_guard 150000; then guard_answered=1; ok "ulimit -v 150000, lmroof $args: exit 2 in ${took}s: $err"
  elif refused_by_loader; then ok "ulimit -v 150000, lmroof $args: the dynamic loader refuses in one line: $err"
  else fail "lmroof $args under ulimit -v 150000: neither exit 2 with one line naming the limit nor the loader's one line: exit $rc: $err"; fi
done

# Between the two, every limit either runs or is refused in one line: never a spin
# (the defect) nor an abort on a thread it cannot start (this machine, without the
# guard: a spin up to 310000 kB, std::system_error at 315000-320000 kB, runs from
# 325000 kB; cli/address_space_guard.cpp). The upper limits are the same band for a
# CUDA build, whose libraries take ~650 MB more (the review's 0.8-1 GB spin).
for kb in 250000 300000 310000 315000 320000 325000 340000 360000 400000 500000 \
          700000 800000 900000 960000 1000000 1050000 1100000 1200000; do
  limited "$kb" --version
  if [ "$rc" = 0 ]; then ok "ulimit -v $kb: --version runs"
  elif refused_by_guard "$kb"; then guard_answered=1; ok "ulimit -v $kb: refused in one line"
  elif refused_by_loader; then ok "ulimit -v $kb: the dynamic loader refuses in one line"
  else fail "ulimit -v $kb: exit $rc (124/137: a spin; 134: an abort; 2: not one line naming the limit): $err"; fi
done
[ "$guard_answered" = 1 ] && ok "lmroof's own guard answered at least one limit" ||
  fail "no limit was refused by lmroof's own guard (exit 2, one line naming the limit)"

# With room (start-up's need, as the message counts it, plus 1 GiB): runs as usual.
threads=$(nproc)
room=$(( (threads * (130 + 8) + 16 + 1024) * 1024 + 200000 ))
limited "$room" --version
[ "$rc" = 0 ] && ok "ulimit -v $room (room for $threads BLAS threads): --version runs" ||
  fail "lmroof --version under ulimit -v $room: exit $rc: $err"

[ "$failures" = 0 ] && echo "address_space_limit: all checks passed" || { echo "address_space_limit: $failures failures"; exit 1; }
