#!/usr/bin/env bash
# The memory budget (issue #34, docs/cost-model.md#memory-budget): `lmroof ceilings`
# with a pretended 1 GiB outermost cache (LMROOF_CACHE_SIZES, as a machine with a
# 480 MiB or a 1.1 GiB L3 has) says the peak it will hold before measuring, holds no
# more than that (peak resident set, ru_maxrss), and the peak is bounded by the budget's
# rule, not by the cache: 2 DRAM arrays of at most max(1 GiB, 2x the cache) plus scratch.
# The memory check counts all of it: below the peak, LMROOF_MEMORY_LIMIT refuses before
# anything is measured, in one line with sizes a person can read, exit 2.
# Usage: memory_budget.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

python3 - "$lmroof" "$tmp" <<'PY' || failures=$((failures + 1))
import re, resource, subprocess, sys, os
lmroof, tmp = sys.argv[1], sys.argv[2]
env = dict(os.environ, LMROOF_CACHE_SIZES="L3=1G")
p = subprocess.run([lmroof, "ceilings", "--quick", "--backend", "cpu"], env=env, capture_output=True, text=True, timeout=600)
peak_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
if p.returncode != 0:
    sys.exit(f"FAIL: lmroof ceilings exited {p.returncode}: {p.stderr[-2000:]}")
m = re.search(r"will hold at most ([0-9.]+) (kB|MB|GB)", p.stderr)
if not m:
    sys.exit("FAIL: lmroof ceilings did not say the peak it will hold: " + p.stderr[:500])
promised = float(m.group(1)) * {"kB": 1e3, "MB": 1e6, "GB": 1e9}[m.group(2)]
# the rule with a 1 GiB cache (shared by both threads, or one per thread: 2 GiB): two
# arrays of at most 2x the cache, the ceilings' scratch, the process
bound = 2 * 2 * 2 * 2**30 + 256e6 + 48 * 2**20
print(f"lmroof ceilings with a pretended 1 GiB L3: peak resident {peak_rss / 1e9:.2f} GB, promised {promised / 1e9:.2f} GB")
if peak_rss > promised * 1.02 + 16e6:
    sys.exit(f"FAIL: peak resident {peak_rss / 1e9:.2f} GB above the promised {promised / 1e9:.2f} GB")
if promised > bound:
    sys.exit(f"FAIL: the promised peak {promised / 1e9:.2f} GB exceeds the budget's rule {bound / 1e9:.2f} GB")
if "memory levels" not in p.stdout:
    sys.exit("FAIL: lmroof ceilings shows no memory levels: " + p.stdout[-1500:])
PY

# The check refuses, before measuring, what does not fit: one line, readable sizes.
err=$(LMROOF_CACHE_SIZES=L3=1G LMROOF_MEMORY_LIMIT=100000 timeout 60 "$lmroof" ceilings --quick --backend cpu 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "a 100 kB limit: exit $rc, expected 2: $err"
grep -qE "lmroof ceilings would hold up to [0-9.]+ (MB|GB), more than the 0\.1 MB of LMROOF_MEMORY_LIMIT" <<<"$err" \
  || fail "a 100 kB limit: not the one line expected: $err"
[ "$(grep -c . <<<"$err")" -le 1 ] || fail "a 100 kB limit: more than one line: $err"
grep -q "measuring" <<<"$err" && fail "a 100 kB limit: measured before refusing: $err"

# A limit the ceilings alone exceed refuses a run too (the check counts them), before measuring.
err=$(LMROOF_MEMORY_LIMIT=2e8 timeout 60 "$lmroof" run --quick --suite norm --out "$tmp/o" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "run under a 200 MB limit: exit $rc, expected 2: $err"
grep -qE "this run would hold up to [0-9.]+ (MB|GB), more than the 200\.0 MB of LMROOF_MEMORY_LIMIT" <<<"$err" \
  || fail "run under a 200 MB limit: $err"
# The folder is locked before the memory check (a second run is refused at once), and a
# refusal there leaves no trace: the folder it made is gone.
[ ! -e "$tmp/o" ] || fail "run under a 200 MB limit: left $tmp/o behind: $(ls -A "$tmp/o")"

# The eager block's H·T² scores and T² mask count (issue 47 #20): at 8192 tokens they
# alone pass 1 GB, so a 700 MB limit refuses the run before measuring, naming the run;
# before, it printed "at most 538.6 MB" and passed 2 GB.
err=$(LMROOF_MEMORY_LIMIT=7e8 timeout 60 "$lmroof" run --quick --suite block --tokens 8192 --out "$tmp/o" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "block at 8192 tokens under a 700 MB limit: exit $rc, expected 2: $err"
grep -qE "block/[a-z]+/unfused/cpu/.* needs at least [0-9.]+ GB \(its inputs, outputs and the buffers it holds" <<<"$err" \
  || fail "block at 8192 tokens under a 700 MB limit: not the eager block named: $err"

# A value the override cannot read: one line, exit 2.
err=$(LMROOF_CACHE_SIZES=L3=lots timeout 60 "$lmroof" ceilings --quick --backend cpu 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && grep -q "LMROOF_CACHE_SIZES='L3=lots'" <<<"$err" || fail "LMROOF_CACHE_SIZES=L3=lots: exit $rc: $err"

# A G count whose shift overflows int64 (issue 47 #13) was read as no L3 or as 1 GiB.
for sizes in L3=8589934592G L3=17179869185G; do
  err=$(LMROOF_CACHE_SIZES=$sizes timeout 60 "$lmroof" ceilings --quick --backend cpu 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] && grep -q "LMROOF_CACHE_SIZES='$sizes'.*more than 1 TiB" <<<"$err" || fail "LMROOF_CACHE_SIZES=$sizes: exit $rc: $err"
done
# Limits: each refusal says what is wrong with the value (issue 47, also seen).
err=$(LMROOF_MEMORY_LIMIT=999999999999999999 timeout 60 "$lmroof" ceilings --quick --backend cpu 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && grep -q "is 1e18 bytes or more" <<<"$err" || fail "LMROOF_MEMORY_LIMIT=999999999999999999: exit $rc: $err"
err=$(LMROOF_MEMORY_LIMIT=1e-300 timeout 60 "$lmroof" ceilings --quick --backend cpu 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && grep -q "is less than one byte" <<<"$err" || fail "LMROOF_MEMORY_LIMIT=1e-300: exit $rc: $err"

[ "$failures" = 0 ] && echo "memory_budget: all checks passed" || { echo "memory_budget: $failures failure(s)"; exit 1; }
