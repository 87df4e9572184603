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
# A shared VM's DRAM rate can step between states within a minute, so the two tools are
# interleaved: ROUNDS rounds (default 3) of lmroof's ceilings then likwid's four kernels,
# each ratio taken within its round, and the median round's ratio printed with the range.
# Both tools run on the same page size. lmroof asks for 2 MiB pages for its large
# buffers (madvise, kernels/common/host_buffer.h); likwid-bench allocates with
# posix_memalign and, where transparent huge pages are "madvise" (Debian's default), gets
# 4 KiB pages, which cost its DRAM kernels 10-35% on the development VM (copy 25.9-34.6
# GB/s on 4 KiB pages against 31.4-46.4 on 2 MiB pages, alternated, 2026-12-05). So
# likwid-bench runs with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc 2.35 and later:
# malloc then advises huge pages too) whenever lmroof's buffers get them;
# PAGES=4k runs both on 4 KiB pages (LMROOF_HUGE_PAGES=0, no tunable).
# A figure likwid-bench does not give (it fails, or prints no rate this script can read)
# is "not measured" with the reason, the other figures still printed; the exit is then 1.
# Usage: [ROUNDS=N] [PAGES=2m|4k] scripts/likwid-check.sh [LMROOF] [--quick]   (Debian: apt-get install likwid)
set -euo pipefail
lmroof="${1:-build/lmroof}"
quick="${2:-}"
command -v likwid-bench >/dev/null || { echo "likwid-bench not found: apt-get install likwid" >&2; exit 2; }
[ -x "$lmroof" ] || { echo "$lmroof: not an executable lmroof (first argument)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

threads="${OMP_NUM_THREADS:-$(nproc)}"

# The page size both tools run on (see above).
pages="${PAGES:-2m}"
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
likwid_env=()
case "$pages" in
  4k) export LMROOF_HUGE_PAGES=0
      echo "pages: 4 KiB for both (LMROOF_HUGE_PAGES=0; likwid-bench as it allocates)" >&2 ;;
  2m) if [ "${LMROOF_HUGE_PAGES:-1}" = 0 ] || { [ "$thp" != always ] && [ "$thp" != madvise ]; }; then
        echo "pages: 4 KiB for both (transparent huge pages '${thp:-absent}', LMROOF_HUGE_PAGES=${LMROOF_HUGE_PAGES:-unset})" >&2
      else
        likwid_env=(env GLIBC_TUNABLES=glibc.malloc.hugetlb=1)
        echo "pages: 2 MiB for both where the kernel grants them (transparent huge pages '$thp'; lmroof by madvise," \
             "likwid-bench by GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which glibc before 2.35 ignores)" >&2
      fi ;;
  *) echo "PAGES=$pages: 2m or 4k" >&2; exit 2 ;;
esac
if grep -qw avx512f /proc/cpuinfo; then isa=avx512; else isa=avx; fi

# lmroof's best repetition of each ceiling (bytes or FLOPs per second), and the working
# set its DRAM ceilings streamed, from the benchmark JSON: lmroof_ceilings N measures
# them into $tmp/lmroofN.txt, once per round (the development machine's DRAM rate steps
# between about 30 and 55 GB/s within a minute: a ratio compares one moment).
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

lmroof_set() { awk -v k="$1" '$1 == k { print $3 }' "$tmp/lmroof1.txt"; }

# likwid_rate KERNEL BYTES: MByte/s (or MFlops/s for peakflops) of the kernel over BYTES
# split between $threads threads of every memory domain; "nan" when likwid-bench fails
# or prints no positive rate, with the reason on stderr.
likwid_rate() {
  local kernel="$1" bytes="$2" out rate status=0
  out=$("${likwid_env[@]}" likwid-bench -t "$kernel" -w "N:$((bytes / 1024))kB:$threads" 2>&1) || status=$?
  if [ "$status" != 0 ]; then
    echo "likwid-bench -t $kernel: exit $status: $(tail -n 1 <<<"$out" | cut -c1-200)" >&2
    echo nan; return
  fi
  local field='MByte/s:'
  [[ "$kernel" == peakflops* ]] && field='MFlops/s:'
  rate=$(awk -v f="$field" '$1 == f && $2 + 0 > 0 { print $2 * 1e6; exit }' <<<"$out")
  if [ -z "$rate" ]; then
    echo "likwid-bench -t $kernel: no positive '$field' line in its output" >&2
    echo nan; return
  fi
  echo "$rate"
}

rounds="${ROUNDS:-3}"
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "ROUNDS=$rounds: a whole number from 1 to 99" >&2; exit 2; }
# One round: lmroof's ceilings, then likwid's kernels right after them.
for ((k = 1; k <= rounds; k++)); do
  [ "$k" -gt 1 ] && lmroof_ceilings "$k"
  echo "likwid-bench (round $k of $rounds) ..." >&2
  {
    echo "read $(likwid_rate "load_$isa" "$(lmroof_set read)")"
    echo "copy $(likwid_rate "copy_$isa" "$(lmroof_set copy)")"
    echo "copy_nt $(likwid_rate "copy_mem_$isa" "$(lmroof_set copy_nt)")"
    echo "fp32_fma $(likwid_rate "peakflops_sp_${isa}_fma" "$((threads * 16 * 1024))")"
  } > "$tmp/likwid$k.txt"
done

# Per ceiling: each round's likwid / lmroof, the median round's ratio, and both tools' ranges.
python3 - "$tmp" "$rounds" "$isa" <<'PY'
import math, sys
tmp, rounds, isa = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def table(path):
    # "KERNEL RATE"; a rate missing, unreadable, not finite or not positive is not measured
    out = {}
    for line in open(path):
        parts = line.split()
        if not parts: continue
        try:
            v = float(parts[1])
        except (IndexError, ValueError):
            continue
        if math.isfinite(v) and v > 0: out[parts[0]] = v
    return out
lm = [table(f"{tmp}/lmroof{k}.txt") for k in range(1, rounds + 1)]
lk = [table(f"{tmp}/likwid{k}.txt") for k in range(1, rounds + 1)]
kernels = {"read": f"load_{isa}", "copy": f"copy_{isa}", "copy_nt": f"copy_mem_{isa}", "fp32_fma": f"peakflops_sp_{isa}_fma"}
print(f"{'likwid-bench kernel':26} {'lmroof':9} {'median ratio':>12}  per round (likwid / lmroof)")
missing = 0
for c, kernel in kernels.items():
    unit, scale = ("GF", 1e9) if c == "fp32_fma" else ("G/s", 1e9)
    ratios = [a[c] / b[c] for a, b in zip(lk, lm) if c in a and c in b]
    shown = lambda t: f"{t[c] / scale:.1f}" if c in t else "-"
    rounds_text = ", ".join(f"{shown(a)}/{shown(b)}" for a, b in zip(lk, lm))
    if not ratios:
        missing += 1
        print(f"{kernel:26} {c:9} {'not measured':>12}  {rounds_text} {unit}  (no round has both figures: see the lines above)")
        continue
    median = sorted(ratios)[len(ratios) // 2]
    spread = ""
    if max(ratios) / min(ratios) > 1.2:
        spread = "  (the rounds disagree by more than 20%: the machine changed state)"
    elif len(ratios) < rounds:
        missing += 1
        spread = f"  ({rounds - len(ratios)} of {rounds} rounds not measured)"
    print(f"{kernel:26} {c:9} {median:12.2f}  {rounds_text} {unit}{spread}")
print(f"({rounds} rounds; in each, lmroof's best repetition, then one likwid run; bytes are read + written)")
sys.exit(1 if missing else 0)
PY
