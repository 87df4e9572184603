#!/usr/bin/env bash
# `lmroof analyze out/bench.json` gives the results of the run that wrote it (apart
# from machine.date), with another host name and thread count in the environment:
# analysis reads the machine from bench.json's context and the costs from its
# counters, never from the machine or build it runs on. Usage: analyze_pure.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3
"$lmroof" run --quick --suite norm --backend cpu --no-claims --out "$tmp/out" >/dev/null 2>"$tmp/run.log" ||
  { echo "FAIL: lmroof run exited $?: $(tail -3 "$tmp/run.log")"; exit 1; }
HOSTNAME=somewhere-else OMP_NUM_THREADS=1 "$lmroof" analyze "$tmp/out/bench.json" -o "$tmp/again.json" --no-claims >/dev/null ||
  { echo "FAIL: lmroof analyze exited $?"; exit 1; }
# A foreign context: another machine's facts travel with its bench.json.
python3 - "$tmp/out/bench.json" "$tmp/foreign.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["context"]["host_name"] = "far-away"
d["context"]["lmroof_cpu_model"] = "Imaginary CPU 9000"
d["context"]["lmroof_threads"] = "48"
json.dump(d, open(sys.argv[2], "w"))
PY
"$lmroof" analyze "$tmp/foreign.json" -o "$tmp/foreign-results.json" --no-claims >/dev/null || { echo "FAIL: analyze of a foreign bench.json"; exit 1; }
python3 - "$tmp/out/results.json" "$tmp/again.json" "$tmp/foreign-results.json" <<'PY'
import json, sys
run, again, foreign = (json.load(open(p)) for p in sys.argv[1:4])
for d in (run, again, foreign):
    del d["machine"]["date"]
if run != again:
    diff = [k for k in run if run[k] != again.get(k)]
    sys.exit(f"FAIL: analyze differs from the run in {diff}")
m = foreign["machine"]
if (m["hostname"], m["cpu_model"], m["threads"]) != ("far-away", "Imaginary CPU 9000", 48):
    sys.exit(f"FAIL: the foreign context was not used: {m['hostname']}, {m['cpu_model']}, {m['threads']}")
foreign["machine"].update({k: run["machine"][k] for k in ("hostname", "cpu_model", "threads")})
foreign["bench_json"] = run["bench_json"]
if foreign != run:
    sys.exit("FAIL: a foreign context changed more than the machine facts")
print(f"ok: analyze reproduces the run ({len(run['runs'])} runs, {len(run['ceilings'])} ceilings); "
      "a foreign context gives that machine's facts")
PY
