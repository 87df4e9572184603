#!/usr/bin/env bash
# The device call's outputs come back whole: the lent machine returns at most 8 files
# from $OUT (16 MiB each, 2 folders deep, plain names), so scripts/device-pack-outputs.sh
# packs a call's folder into one tarball plus the log, leaves optional pieces out
# (largest first) or splits the tarball when it is over the limit, and says so.
# Then scripts/device-check.sh itself, against a fake bundle whose binaries are stubs
# (no GPU is needed): both calls leave exactly the tarball and the log in a fake $OUT,
# print their key figures and every step's state last, report a bundle that does not
# match the checkout, and a missing bundle skips every step with the reason.
# Usage: device_outputs.sh LMROOF SOURCE_DIR (LMROOF is unused: nothing is measured)
set -u  # no pipefail: `... | grep -q` may end its writer early
src="$2"
pack="$src/scripts/device-pack-outputs.sh"
tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
valid_names() {  # every file in $1 has a name the device tool returns, and there are at most 8
  local n; n=$(find "$1" -type f | wc -l)
  [ "$n" -le 8 ] || return 1
  ! find "$1" -type f -printf '%f\n' | grep -qvE '^[A-Za-z0-9._-]+$'
}

# --- 1. a call's folder, deeper and with more files than come back, packed into 2 files
w="$tmp/work-a"; o="$tmp/out-a"
mkdir -p "$w/run/a/b/c" "$w/traces" "$o"
for i in $(seq 1 20); do echo "file $i" >"$w/run/a/b/c/f$i.json"; done
echo "results" >"$w/run/results.json"
echo "the log" >"$tmp/a.log"
echo keep >"$o/unrelated.txt"
"$pack" "$w" "$o" device-first "$tmp/a.log" >"$tmp/a.out" || fail "packing exited $?: $(cat "$tmp/a.out")"
[ "$(ls "$o" | sort | tr '\n' ' ')" = "device-first.log device-first.tar.gz unrelated.txt " ] ||
  fail "OUT holds $(ls "$o" | tr '\n' ' '), not the tarball, the log and the untouched file"
[ "$(tar -tzf "$o/device-first.tar.gz" | grep -c '^device-first/run/a/b/c/f[0-9]*\.json$')" = 20 ] ||
  fail "the tarball does not hold the 20 deep files under device-first/"
tar -xzOf "$o/device-first.tar.gz" device-first/run/results.json | grep -qx results || fail "results.json not packed as written"
cmp -s "$tmp/a.log" "$o/device-first.log" || fail "the log did not come back uncompressed"
grep -qx keep "$o/unrelated.txt" || fail "a file already in OUT was touched"
valid_names "$o" && ok "22 files, 4 folders deep, packed into one tarball + the log" || fail "OUT has more than 8 files or odd names"

# --- 2. over the limit: the optional pieces are left out, largest first, and named
w="$tmp/work-b"; o="$tmp/out-b"
mkdir -p "$w/traces" "$w/run" "$o"
head -c 300000 /dev/urandom >"$w/traces/big.trace.json"    # random: gzip cannot shrink it
head -c 100000 /dev/urandom >"$w/traces/small.trace.json"
head -c 50000 /dev/urandom >"$w/run/bench.json"
LMROOF_OUT_FILE_LIMIT=250000 "$pack" "$w" "$o" device-second "" 'traces/*' >"$tmp/b.out" ||
  fail "packing with optional pieces exited $?: $(cat "$tmp/b.out")"
size=$(stat -c %s "$o/device-second.tar.gz" 2>/dev/null || echo 0)
[ "$size" -gt 0 ] && [ "$size" -le 250000 ] || fail "the tarball is $size bytes, over the 250000-byte limit"
grep -q "left out traces/big.trace.json" "$tmp/b.out" || fail "the left-out piece is not named: $(cat "$tmp/b.out")"
grep -q "small.trace.json" "$tmp/b.out" && fail "the smaller optional piece was left out although the tarball fit without the larger"
tar -xzOf "$o/device-second.tar.gz" device-second/left-out.txt 2>/dev/null | grep -q "big.trace.json" ||
  fail "the tarball does not carry left-out.txt naming what was left out"
tar -tzf "$o/device-second.tar.gz" | grep -q "run/bench.json" || fail "a required file was left out"
[ "$failures" = 0 ] && ok "over the limit: the largest optional piece left out and named"

