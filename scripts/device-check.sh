#!/usr/bin/env bash
# Run ON a lent GPU machine (no network), after scripts/device-pack.sh packed .device/
# here. Two calls, each a plan of steps with their own timeouts inside a time budget:
#   --first  (default, about 6 min): the GPU tests, the GPU ceilings and launch
#            ceilings, and the --quick CUDA suite with --metrics auto (validated
#            before timing), after `lmroof counters`.
#   --second (optional, the rest of the device time): the default CUDA suite, the
#            PyTorch peer comparison, torch.profiler traces of a GPT-2-style block
#            (fused F.rms_norm and unfused), and the Nsight Compute cross-check.
#   --sanitize      also run compute-sanitizer memcheck + racecheck over lmroof's own
#                   kernels (norm, decode, stability, the block's softmax/RoPE) at the
#                   tests' small shapes, last, if the budget leaves time.
#   --budget SECONDS  the call's time for its steps, summary and packing (default 320
#                   first, 250 second); pass the run's timeout_s minus 25 or more. A
#                   step that cannot get its minimum time is skipped, saying so.
# Everything is written under /tmp/lmroof-device-<call>/, then packed into
# $OUT/device-<call>.tar.gz plus the log $OUT/device-<call>.log (the lent machine
# returns at most 8 files). The key figures are the last lines of the output.
# docs/gpu.md ("The device check") has the plan and its time arithmetic:
#   run(command="scripts/device-check.sh --first --budget 320", carry=[".device"], timeout_s=360)
#   scripts/device-check.sh [--first | --second] [--sanitize] [--budget SECONDS]
set -o pipefail  # no -u, no -e: a step that fails must not lose the outputs
cd "$(dirname "$0")/.."
repo=$PWD

call=first sanitize=0 budget=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    --first) call=first ;;
    --second) call=second ;;
    --sanitize) sanitize=1 ;;
    --budget)
      [[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$2" -ge 60 ] && [ "$2" -le 600 ] ||
        { echo "device-check: --budget needs whole seconds in [60, 600] (got '${2:-}')"; exit 2; }
      budget=$2; shift ;;
    *) echo "device-check: unknown option '$1' (see --help)"; exit 2 ;;
  esac
  shift
done
[ -n "$budget" ] || budget=$([ "$call" = first ] && echo 320 || echo 250)

out="${OUT:-$repo/device-out}"
work="${LMROOF_DEVICE_WORK:-/tmp/lmroof-device-$call}"
name="device-$call"
rm -rf "$work" && mkdir -p "$work" "$out" || { echo "device-check: cannot create $work or $out"; exit 2; }
log="$work/device-check.log"
exec 3>&1 4>&2
exec > >(tee -a "$log") 2>&1
tee_pid=$!
started=$(date +%s)
pack_reserve=15  # seconds kept for the summary and the packing
deadline=$((started + budget - pack_reserve))
elapsed() { echo $(( $(date +%s) - started )); }

# --- steps: each has a cap and a minimum; its timeout is the cap or what the budget has left
declare -a step_lines=()
note() { step_lines+=("$(printf '%-12s %s' "$1" "$2")"); }
# run_step NAME CAP MIN COMMAND...: output in $work/NAME.out, its tail printed; rc in $step_rc
# (77 from a command means "skipped", with its reason as the last line of output).
step_rc=0
run_step() {
  local label=$1 cap=$2 min=$3; shift 3
  local left=$((deadline - $(date +%s)))
  if [ "$left" -lt "$min" ]; then
    echo; echo "== $label: skipped: ${left}s of the ${budget}s budget left, it needs at least ${min}s"
    note "$label" "skipped: ${left}s of the budget left, needs ${min}s"
    step_rc=skipped; return 0
  fi
  local t=$(( cap < left ? cap : left )) t0=$(date +%s)
  echo; echo "== $label (timeout ${t}s; at $(elapsed)s)"
  # in the background, so that a signal to this script is handled at once (bash runs
  # traps only between commands, and `wait` is interrupted by them)
  timeout -k 5 "$t" "$@" >"$work/$label.out" 2>&1 &
  step_pid=$!
  wait "$step_pid"
  step_rc=$?
  step_pid=
  tail -n "${STEP_TAIL:-25}" "$work/$label.out"
  local took=$(( $(date +%s) - t0 ))
  case $step_rc in
    0) note "$label" "ok (${took}s)" ;;
    77) note "$label" "skipped: $(tail -n 1 "$work/$label.out" | cut -c1-150)"; step_rc=skipped ;;
    124|137) note "$label" "TIMED OUT after ${t}s" ;;
    *) note "$label" "failed: exit $step_rc (${took}s)" ;;
  esac
  echo "-- $label: exit $step_rc, ${took}s"
}

