#!/usr/bin/env bash
# How long `lmroof check` takes on 50,000 runs (issue 9: under 5 s). Not a ctest: a
# timing on a shared machine is a report, not a pass/fail. Every run of
# tests/data/results_small.json (all its pairs, so every kind of claim pairs and judges
# runs) is copied with a distinct shape until there are RUNS (~95 MB of JSON), then
# `lmroof check` is timed REPEAT times, wall clock, and the median printed.
# tests/test_catalogue.cpp (Scale.*) reports the same file's phases: read, parse,
# validate, claims.
# Usage: tests/perf/check_scale.sh LMROOF [RUNS=50000] [REPEAT=3]
set -euo pipefail
lmroof="$1"
runs="${2:-50000}"
repeat="${3:-3}"
src="$(cd "$(dirname "$0")/../.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$src/tests/data/results_small.json" "$tmp/big.json" "$runs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[3])
runs, i = [], 0
while len(runs) < want:
    for r in d["runs"]:
        if len(runs) == want:
            break
        c = json.loads(json.dumps(r))
        first = next(iter(c["shape"]))
        c["shape"][first] = c["shape"][first] * 100000 + i + 1
        c["id"] = f'{c["id"]}/{i}'
        runs.append(c)
    i += 1
d["runs"], d["comparisons"], d["claims"] = runs, [], []
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
echo "$runs runs, $(( $(stat -c %s "$tmp/big.json") / 1000000 )) MB; lmroof check, $repeat times:"
times=()
for _ in $(seq "$repeat"); do
  start=$(date +%s%N)
  rc=0
  "$lmroof" check "$tmp/big.json" >/dev/null || rc=$?
  [ "$rc" -le 1 ] || { echo "lmroof check exited $rc"; exit 1; }  # 1: a claim fails, as it may
  times+=("$(awk -v ns=$(( $(date +%s%N) - start )) 'BEGIN {printf "%.2f", ns / 1e9}')")
  echo "  ${times[-1]} s"
done
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
echo "median: $median s (issue 9's bound: 5 s)"
