# Sourced by tests/e2e/busy_machine.sh and scripts/omp-policy-verdicts.sh (no script
# itself): one core kept busy by a loop named `busyloop` (a process's name is its
# program's file name, which lmroof's contention warning names), bounded in time by
# `timeout` (it ends by itself even if the caller is killed with SIGKILL), and stopped on
# every exit of the caller (busy_core_traps).
#   busy_core_traps CLEANUP     traps: on EXIT stop the loop, then run CLEANUP; INT, TERM, HUP exit
#   start_busy_core DIR SECONDS the loop, its program linked in DIR, for at most SECONDS
#   stop_busy_core              the loop stopped, if one runs
busy_pid=""
stop_busy_core() {
  if [ -n "$busy_pid" ]; then kill "$busy_pid" 2>/dev/null; wait "$busy_pid" 2>/dev/null; busy_pid=""; fi
}
start_busy_core() {
  [ -e "$1/busyloop" ] || ln -s "$(command -v sh)" "$1/busyloop"
  timeout "$2" "$1/busyloop" -c 'while :; do :; done' &
  busy_pid=$!
}
busy_core_traps() {
  # shellcheck disable=SC2064  # CLEANUP is the caller's, fixed now
  trap "stop_busy_core; $1" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM HUP
}
