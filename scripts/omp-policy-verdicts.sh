#!/usr/bin/env bash
# What OpenMP's wait policy and thread count do to the verdicts when another process
# keeps one core busy (issue 45; docs/cost-model.md#openmp-on-a-busy-machine-wait-policy-and-threads).
# One `lmroof run --quick` per setting, each while a bounded busy loop takes a core, and
# two without it (the defaults, and the passive policy: what it costs a quiet machine).
# For each: the measured claims' verdicts, how many of them are inconclusive for cause
# machine, the timed repetitions that stayed contended, and the sum of the runs' medians.
#   scripts/omp-policy-verdicts.sh LMROOF [SUITE]     SUITE: a --suite list, norm,decode by default
set -uo pipefail
lmroof="${1:?usage: omp-policy-verdicts.sh LMROOF [SUITE]}"
suite="${2:-norm,decode}"
command -v python3 >/dev/null || { echo "omp-policy-verdicts.sh: needs python3" >&2; exit 2; }
tmp=$(mktemp -d)
source "$(dirname "${BASH_SOURCE[0]}")/busy-core.bash"
busy_core_traps 'rm -rf "$tmp"'
threads=$(nproc)
fewer=$((threads > 1 ? threads - 1 : 1))

# measure NAME BUSY(0|1) ENV...: one quick run under ENV, summarised in one line.
measure() {
  local name="$1" with_loop="$2"; shift 2
  [ "$with_loop" = 1 ] && start_busy_core "$tmp" 300
  local t0=$SECONDS
  env "$@" timeout 280 "$lmroof" run --quick --backend cpu --suite "$suite" --remeasure-budget 0 --out "$tmp/$name" \
    >"$tmp/$name.log" 2>&1
  local rc=$? took=$((SECONDS - t0))
  stop_busy_core
  if [ ! -f "$tmp/$name/results.json" ]; then echo "$name: lmroof run exited $rc"; tail -3 "$tmp/$name.log"; return; fi
  python3 - "$tmp/$name/results.json" "$name" "$took" <<'EOF'
import collections, json, sys
r = json.load(open(sys.argv[1]))
measured = [c for c in r["claims"] if c["evidence_kind"] == "measured" and c["verdict"] != "not measured"]
counts = collections.Counter(c["verdict"] for c in measured)
machine = sum(1 for c in measured if c["verdict"] == "inconclusive" and c.get("cause") == "machine")
k = r.get("contention") or {}
total = sum(run["time_s"]["median"] for run in r["runs"])
print(f"{sys.argv[2]}: {counts['holds']} hold, {counts['fails']} fail, {counts['inconclusive']} inconclusive "
      f"({machine} machine) of {len(measured)} measured claims; {k.get('contended')} of {k.get('repetitions')} "
      f"repetitions contended; runs' medians sum {1e3 * total:.1f} ms; {sys.argv[3]} s")
EOF
}

echo "suite $suite, $threads CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
measure quiet 0
measure quiet-passive 0 OMP_WAIT_POLICY=passive
measure busy-default 1
measure busy-passive 1 OMP_WAIT_POLICY=passive
measure busy-active 1 OMP_WAIT_POLICY=active
measure "busy-threads-$fewer" 1 OMP_NUM_THREADS="$fewer"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