# --- summary: computed at the end (or when the script is stopped early), packed with
# everything, and printed last
finished=0
finish() {
  [ "$finished" = 1 ] && return
  finished=1
  summary="$work/summary.txt"
  {
    echo "device-check $call on ${gpu_name:-no GPU that nvidia-smi names}: bundle $commit_note"
    [ ${#missing_libs[@]} -gt 0 ] && echo "libraries not found: ${missing_libs[*]}"
    if [ -f "$work/gpu-tests.xml" ]; then
      python3 - "$work/gpu-tests.xml" <<'PY' || true
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
tests, failures, errors = (int(r.get(k, 0)) for k in ("tests", "failures", "errors"))
skipped = sum(1 for c in r.iter("testcase") if c.find("skipped") is not None or c.get("result") == "skipped")
failed = [f'{c.get("classname")}.{c.get("name")}' for c in r.iter("testcase") if c.find("failure") is not None]
print(f"GPU tests: {tests} run, {tests - skipped - len(failed)} passed, {len(failed)} failed, {skipped} skipped")
for f in failed[:8]:
    print(f"  FAILED {f}")
PY
    fi
    if [ -f "$work/run/results.json" ]; then
      python3 - "$work/run/results.json" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
for c in r.get("ceilings", []):
    if c["unit"] == "s":  # a launch ceiling: the median seconds per launch
        print(f"ceiling {c['name']:<22}{c['value']*1e6:>10.2f} us")
    else:
        unit = "GB/s" if c["unit"] == "B/s" else "GFLOP/s"
        print(f"ceiling {c['name']:<22}{c['value']/1e9:>10.1f} {unit}")
# the bandwidth curve's plateaus (bench/bandwidth_curve_cuda.cu; never run on a GPU before)
curve = r.get("bandwidth_curve") or {}
if curve.get("points"):
    levels = ", ".join(f"{l['name']} {l['bandwidth']/1e9:.0f} GB/s" for l in curve.get("levels", []))
    print(f"curve: {len(curve['points'])} points, {curve['points'][0]['working_set_bytes']/2**20:.0f} to "
          f"{curve['points'][-1]['working_set_bytes']/2**20:.0f} MiB; levels: {levels or 'none found'}")
else:
    print("curve: none in results.json (see run/ skipped for curve/cuda/read)")
# the pairs with acceptance figures (docs/gpu.md, issues #15/#28) first; the rest in the file
first = {"norm": 0, "decode": 1, "bias": 2}
runs = sorted(r.get("runs", []), key=lambda x: first.get(x["id"].split("/")[0], 3))
print(f"{'run':<66}{'ms':>9}{'GB/s':>7}{'roof%':>6}{'B/min':>6}")
for x in runs[:45]:
    bw = x["roofline"].get("bandwidth_utilization")
    over = x["bytes"].get("measured_over_minimum")  # measured DRAM bytes over the minimum, when counters ran
    print(f"{x['id'][:65]:<66}{x['time_s']['median']*1e3:>9.3f}{x['achieved']['byte_per_s']/1e9:>7.0f}"
          f"{(100*bw if bw else 0):>6.0f}{(f'{over:.2f}' if over else '-'):>6}")
if len(runs) > 45:
    print(f"... {len(runs) - 45} more runs in run/results.json")
PY
    elif [ -f "$work/ceilings.out" ]; then
      tail -n 14 "$work/ceilings.out"
    fi
    [ -f "$work/peer/peer.txt" ] && head -n 30 "$work/peer/peer.txt"
    [ -f "$work/ncu/ncu-compare.txt" ] && tail -n 8 "$work/ncu/ncu-compare.txt"
    echo "steps:"
    printf '  %s\n' "${step_lines[@]}"
  } >"$summary" 2>&1

  # --- pack (the optional pieces go first if the tarball is over the limit), then the figures
  echo
  echo "== packing (at $(elapsed)s)"
  scripts/device-pack-outputs.sh "$work" "$out" "$name" "$log" 'traces/*' 'ncu/*.out' 'run/report*.vl.json' 'run/report.html' '*.out'
  pack_rc=$?
  echo
  echo "================ device-check $call: key figures ================"
  cat "$summary"
  echo "device-check $call: $(elapsed)s of the ${budget}s budget; outputs: $name.tar.gz + $name.log in \$OUT (pack exit $pack_rc)"
  # the uncompressed log, complete (tee flushed), as the second file
  exec 1>&3 2>&4 3>&- 4>&-
  wait "$tee_pid" 2>/dev/null
  cp "$log" "$out/$name.log"
  # exit 0 when every step that ran succeeded (skips say why in the summary)
  [ "$bundle_ok" = 1 ] && ! printf '%s\n' "${step_lines[@]}" | grep -qE ' (failed|TIMED OUT)'
}
# Stopped by a signal: everything is still packed, and the exit says so as a shell
# would (128 + the signal: 143 for TERM, 130 for INT), never 0 (issue 47 #22).
signal_rc=
trap 'finish; finish_rc=$?; exit "${signal_rc:-$finish_rc}"' EXIT
step_pid=
stopped() {
  signal_rc=$1
  [ -n "$step_pid" ] && kill -TERM "$step_pid" 2>/dev/null
  note interrupted "stopped by a signal at $(elapsed)s"
  exit "$signal_rc"
}
trap 'stopped 143' TERM
trap 'stopped 130' INT

echo "device-check $call: budget ${budget}s, outputs under $work, packed to $out/$name.tar.gz"

# --- the bundle
if [ ! -f .device/bundle.tar.xz ]; then
  echo "device-check: .device/bundle.tar.xz missing: run scripts/device-pack.sh here and carry .device"
  note bundle "missing: every step skipped"
  bundle_ok=0
else
  stage=/tmp/lmroof-device-bundle
  rm -rf "$stage" && mkdir -p "$stage" && tar -C "$stage" -xJf .device/bundle.tar.xz && bundle_ok=1 || bundle_ok=0
  [ "$bundle_ok" = 1 ] || note bundle "could not be unpacked: every step skipped"
fi
bin=${stage:-/nonexistent}/bin

# --- does the bundle match this checkout?
commit_note="unknown"
if [ "$bundle_ok" = 1 ] && [ -f "$stage/source.txt" ]; then
  packed=$(sed -n 's/^commit //p' "$stage/source.txt")
  here=$(git rev-parse HEAD 2>/dev/null || echo "")
  changed=$(cd "$repo" && sha256sum --quiet -c "$stage/sources.sha256" 2>/dev/null | sed 's/: .*//' | sort -u)
  n_changed=$(printf '%s' "$changed" | grep -c . || true)
  if [ "$n_changed" = 0 ]; then commit_note="matches this checkout (bundle ${packed:0:12}$(grep -q '^dirty yes' "$stage/source.txt" && echo ', packed from uncommitted changes'))"
  else commit_note="DIFFERS: $n_changed source files changed since the bundle (${packed:0:12}) was packed: $(echo $changed | cut -c1-200); re-run scripts/device-pack.sh"; fi
  [ -n "$here" ] && [ "$here" != "$packed" ] && commit_note="$commit_note; HEAD is ${here:0:12}, the bundle ${packed:0:12}"
  echo "bundle: $commit_note"
fi

# --- libraries: the device's own CUDA 13 libraries, wherever they are (toolkit, the
# Python wheels' nvidia/*/lib, ldconfig), the bundle's CUPTI as the last resort
lib_dirs=()
add_dir() { local d; for d in "$@"; do [ -d "$d" ] && [[ " ${lib_dirs[*]-} " != *" $d "* ]] && lib_dirs+=("$d"); done; return 0; }
for root in ${CUDA_HOME:-} ${CUDA_PATH:-} /usr/local/cuda /usr/local/cuda-*; do
  [ -d "$root" ] && add_dir "$root/lib64" "$root/lib" "$root/extras/CUPTI/lib64" "$root"/targets/*/lib
done
py_sites=$(python3 -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
for site in $py_sites /opt/*/.venv/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages /usr/lib/python3/dist-packages; do
  add_dir "$site"/nvidia/*/lib
done
find_lib() {  # prints the folder holding $1, searching lib_dirs, then ldconfig, then the bundle
  local d
  for d in "${lib_dirs[@]}"; do [ -e "$d/$1" ] && { echo "$d"; return 0; }; done
  d=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n {print $NF; exit}')
  [ -n "$d" ] && [ -e "$d" ] && { dirname "$d"; return 0; }
  [ -e "${stage:-/nonexistent}/lib-cuda/$1" ] && { echo "$stage/lib-cuda"; return 0; }
  return 1
}
ld_path=()
[ "$bundle_ok" = 1 ] && ld_path+=("$stage/lib")
missing_libs=()
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcupti.so.13 libnvperf_host.so libnvperf_target.so; do
  if d=$(find_lib "$lib"); then
    echo "library $lib: $d"
    [[ " ${ld_path[*]-} " != *" $d "* ]] && ld_path+=("$d")
  else
    echo "library $lib: not found (searched ${#lib_dirs[@]} folders, ldconfig and the bundle)"
    missing_libs+=("$lib")
  fi
done
export LD_LIBRARY_PATH="$(IFS=:; echo "${ld_path[*]-}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The built-in claims live in the source tree, wherever this checkout landed.
export LMROOF_CLAIMS_DIR="$repo/claims"
export PYTHONUNBUFFERED=1  # a step stopped by its timeout keeps what it printed

# can_start BINARY: 0 when every library it needs resolves; else says which it lacks
declare -A startable=()
for b in lmroof lmroof_tests lmroof_bench; do
  startable[$b]=""
  if [ "$bundle_ok" != 1 ] || [ ! -x "$bin/$b" ]; then startable[$b]="not in the bundle"; continue; fi
  lacking=$(ldd "$bin/$b" 2>&1 | awk '/=> not found/{print $1}' | tr '\n' ' ')
  if [ -n "$lacking" ]; then
    startable[$b]="cannot start: missing ${lacking% }"
  elif ! timeout 20 "$bin/$b" --help >/dev/null 2>"$work/start-$b.err"; then
    # e.g. a newer glibc or libstdc++ needed than this machine has
    startable[$b]="cannot start: $(grep -m1 -E 'error|not found|GLIBC' "$work/start-$b.err" | cut -c1-160)"
  fi
  [ -n "${startable[$b]}" ] && echo "$b ${startable[$b]}"
done
# step_if BINARY NAME CAP MIN COMMAND...: the step, or one line saying why it cannot start
# (the program, or the GPU the step needs; set gpu_step=0 for a step that runs without one)
step_if() {
  local b=$1 label=$2; shift 2
  if [ "${gpu_step:-1}" = 1 ] && [ -n "$no_gpu" ]; then
    echo; echo "== $label: skipped: $no_gpu"; note "$label" "skipped: $no_gpu"; step_rc=skipped
  elif [ -n "${startable[$b]}" ]; then
    echo; echo "== $label: skipped: $b ${startable[$b]}"; note "$label" "skipped: $b ${startable[$b]}"; step_rc=skipped
  else
    run_step "$label" "$@"
  fi
}

# --- the machine and its tools
echo
echo "== machine (at $(elapsed)s)"
gpu_name="" no_gpu=""
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && ! [ -e /dev/nvidia0 ]; then
  no_gpu="no GPU visible ($(command -v nvidia-smi >/dev/null && echo "nvidia-smi lists none" || echo "no nvidia-smi"), no /dev/nvidia0)"
  echo "$no_gpu: the steps that need one are skipped"
fi
if command -v nvidia-smi >/dev/null; then
  timeout 15 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu \
    --format=csv,noheader >"$work/gpu.txt" 2>&1 && gpu_name=$(cut -d, -f1 "$work/gpu.txt" | head -1)
  cat "$work/gpu.txt"
else
  echo "nvidia-smi: not on the PATH"
fi
nvcc --version 2>/dev/null | tail -1 || echo "nvcc: not on the PATH"
find_tool() {  # $1: name; prints its path
  command -v "$1" 2>/dev/null && return 0
  local p
  for p in /usr/local/cuda/bin/"$1" /usr/local/cuda-*/bin/"$1" /usr/local/cuda/compute-sanitizer/"$1" \
           /opt/nvidia/nsight-compute/*/"$1" /opt/nvidia/*/"$1" /usr/local/cuda/nsight-compute*/"$1" \
           $(for s in $py_sites /opt/*/.venv/lib/python3*/site-packages; do echo "$s"/nvidia/*/bin/"$1" "$s"/nvidia/*/compute-sanitizer/"$1"; done); do
    [ -x "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}
ncu_bin=$(find_tool ncu) && echo "ncu: $ncu_bin" || echo "ncu: not found (the Nsight Compute cross-check will skip)"
if [ "$sanitize" = 1 ]; then
  sanitizer=$(find_tool compute-sanitizer) && echo "compute-sanitizer: $sanitizer" || echo "compute-sanitizer: not found (--sanitize will skip)"
fi
if [ ${#missing_libs[@]} -gt 0 ]; then
  case " ${missing_libs[*]} " in
    *libnvperf*|*libcupti*) echo "without ${missing_libs[*]}: lmroof counters and --metrics cupti cannot read counters; --metrics auto falls back to the analytic model" ;;
  esac
fi

# --- the plan
# lmroof's own kernels at the tests' small shapes, bf16: 119 cases (norm, decode's grouped
# kernels, stability, the block's RoPE and block-per-row softmax shapes), the largest left out
sanitize_filter='Cuda/CudaKernels.*/norm_*_bf16_*:Cuda/CudaKernels.*/decode_*_grouped_bf16_*:Cuda/CudaKernels.*/stability_*_bf16_*'
sanitize_filter="$sanitize_filter:Cuda/CudaKernels.*/block_serial_fused_bf16_tokens_37_*:Cuda/CudaKernels.*/block_serial_fused_bf16_tokens_600_*"
sanitize_filter="$sanitize_filter-*context_4096*:*vocab_256000*:*vocab_32003*:*d_model_40000*"
sanitize_step() {
  if [ "$sanitize" != 1 ]; then return 0; fi
  if [ -z "${sanitizer:-}" ]; then echo; echo "== sanitize: skipped: compute-sanitizer not found"; note sanitize "skipped: compute-sanitizer not found"; return 0; fi
  local tool
  for tool in memcheck racecheck; do
    STEP_TAIL=8 step_if lmroof_tests "sanitize-$tool" 60 20 "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$bin/lmroof_tests" --gtest_filter="$sanitize_filter" --gtest_brief=1
    if [ -f "$work/sanitize-$tool.out" ] && grep -qiE 'device not supported|unable to (find|initialize)|error 999|not supported on this' "$work/sanitize-$tool.out"; then
      local why; why=$(grep -iE 'device not supported|unable to|error 999|not supported' "$work/sanitize-$tool.out" | head -1 | cut -c1-150)
      echo "compute-sanitizer refused this device: $why"
      step_lines[${#step_lines[@]}-1]=$(printf '%-12s %s' "sanitize" "skipped: compute-sanitizer refused this device: $why")
      return 0
    fi
  done
}

if [ "$bundle_ok" = 1 ] && [ "$call" = first ]; then
  STEP_TAIL=4 step_if lmroof counters 20 5 "$bin/lmroof" counters
  # the tests run without a GPU too: the GPU cases skip with the device query's reason
  STEP_TAIL=12 gpu_step=0 step_if lmroof_tests tests 110 30 "$bin/lmroof_tests" --gtest_filter='Cuda*:*Cupti*:*Gpu*' --gtest_brief=1 \
    --gtest_output="xml:$work/gpu-tests.xml"
  STEP_TAIL=15 step_if lmroof ceilings 60 20 "$bin/lmroof" ceilings --backend cuda --quick --json "$work/ceilings.bench.json"
  STEP_TAIL=8 step_if lmroof run-quick 100 30 "$bin/lmroof" run --backend cuda --quick --metrics auto --out "$work/run"
  sanitize_step
elif [ "$bundle_ok" = 1 ]; then
  STEP_TAIL=8 step_if lmroof run 150 60 "$bin/lmroof" run --backend cuda --metrics auto --out "$work/run"
  mkdir -p "$work/peer" "$work/traces"
  STEP_TAIL=30 run_step peer 45 15 python3 scripts/torch_peer.py --lmroof "$bin/lmroof" --results "$work/run/results.json" \
    --out "$work/peer"
  STEP_TAIL=6 run_step traces 45 15 python3 scripts/torch_traces.py --out "$work/traces"
  if [ -z "${ncu_bin:-}" ]; then
    echo; echo "== ncu: skipped: ncu not found"; note ncu "skipped: ncu not found"
  elif [ ! -f "$work/run/bench.json" ]; then
    echo; echo "== ncu: skipped: the default suite wrote no bench.json to compare with"; note ncu "skipped: no bench.json from the suite"
  else
    mkdir -p "$work/ncu"
    metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum
    for op in fadd fmul ffma dadd dmul dfma hadd hmul hfma; do metrics="$metrics,smsp__sass_thread_inst_executed_op_${op}_pred_on.sum"; done
    compare=()
    # label, benchmark (one kernel per iteration), kernel-name regex
    while read -r label runid kernel; do
      # --clock-control none: lmroof never touches clocks and neither may ncu here.
      STEP_TAIL=3 step_if lmroof_bench "ncu-$label" 25 15 "$ncu_bin" --clock-control none --cache-control all --metrics "$metrics" \
        --page raw --csv --print-units base --log-file "$work/ncu/$label.csv" \
        --kernel-name "regex:$kernel" --launch-skip 3 --launch-count 1 \
        "$bin/lmroof_bench" --lmroof_backend=cuda --lmroof_suite="${runid%%/*}" --lmroof_no_ceilings \
        --benchmark_filter="^$runid(/|\$)" --benchmark_repetitions=1 --benchmark_min_time=0.01
      [ -s "$work/ncu/$label.csv" ] && compare+=("$runid=$work/ncu/$label.csv")
    done <<'TARGETS'
rmsnorm norm/rmsnorm/fused/cuda/bf16/tokens:16384/d_model:4096 fused_norm_kernel
layernorm norm/layernorm/fused/cuda/bf16/tokens:16384/d_model:4096 fused_norm_kernel
gemm bias/nobias/fused/cuda/bf16/tokens:4096/in_features:4096/out_features:4096 nvjet|sm90|gemm|cutlass
TARGETS
    if [ ${#compare[@]} -gt 0 ]; then
      STEP_TAIL=12 run_step ncu-compare 20 5 python3 scripts/ncu_compare.py "$work/run/bench.json" "${compare[@]}"
      cp "$work/ncu-compare.out" "$work/ncu/ncu-compare.txt" 2>/dev/null
    fi
  fi
  sanitize_step
fi