# --- 3. still too large without optional pieces: split into parts under the limit
w="$tmp/work-c"; o="$tmp/out-c"
mkdir -p "$w" "$o"
head -c 600000 /dev/urandom >"$w/bench.json"
echo log >"$tmp/c.log"
LMROOF_OUT_FILE_LIMIT=250000 "$pack" "$w" "$o" device-first "$tmp/c.log" >"$tmp/c.out" || fail "split packing exited $?"
grep -q "split into 3 parts" "$tmp/c.out" || fail "the split is not reported: $(cat "$tmp/c.out")"
for p in "$o"/device-first.tar.gz.part*; do
  [ "$(stat -c %s "$p")" -le 250000 ] || fail "$(basename "$p") is over the limit"
done
cat "$o"/device-first.tar.gz.part* | tar -xzOf - device-first/bench.json | cmp -s - "$w/bench.json" ||
  fail "the parts do not rebuild the tarball"
valid_names "$o" && ok "too large: split into parts that rebuild it" || fail "split: more than 8 files or odd names"
# ... and more than 8 files' worth is refused, with the log still returned
w="$tmp/work-d"; o="$tmp/out-d"
mkdir -p "$w" "$o"
head -c 2000000 /dev/urandom >"$w/huge.bin"
LMROOF_OUT_FILE_LIMIT=200000 "$pack" "$w" "$o" device-first "$tmp/c.log" >"$tmp/d.out"
[ $? = 2 ] && grep -q "would not fit" "$tmp/d.out" && [ -f "$o/device-first.log" ] && ok "more than 8 parts: refused, the log kept" ||
  fail "an unpackable folder is not refused in one line with the log kept: $(cat "$tmp/d.out")"

# ... and a LOG that already is OUT/NAME.log is kept, not deleted before the copy (issue 47 #14)
w="$tmp/work-f"; o="$tmp/out-f"
mkdir -p "$w" "$o"
echo data >"$w/a.txt"
echo "the log in place" >"$o/device-first.log"
"$pack" "$w" "$o" device-first "$o/device-first.log" >"$tmp/f.out"; rc=$?
[ "$rc" = 0 ] && grep -qx "the log in place" "$o/device-first.log" && [ -f "$o/device-first.tar.gz" ] &&
  ok "a log already at OUT/NAME.log: kept" || fail "a log already at OUT/NAME.log: exit $rc, $(ls "$o" | tr '\n' ' '): $(cat "$tmp/f.out")"

# --- 4. bad arguments: one line, exit 2
"$pack" "$tmp/work-a" "$tmp/out-e" 'bad/name' >"$tmp/e.out"; [ $? = 2 ] && grep -q "NAME" "$tmp/e.out" || fail "a NAME with '/' is not refused"
"$pack" "$tmp/nowhere" "$tmp/out-e" x >"$tmp/e.out"; [ $? = 2 ] || fail "a missing WORK is not refused"
"$src/scripts/device-check.sh" --budget 5 >"$tmp/e.out"; [ $? = 2 ] && grep -q "budget" "$tmp/e.out" || fail "--budget 5 is not refused"
"$src/scripts/device-check.sh" --bogus >"$tmp/e.out"; [ $? = 2 ] || fail "an unknown option is not refused"

# --- 5. device-check.sh against a fake bundle of stub binaries (no GPU needed)
repo="$tmp/repo"
mkdir -p "$repo/scripts" "$repo/kernels" "$repo/claims" "$tmp/bundle/bin" "$tmp/bundle/lib" "$tmp/bundle/lib-cuda"
cp "$src/scripts/device-check.sh" "$src/scripts/device-pack-outputs.sh" "$repo/scripts/"
printf '#!/usr/bin/env python3\nimport sys\nprint("torch_peer: skipped: stub"); sys.exit(77)\n' >"$repo/scripts/torch_peer.py"
printf '#!/usr/bin/env python3\nimport sys\nprint("torch_traces: skipped: stub"); sys.exit(77)\n' >"$repo/scripts/torch_traces.py"
echo "int kernel;" >"$repo/kernels/k.cu"
cat >"$tmp/bundle/bin/lmroof_tests" <<'SH'
#!/usr/bin/env bash
[ "${1:-}" = --help ] && exit 0
[ -n "${STUB_SLEEP:-}" ] && sleep "$STUB_SLEEP"
for a in "$@"; do case $a in --gtest_output=xml:*) xml=${a#--gtest_output=xml:} ;; esac; done
[ -n "${xml:-}" ] && cat >"$xml" <<'XML'
<?xml version="1.0"?><testsuites tests="3" failures="0" errors="0"><testsuite name="Cuda" tests="3">
<testcase name="a" classname="Cuda"/><testcase name="b" classname="Cuda"/><testcase name="c" classname="Cuda"><skipped message="no CUDA device"/></testcase>
</testsuite></testsuites>
XML
echo "[  PASSED  ] 2 tests."
SH
cat >"$tmp/bundle/bin/lmroof" <<'SH'
#!/usr/bin/env bash
case $1 in
  --help) echo "stub help" ;;
  counters) echo "stub counters" ;;
  ceilings) echo "ceiling/cuda/dram_copy 4300 GB/s (stub)" ;;
  run) while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
       mkdir -p "$out"; cat >"$out/results.json" <<'J'
{"ceilings":[{"name":"dram_copy","unit":"B/s","value":4.3e12},{"name":"launch","unit":"s","value":2.1e-6}],
 "runs":[{"id":"norm/rmsnorm/fused/cuda/bf16/tokens:64/d_model:256","time_s":{"median":1e-5},"achieved":{"byte_per_s":1e12},
          "roofline":{"bandwidth_utilization":0.25},"bytes":{}}]}
