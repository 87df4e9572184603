#!/usr/bin/env bash
# The Slurm fan-out, on a real one-node Slurm started here: munged, slurmctld and
# slurmd from a generated configuration in a temporary folder (the system's
# /etc/slurm and /etc/munge are not read), then scripts/slurm/submit.sh with two
# quick CPU tasks and the dependent merge job. The fleet report must render in
# headless Chromium without console output and hold both tasks' runs and the
# claims x machines matrix. Every daemon started here is stopped by its process id.
#
#   bash tests/e2e/slurm_fleet.sh PATH/TO/lmroof SOURCE_DIR
#
# Exit 77 (skipped, reason printed) when Slurm, munge or Chromium is not
# installed (scripts/install-deps.sh --test installs them), when not root
# (slurmd launches jobs as their user), or when the daemons do not come up.
set -uo pipefail

lmroof=${1:?usage: slurm_fleet.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: slurm_fleet.sh PATH/TO/lmroof SOURCE_DIR}
lmroof=$(cd "$(dirname "$lmroof")" && pwd)/$(basename "$lmroof")
job_timeout=${LMROOF_SLURM_TIMEOUT:-150}  # seconds for the whole fleet to finish

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in munged slurmctld slurmd sbatch squeue sacct scontrol; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] ||
    skip "$tool not installed (scripts/install-deps.sh --test installs slurm-wlm and munge)"
done
export PATH=$PATH:/usr/sbin
browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
[ -n "$browser" ] || skip "chromium not installed (scripts/install-deps.sh --test installs it)"
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs (running as $(id -un))"
"$lmroof" merge --help >/dev/null 2>&1 || fail "$lmroof has no 'merge' command"

# Not under /tmp itself: munged refuses a socket or key below a world-writable
# folder unless it has the sticky bit, and the jobs must be able to reach it all.
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  local pid
  # Cancel what is left, then stop the daemons newest first and reap them.
  [ -f "$work/slurm.conf" ] && SLURM_CONF=$work/slurm.conf timeout 5 scancel --full --quiet -u root >/dev/null 2>&1
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[$i]}
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

