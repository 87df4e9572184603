#!/usr/bin/env bash
# scripts/likwid-check.sh when likwid-bench fails or prints what it cannot read (issue 47
# #21): that figure is "not measured" with the reason, the other figures are still
# printed, and the exit is not 0. Both tools are stubs on PATH (no likwid needed):
# lmroof writes a ceilings JSON of known rates, likwid-bench answers per kernel.
# Usage: likwid_check.sh LMROOF SOURCE_DIR (LMROOF is unused: a stub stands in)
set -u
src="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
mkdir -p "$tmp/bin"

# lmroof ceilings --json FILE: each ceiling at 10 G/s (or 10 GFLOP/s) over a 64 MiB set
cat >"$tmp/lmroof" <<'SH'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
python3 - "$json" <<'PY'
import json, sys
rows = [{"run_type": "iteration", "run_name": f"ceiling/cpu/{k}", "time_unit": "s", "real_time": 1.0,
         ("ceiling_flops" if k == "fp32_fma" else "ceiling_bytes"): 1e10, "working_set_bytes": 64 << 20}
        for k in ("read", "copy", "copy_nt", "fp32_fma")]
json.dump({"benchmarks": rows}, open(sys.argv[1], "w"))
PY
echo "stub ceilings"
SH
# likwid-bench -t KERNEL: load prints nothing readable, copy fails, the other two answer
cat >"$tmp/bin/likwid-bench" <<'SH'
#!/usr/bin/env bash
case "$2" in
  load_*) echo "Cycles: 12345" ;;   # no rate line at all
  copy_mem_*) echo "MByte/s: 20000.5" ;;
  copy_*) echo "ERROR: cannot pin threads" >&2; exit 1 ;;
  peakflops_*) echo "MFlops/s: 5000" ;;
esac
SH
chmod +x "$tmp/lmroof" "$tmp/bin/likwid-bench"

PATH="$tmp/bin:$PATH" ROUNDS=2 bash "$src/scripts/likwid-check.sh" "$tmp/lmroof" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" != 0 ] || fail "a failing likwid-bench: exit 0"
grep -q "Traceback" "$tmp/out" "$tmp/err" && fail "a Python traceback: $(cat "$tmp/err")"
grep -qE "^load_avx(512)? +read +not measured" "$tmp/out" || fail "the unreadable load figure is not 'not measured': $(cat "$tmp/out")"
grep -qE "^copy_avx(512)? +copy +not measured" "$tmp/out" || fail "the failing copy figure is not 'not measured': $(cat "$tmp/out")"
grep -qE "^copy_mem_avx(512)? +copy_nt +2\.00 " "$tmp/out" || fail "the copy_nt figure (20.0 / 10.0) is not kept: $(cat "$tmp/out")"
grep -qE "^peakflops_sp_avx(512)?_fma +fp32_fma +0\.50 " "$tmp/out" || fail "the fp32_fma figure (5.0 / 10.0) is not kept: $(cat "$tmp/out")"
grep -q "likwid-bench -t copy_avx.*: exit 1: ERROR: cannot pin threads" "$tmp/err" || fail "the failure's reason is not given: $(cat "$tmp/err")"
grep -q "likwid-bench -t load_avx.*no positive 'MByte/s:' line" "$tmp/err" || fail "the unreadable output's reason is not given: $(cat "$tmp/err")"
grep -q " 0\.00 " "$tmp/out" && fail "a 0.00 ratio printed: $(cat "$tmp/out")"
[ "$failures" = 0 ] && ok "likwid-bench failing or unreadable: not measured with the reason, the other figures kept, exit $rc"

[ "$failures" = 0 ] && echo "likwid_check: all checks passed" || { echo "likwid_check: $failures failures"; exit 1; }