J
       echo '{"benchmarks":[]}' >"$out/bench.json" ;;
  *) echo "stub: $*"; exit 1 ;;
esac
SH
printf '#!/usr/bin/env bash\nexit 0\n' >"$tmp/bundle/bin/lmroof_bench"
mkdir -p "$tmp/stubbin"  # a GPU, as nvidia-smi names it
cat >"$tmp/stubbin/nvidia-smi" <<'SH'
#!/usr/bin/env bash
case "$*" in -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-stub)" ;; *) echo "NVIDIA H200, 580.159.04, 143771 MiB, 345 MHz, 1980 MHz, 30" ;; esac
SH
chmod +x "$tmp/bundle/bin/"* "$repo/scripts/"* "$tmp/stubbin/nvidia-smi"
printf 'commit 0123456789abcdef\ndirty no\n' >"$tmp/bundle/source.txt"
(cd "$repo" && sha256sum kernels/k.cu) >"$tmp/bundle/sources.sha256"
mkdir -p "$repo/.device" && tar -C "$tmp/bundle" -cJf "$repo/.device/bundle.tar.xz" .

o="$tmp/out-first"; mkdir -p "$o"
PATH="$tmp/stubbin:$PATH" OUT="$o" LMROOF_DEVICE_WORK="$tmp/dc-first" "$repo/scripts/device-check.sh" --first --budget 120 >"$tmp/first.out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "device-check --first with stubs exited $rc: $(tail -20 "$tmp/first.out")"
[ "$(ls "$o" | tr '\n' ' ')" = "device-first.log device-first.tar.gz " ] || fail "OUT after --first: $(ls "$o" | tr '\n' ' ')"
tar -tzf "$o/device-first.tar.gz" | grep -q "device-first/run/results.json" || fail "results.json is not in the tarball"
tar -tzf "$o/device-first.tar.gz" | grep -q "device-first/gpu-tests.xml" || fail "the test XML is not in the tarball"
tail -n 14 "$tmp/first.out" | grep -q "GPU tests: 3 run, 2 passed, 0 failed, 1 skipped" || fail "the test tally is not among the last lines"
tail -n 14 "$tmp/first.out" | grep -q "ceiling dram_copy .*4300.0 GB/s" || fail "the ceilings are not among the last lines"
tail -n 8 "$tmp/first.out" | grep -q "run-quick *ok" || fail "the step states are not among the last lines"
tail -n 1 "$tmp/first.out" | grep -q "device-check first: .* device-first.tar.gz + device-first.log" || fail "the last line does not name the outputs"
grep -q "bundle: matches this checkout" "$tmp/first.out" || fail "the matching bundle is not reported"
grep -q "^device-check first: " "$o/device-first.log" || fail "the returned log is not complete"
[ "$failures" = 0 ] && ok "device-check --first: 2 files in OUT, key figures and step states last"

echo "int kernel2;" >"$repo/kernels/k.cu"   # the checkout moves on: the bundle is stale
o="$tmp/out-second"; mkdir -p "$o"
PATH="$tmp/stubbin:$PATH" OUT="$o" LMROOF_DEVICE_WORK="$tmp/dc-second" "$repo/scripts/device-check.sh" --second --sanitize --budget 120 >"$tmp/second.out" 2>&1
[ "$(ls "$o" | tr '\n' ' ')" = "device-second.log device-second.tar.gz " ] || fail "OUT after --second: $(ls "$o" | tr '\n' ' ')"
grep -q "bundle: DIFFERS: 1 source files changed .*kernels/k.cu" "$tmp/second.out" || fail "a stale bundle is not reported"
for s in "peer *skipped: torch_peer: skipped: stub" "traces *skipped: torch_traces: skipped: stub" "run *ok"; do
  tail -n 12 "$tmp/second.out" | grep -qE "$s" || fail "second call: no step line matching '$s'"
done
tail -n 12 "$tmp/second.out" | grep -qE "(ncu|sanitize) .*skipped: .*not found|ncu *skipped" || fail "second call: ncu/sanitize do not say why they skip"
[ "$failures" = 0 ] && ok "device-check --second: stale bundle reported, skipped steps say why in one line"