show_logs() {
  for f in "$work"/log/* "$work"/out/logs/*; do
    [ -f "$f" ] || continue
    echo "--- $f" >&2
    grep -v 'pmix\|MPI' "$f" | tail -n 15 >&2
  done
}

# --- munge, with a key generated for this test ------------------------------------
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log" "$work/out"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
mkdir -p "$work/munge-run" && chmod 755 "$work/munge-run"
munged --foreground --force --socket="$work/munge-run/munge.socket" --key-file="$work/munge/munge.key" \
  --log-file="$work/log/munged.log" --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
  > "$work/log/munged.stdout" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge-run/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge-run/munge.socket" ] || { show_logs; skip "munged did not start"; }

# --- slurm.conf: this machine as the only node ------------------------------------
# Two free TCP ports for the controller and the node daemon (a system Slurm may
# hold the default 6817/6818).
listening=$(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print strtonum("0x" a[2]) }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    grep -qx "$p" <<< "$listening" || { echo "$p"; return; }
  done
}
ctld_port=$(free_port)
slurmd_port=$((ctld_port + 1))
host=$(hostname -s)
cpus=$(nproc)
memory_mb=$(awk '/MemAvailable/ { print int($2 / 1024 / 2) }' /proc/meminfo)
cat > "$work/slurm.conf" <<EOF
ClusterName=lmroof-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge-run/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=300
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" > "$work/log/slurmctld.stdout" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$work/log/slurmd.stdout" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 100); do
  state=$(sinfo -h -o '%t' 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || { show_logs; skip "the one-node Slurm did not come up (node state '${state:-none}')"; }
echo "slurm: controller :$ctld_port, node $host idle ($cpus CPUs)"

# --- the fleet: two quick CPU tasks and the merge ------------------------------------
# CRLF line endings (issue 26, defect 11), and a third task that fails without results:
# the merge still runs, merges the other two and names it.
printf '# label      lmroof run options\r\ncpu-a        --backend cpu\r\ncpu-b        --backend cpu --repetitions 3\r\ncpu-c        --backend cpu --suite nosuch\r\n' \
  > "$work/tasks.txt"
# A setup file every job sources first; the merge runs it too (not through sh/dash).
printf 'echo "lmroof-setup: sourced" >&2\n' > "$work/setup.sh"
start=$SECONDS
submitted=$(bash "$src/scripts/slurm/submit.sh" "$work/tasks.txt" "$work/out" --lmroof "$lmroof" --setup "$work/setup.sh" \
  --quick --suite norm 2>&1) || { echo "$submitted" >&2; fail "submit.sh failed"; }
echo "$submitted"
merge_job=$(sed -n 's/^merge job \([0-9]*\):.*/\1/p' <<< "$submitted")
[ -n "$merge_job" ] || fail "submit.sh printed no merge job id"
grep -q '^array job [0-9]*: tasks 0,1,2$' <<< "$submitted" || fail "the three tasks were not submitted as one array"

# Wait until the queue is empty (the merge job leaves it last).
while [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
  [ $((SECONDS - start)) -lt "$job_timeout" ] || { squeue >&2; show_logs; fail "the fleet did not finish within ${job_timeout}s"; }
  sleep 1
done
echo "fleet finished in $((SECONDS - start))s"
merge_state=$(scontrol show job "$merge_job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
[ "$merge_state" = COMPLETED ] || { show_logs; fail "merge job $merge_job ended $merge_state"; }
grep -q "lmroof-setup: sourced" "$work/out/logs/merge.out" || { show_logs; fail "the merge did not source --setup"; }
grep -q "no results from cpu-c (task 2)" "$work/out/logs/merge.out" || { show_logs; fail "the merge did not name the task without results"; }

# --- what the fleet wrote -------------------------------------------------------------
for i in 0 1; do
  [ -s "$work/out/task-$i/results.json" ] || { show_logs; fail "task $i wrote no results.json"; }
done
[ -s "$work/out/fleet.html" ] || { show_logs; fail "no fleet.html"; }
[ -s "$work/out/fleet.json" ] || fail "no fleet.json"
# Both tasks' runs, each under its machine label.
for label in cpu-a cpu-b; do
  grep -q "$label" "$work/out/fleet.html" || fail "fleet.html does not name the machine '$label'"
done
runs_a=$(grep -o '"id": *"norm/[^"]*"' "$work/out/task-0/results.json" | sort -u | wc -l)
[ "$runs_a" -gt 0 ] || fail "task 0 has no norm runs"
python3 - "$work/out/fleet.json" "$runs_a" <<'EOF' || fail "fleet.json does not hold both machines' runs"
import json, sys
doc = json.load(open(sys.argv[1]))
machines = doc["machines"]
assert [m["label"] for m in machines] == ["cpu-a", "cpu-b"], [m["label"] for m in machines]
for m in machines:
    assert len(m["results"]["runs"]) == int(sys.argv[2]), (m["label"], len(m["results"]["runs"]))
EOF
sed '/<script/,$d' "$work/out/fleet.html" > "$work/markup.html"
grep -q 'id="claims-matrix"' "$work/markup.html" || fail "fleet.html has no claims x machines matrix"

# --- render in headless Chromium --------------------------------------------------------
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0 --virtual-time-budget=15000 \
  --dump-dom "file://$work/out/fleet.html" > "$work/dom.html" 2> "$work/chromium.log"
[ -s "$work/dom.html" ] || { tail -20 "$work/chromium.log" >&2; fail "chromium produced no DOM"; }
if grep -Eq ':CONSOLE[(:]' "$work/chromium.log"; then
  grep -E ':CONSOLE[(:]' "$work/chromium.log" | cut -c1-600 >&2
  fail "the fleet report logged to the browser console"
fi
body=$(grep -o -m1 '<body[^>]*>' "$work/dom.html" | head -1)
attr() { sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p" <<< "$2"; }
[ "$(attr data-report-errors "$body")" = 0 ] || fail "the page recorded errors: $body"
[ "$(attr data-report-state "$body")" = "done" ] || fail "the charts did not finish rendering: $body"
expected=$(attr data-charts-expected "$body")
[ -n "$expected" ] && [ "$expected" -gt 0 ] && [ "$(attr data-charts-rendered "$body")" = "$expected" ] ||
  fail "not every chart rendered: $body"
echo "PASS: 2 array tasks + merge on a one-node Slurm in $((SECONDS - start))s; fleet report renders ($expected charts)"
