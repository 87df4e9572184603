#!/usr/bin/env bash
# likwid-bench beside `lmroof ceilings` on the same machine (issue #34 item 12): runs
# likwid-bench's load, copy, copy_mem (non-temporal stores) and peakflops_sp (FP32 FMA)
# kernels, the widest the CPU has (AVX-512, else AVX), on all the threads lmroof uses,
# over the same working sets as lmroof's DRAM ceilings, and prints likwid / lmroof:
#   load        / read      a read-only sweep
#   copy        / copy      ordinary stores (read + write counted, write-allocate not)
#   copy_mem    / copy_nt   non-temporal stores
#   peakflops_sp/ fp32_fma  FP32 FMA peak (likwid: FMAs plus one load per iteration, in L1)
# Within 10% is the aim (README, "Checking the roofs"). Run it on a quiet machine.
# Usage: scripts/likwid-check.sh [LMROOF] [--quick]     (Debian: apt-get install likwid)
set -euo pipefail
lmroof="${1:-build/lmroof}"
quick="${2:-}"
command -v likwid-bench >/dev/null || { echo "likwid-bench not found: apt-get install likwid" >&2; exit 2; }
[ -x "$lmroof" ] || { echo "$lmroof: not an executable lmroof (first argument)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

threads="${OMP_NUM_THREADS:-$(nproc)}"
if grep -qw avx512f /proc/cpuinfo; then isa=avx512; else isa=avx; fi

# lmroof's best repetition of each ceiling (bytes or FLOPs per second), and the working
# set its DRAM ceilings streamed, from the benchmark JSON: lmroof_ceilings N measures
# them into $tmp/lmroofN.txt. They are measured twice, before and after likwid, because
# a shared VM's DRAM rate can step between two states within a minute (the development
# machine: about 30 and 55 GB/s); a ratio is only comparable where both agree.
lmroof_ceilings() {
  echo "lmroof ceilings${quick:+ $quick} ($1 of 2) ..." >&2
  "$lmroof" ceilings $quick --backend cpu --json "$tmp/ceilings$1.json" > "$tmp/ceilings$1.txt"
  python3 - "$tmp/ceilings$1.json" > "$tmp/lmroof$1.txt" <<'PY'
import json, sys, re
doc = json.loads(re.sub(r'\b-?(NaN|Infinity)\b', 'null', open(sys.argv[1]).read()))
best, sets = {}, {}
for b in doc["benchmarks"]:
    if b.get("run_type") != "iteration" or b.get("error_occurred"): continue
    m = re.match(r"ceiling/cpu/([a-z0-9_]+)", b["run_name"])
    if not m: continue
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[b.get("time_unit", "ns")]
    work = b.get("ceiling_bytes") or b.get("ceiling_flops")
    if not work: continue
    rate = work / (b["real_time"] * unit)
    best[m.group(1)] = max(best.get(m.group(1), 0), rate)
    if "working_set_bytes" in b: sets[m.group(1)] = b["working_set_bytes"]
for k in ("read", "copy", "copy_nt", "fp32_fma"):
    print(k, best.get(k, 0), int(sets.get(k, 0)))
PY

}
lmroof_ceilings 1

lmroof_value() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/lmroof$2.txt"; }
lmroof_set() { awk -v k="$1" '$1 == k { print $3 }' "$tmp/lmroof1.txt"; }

# likwid_rate KERNEL BYTES: MByte/s (or MFlops/s for peakflops) of the kernel over BYTES
# split between $threads threads of every memory domain.
likwid_rate() {
  local kernel="$1" bytes="$2" out
  out=$(likwid-bench -t "$kernel" -w "N:$((bytes / 1024))kB:$threads" 2>&1) || { echo "likwid-bench -t $kernel failed: $out" >&2; echo 0; return; }
  if [[ "$kernel" == peakflops* ]]; then
    awk '/^MFlops\/s:/ { print $2 * 1e6 }' <<<"$out"
  else
    awk '/^MByte\/s:/ { print $2 * 1e6 }' <<<"$out"
  fi
}

best_of_three() {
  local best=0 v
  for _ in 1 2 3; do
    v=$(likwid_rate "$1" "$2")
    best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (b > a ? b : a) }')
  done
  echo "$best"
}

# likwid first (between the two lmroof measurements), then the table.
declare -A likwid
likwid[read]=$(best_of_three "load_$isa" "$(lmroof_set read)")
likwid[copy]=$(best_of_three "copy_$isa" "$(lmroof_set copy)")
likwid[copy_nt]=$(best_of_three "copy_mem_$isa" "$(lmroof_set copy_nt)")
likwid[fp32_fma]=$(best_of_three "peakflops_sp_${isa}_fma" "$((threads * 16 * 1024))")
lmroof_ceilings 2

printf '%-26s %-9s %11s %11s %11s %7s %7s  %s\n' "likwid-bench kernel" "lmroof" "likwid" "lmroof 1" "lmroof 2" "ratio 1" "ratio 2" ""
row() {  # KERNEL LMROOF_CEILING UNIT
  awk -v k="$1" -v c="$2" -v a="${likwid[$2]}" -v b="$(lmroof_value "$2" 1)" -v d="$(lmroof_value "$2" 2)" -v u="$3" \
    'BEGIN { moved = (b > 0 && d > 0 && (b > d ? b / d : d / b) > 1.2) ? "lmroof moved >20% between its two measurements: the machine changed state" : "";
             printf "%-26s %-9s %9.1f %s %9.1f %s %9.1f %s %7.2f %7.2f  %s\n", k, c, a / 1e9, u, b / 1e9, u, d / 1e9, u,
                    (b > 0 ? a / b : 0), (d > 0 ? a / d : 0), moved }'
}
row "load_$isa" read "G/s"
row "copy_$isa" copy "G/s"
row "copy_mem_$isa" copy_nt "G/s"
row "peakflops_sp_${isa}_fma" fp32_fma "GF"
echo "(ratio N: likwid / lmroof's measurement N (before, after likwid); best of three likwid runs against lmroof's best repetition; bytes are read + written)"