grep -q "^device-check first on NVIDIA H200: " "$tmp/first.out" || fail "the GPU is not named in the key figures"

# without a GPU (no nvidia-smi listing one, no /dev/nvidia0): the GPU steps skip, the tests still run
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  o="$tmp/out-nogpu"; mkdir -p "$o"
  OUT="$o" LMROOF_DEVICE_WORK="$tmp/dc-nogpu" "$repo/scripts/device-check.sh" --first --budget 60 >"$tmp/nogpu.out" 2>&1
  for s in "counters *skipped: no GPU visible" "ceilings *skipped: no GPU visible" "run-quick *skipped: no GPU visible" "tests *ok"; do
    tail -n 8 "$tmp/nogpu.out" | grep -qE "$s" || fail "without a GPU: no step line matching '$s'"
  done
  [ "$(ls "$o" | tr '\n' ' ')" = "device-first.log device-first.tar.gz " ] || fail "OUT without a GPU: $(ls "$o" | tr '\n' ' ')"
fi

# stopped by a signal in the middle of a step: the step ends, and everything is packed
# stop_mid_step SIGNAL EXIT [COMMAND PREFIX...]: device-check stopped by SIGNAL exits EXIT
stop_mid_step() {
  local signal="$1" want="$2"; shift 2
  local o="$tmp/out-$signal" rc
  mkdir -p "$o"
  STUB_SLEEP=60 PATH="$tmp/stubbin:$PATH" OUT="$o" LMROOF_DEVICE_WORK="$tmp/dc-$signal" \
    "$@" "$repo/scripts/device-check.sh" --first --budget 120 >"$tmp/$signal.out" 2>&1 &
  local pid=$!
  sleep 5
  kill "-$signal" "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" = "$want" ] || fail "device-check stopped by $signal exited $rc, not $want (issue 47 #22)"
  [ "$(ls "$o" | tr '\n' ' ')" = "device-first.log device-first.tar.gz " ] || fail "OUT after a $signal: $(ls "$o" | tr '\n' ' ')"
}
stop_mid_step TERM 143
grep -q "interrupted *stopped by a signal" "$tmp/TERM.out" || fail "a TERM is not reported among the steps: $(tail -5 "$tmp/TERM.out")"
[ "$failures" = 0 ] && ok "a TERM mid-step: the step stopped, the outputs packed, exit 143"
# INT the same, exit 130 (a script's background job starts with INT ignored, which bash
# cannot trap: env --default-signal gives it INT as a terminal's Ctrl-C would)
stop_mid_step INT 130 env --default-signal=INT

rm "$repo/.device/bundle.tar.xz"
o="$tmp/out-none"; mkdir -p "$o"
OUT="$o" LMROOF_DEVICE_WORK="$tmp/dc-none" "$repo/scripts/device-check.sh" --first --budget 60 >"$tmp/none.out" 2>&1
[ $? != 0 ] || fail "device-check without a bundle exited 0"
[ "$(ls "$o" | tr '\n' ' ')" = "device-first.log device-first.tar.gz " ] || fail "OUT without a bundle: $(ls "$o" | tr '\n' ' ')"
grep -q "bundle.tar.xz missing" "$tmp/none.out" || fail "a missing bundle is not reported"

# --- 6. scripts/device-pack.sh --no-build with a binary missing: the previous bundle
# stays (issue 47 #15); run in a copy of the scripts, so this checkout's .device/ is untouched
pk="$tmp/pack-repo"
mkdir -p "$pk/scripts" "$pk/.device" "$pk/build-x"
cp "$src/scripts/device-pack.sh" "$pk/scripts/"
echo "previous bundle" >"$pk/.device/bundle.tar.xz"
printf '#!/bin/sh\n' >"$pk/build-x/lmroof" && chmod +x "$pk/build-x/lmroof"   # lmroof_tests, lmroof_bench missing
LMROOF_DEVICE_BUILD_DIR=build-x bash "$pk/scripts/device-pack.sh" --no-build >"$tmp/pk.out" 2>&1; rc=$?
[ "$rc" != 0 ] && grep -qx "previous bundle" "$pk/.device/bundle.tar.xz" 2>/dev/null && [ ! -e "$pk/.device.next" ] &&
  grep -q "lmroof_tests is missing" "$tmp/pk.out" && ok "device-pack --no-build, a binary missing: the previous bundle kept" ||
  fail "device-pack --no-build with a binary missing: exit $rc, bundle $(cat "$pk/.device/bundle.tar.xz" 2>&1): $(cat "$tmp/pk.out")"

[ "$failures" = 0 ] && echo "device_outputs: all checks passed" || { echo "device_outputs: $failures failures"; exit 1; }
