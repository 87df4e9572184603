#!/usr/bin/env bash
# A busy machine cannot fake a verdict (issue 45): a --quick run of the norm suite while
# a bounded busy loop, started here, keeps one core busy. Every claim's verdict either
# matches a quiet run's or is inconclusive with the cause `machine`; no cause is
# `implementation` unless the quiet run gives it too; results.json records the
# contention; the report's warnings box and `check --format json` name it, with its
# share and the busy process's name.
# The "quiet" run is only as quiet as the machine: where other programs run, its own
# verdicts may already be inconclusive (machine), which this test allows.
# Usage: busy_machine.sh LMROOF SOURCE_DIR (exit 77 = skipped, reason printed)
set -uo pipefail
lmroof="$1"
src="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3
[ -r /proc/stat ] || { echo "skipped: no /proc/stat: contention cannot be measured here"; exit 77; }

started=$SECONDS
# The busy loop (scripts/busy-core.bash: named `busyloop`, bounded by timeout) and the
# run in progress are stopped on every exit of this script.
source "$src/scripts/busy-core.bash"
run_pid=""
busy_core_traps '[ -z "$run_pid" ] || kill "$run_pid" 2>/dev/null; rm -rf "$tmp"'
# OUT: a --quick run of the norm pair (its ceilings, 4 runs, their paired rounds and
# claims; no second sitting: the claims are judged on what the busy machine gave) ; exit 0
# or 1 (a claim fails) is a run.
run_norm() {
  local t0=$SECONDS
  timeout 90 "$lmroof" run --quick --backend cpu --suite norm --remeasure-budget 0 --out "$1" >"$1.log" 2>&1 &
  run_pid=$!
  wait "$run_pid"  # interruptible: a signal's trap runs at once, not when the run ends
  local rc=$?
  run_pid=""
  echo "$(basename "$1") run: $((SECONDS - t0)) s"
  if [ "$rc" != 0 ] && { [ "$rc" != 1 ] || [ ! -f "$1/results.json" ]; }; then
    echo "FAIL: lmroof run --quick --suite norm exited $rc"; tail -20 "$1.log"; exit 1
  fi
}

run_norm "$tmp/quiet"

start_busy_core "$tmp" 100
run_norm "$tmp/busy"
stop_busy_core

timeout 120 "$lmroof" check --format json "$tmp/busy/results.json" >"$tmp/check.json" 2>"$tmp/check.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "lmroof check --format json exited $rc: $(head -c 300 "$tmp/check.err")"

python3 - "$tmp/quiet/results.json" "$tmp/busy/results.json" "$tmp/check.json" "$tmp/busy/report.html" <<'EOF' || failures=$((failures + 1))
import json, re, sys
quiet, busy, check = (json.load(open(p)) for p in sys.argv[1:4])
page = open(sys.argv[4]).read()
bad = []
c = busy.get("contention")
if not c:
    bad.append("the busy run's results.json has no contention")
else:
    print(f"busy run: {c['contended']} of {c['repetitions']} repetitions contended, {c['retimes']} re-timings, "
          f"workers waited up to {100 * c['worst_wait_share']:.0f}%; load {c['load_before']} -> {c['load_after']}; "
          "others: " + ", ".join(f"{p['name']} {100 * p['core_share']:.0f}%" for p in c["processes"][:4]))
    if c["contended"] == 0:
        bad.append("no repetition was contended with a busy loop on one core")
    if not any(p["name"] == "busyloop" for p in c["processes"]):
        bad.append("the busy loop is not among the other processes: " + str([p["name"] for p in c["processes"]]))
qc = quiet.get("contention") or {}
print(f"quiet run: {qc.get('contended')} of {qc.get('repetitions')} repetitions contended; load {qc.get('load_before')}")
before = {v["id"]: v for v in quiet["claims"]}
for v in busy["claims"]:
    q = before.get(v["id"])
    if q is None:
        bad.append(f"{v['id']}: not in the quiet run")
        continue
    print(f"  {v['id']}: busy {v['verdict']} ({v.get('cause')}), quiet {q['verdict']} ({q.get('cause')})")
    same = v["verdict"] == q["verdict"]
    machine = v["verdict"] == "inconclusive" and v.get("cause") == "machine"
    if not (same or machine):
        bad.append(f"{v['id']}: {v['verdict']} ({v.get('cause')}) busy, {q['verdict']} ({q.get('cause')}) quiet")
    if v.get("cause") == "implementation" and q.get("cause") != "implementation":
        bad.append(f"{v['id']}: cause implementation on the busy machine only")
    if machine and not q["verdict"] == v["verdict"] and "busy:" not in (v.get("cause_detail") or ""):
        bad.append(f"{v['id']}: inconclusive (machine) without saying who was busy: {v.get('cause_detail')}")
warnings = [w for w in check.get("warnings", []) if w["kind"] == "contention"]
for w in check.get("warnings", []):
    print(f"  warning ({w['kind']}): {w['text']}")
if not warnings:
    bad.append("check --format json lists no contention warning")
elif not re.search(r"\d+% of a core taken by `busyloop`", warnings[0]["text"]):
    bad.append("the contention warning does not name busyloop with its share: " + warnings[0]["text"])
box = re.search(r'<section id="warnings".*?</section>', page, re.S)
claims_at = page.find('id="verdict-summary"')
if not box:
    bad.append("the report has no warnings box")
else:
    if claims_at != -1 and box.start() > claims_at:
        bad.append("the warnings box comes after the claims")
    if not re.search(r"\d+% of a core taken by `busyloop`", box.group(0)):
        bad.append("the report's warnings box does not name busyloop with its share")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
EOF

# results.json's contention is read strictly: a bad field is one line naming the file
# and the field, exit 2.
corrupt() {  # corrupt PYTHON_STATEMENT OUT: the busy run's results.json, `doc` changed by the statement
  python3 - "$tmp/busy/results.json" "$2" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(doc, open(sys.argv[2], "w"))
PY
}
corrupt 'doc["contention"]["processes"][0]["core_share"] = 99' "$tmp/bad_share.json"
expect_error 2 'bad_share.json.*/contention/processes/0/core_share' -- check "$tmp/bad_share.json"
corrupt 'next(r for r in doc["runs"] if "contention" in r)["contention"]["contended"] = -1' "$tmp/bad_run.json"
expect_error 2 'bad_run.json.*/runs/[0-9]+/contention/contended' -- check "$tmp/bad_run.json"

echo "took $((SECONDS - started)) s"
[ "$failures" = 0 ] && ok "a busy core made verdicts inconclusive (machine), named"
exit "$failures"
