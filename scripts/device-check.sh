#!/usr/bin/env bash
# Run ON a machine with an NVIDIA GPU and no network, after scripts/device-pack.sh
# packed .device/ here. It unpacks the carried build, runs the GPU tests, then
# `lmroof run --backend cuda`, and writes logs, results.json and report.html under
# $OUT (or ./device-out); when ncu is there and time is left, compares lmroof's
# counters with Nsight Compute's on three kernels. A short table comes last. Budget:
# under 8 minutes (tests capped at 150 s, the quick ceilings with the launch ceilings at 90 s, the run at 300 s, ncu at 3 x 40 s and only
# while under 400 s; --quick for a first smoke test). --sanitize instead runs the
# CUDA kernel tests under compute-sanitizer (memcheck, then racecheck) and stops.
#   scripts/device-check.sh [--quick | --sanitize]
set -uo pipefail
cd "$(dirname "$0")/.."
quick=()
sanitize=0
case "${1:-}" in
  -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
  --quick) quick=(--quick) ;;
  --sanitize) sanitize=1 ;;
  "") ;;
  *) echo "device-check: unknown option '$1' (see --help)"; exit 2 ;;
esac
out="${OUT:-$PWD/device-out}"
mkdir -p "$out"
log="$out/device-check.log"
exec > >(tee -a "$log") 2>&1
started=$(date +%s)
step() { echo; echo "== $* ($(( $(date +%s) - started ))s)"; }

[ -f .device/bundle.tar.xz ] || { echo "device-check: .device/bundle.tar.xz missing: run scripts/device-pack.sh first and carry .device"; exit 2; }
stage=/tmp/lmroof-device
rm -rf "$stage" && mkdir -p "$stage" && tar -C "$stage" -xJf .device/bundle.tar.xz
cuda_lib=$(dirname "$(ls /usr/local/cuda/lib64/libcublas.so* /usr/local/cuda/targets/*/lib/libcublas.so* 2>/dev/null | head -1)" 2>/dev/null)
export LD_LIBRARY_PATH="$stage/lib:${cuda_lib:-/usr/local/cuda/lib64}:${LD_LIBRARY_PATH:-}"
# The built-in claims live in the source tree, wherever this checkout landed.
export LMROOF_CLAIMS_DIR="$PWD/claims"
bin="$stage/bin"

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv || true
nvcc --version 2>/dev/null | tail -1 || true
ldd "$bin/lmroof" | grep -E 'not found' && { echo "device-check: missing libraries"; exit 2; }

if [ "$sanitize" = 1 ]; then
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer 2>/dev/null | head -1)
  [ -n "$sanitizer" ] || { echo "device-check: compute-sanitizer not found"; exit 2; }
  rc=0
  for tool in memcheck racecheck; do
    step "compute-sanitizer --tool $tool over the CUDA kernel tests"
    timeout 240 "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$bin/lmroof_tests" --gtest_filter='Cuda/CudaKernels.*:CudaBlock.*' --gtest_brief=1 2>&1 | tail -40
    r=${PIPESTATUS[0]}
    echo "$tool exit code: $r"
    [ "$r" = 0 ] || rc=$r
  done
  exit "$rc"
fi

step "GPU counters lmroof will read (CUPTI range profiler)"
timeout 30 "$bin/lmroof" counters 2>&1 | head -3

step "GPU tests (every CUDA kernel vs the float64 reference)"
timeout 150 "$bin/lmroof_tests" --gtest_filter='Cuda*:*Cupti*:*Gpu*' --gtest_brief=1 \
  --gtest_output="xml:$out/gpu-tests.xml" 2>&1 | tail -60
tests_rc=${PIPESTATUS[0]}
echo "GPU tests exit code: $tests_rc"

# The launch ceilings (t0: an empty kernel's launch + sync, back-to-back launches, a
# CUDA graph's per-kernel cost) print beside the roofs; the run below measures them again.
step "lmroof ceilings --backend cuda --quick (launch ceilings: launch, launch_throughput, launch_graph)"
timeout 90 "$bin/lmroof" ceilings --backend cuda --quick 2>&1 | tail -15
ceilings_rc=${PIPESTATUS[0]}
echo "lmroof ceilings exit code: $ceilings_rc"

step "lmroof run --backend cuda ${quick[*]}"
timeout 300 "$bin/lmroof" run --backend cuda "${quick[@]}" --out "$out/run"
run_rc=$?
echo "lmroof run exit code: $run_rc"

ncu_rc=skipped
ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
if [ -n "$ncu_bin" ] && [ -f "$out/run/bench.json" ] && [ "${#quick[@]}" = 0 ] && [ $(( $(date +%s) - started )) -lt 400 ]; then
  step "Nsight Compute cross-check (lmroof's CUPTI counters vs ncu, same kernels)"
  metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum
  for op in fadd fmul ffma dadd dmul dfma hadd hmul hfma; do
    metrics="$metrics,smsp__sass_thread_inst_executed_op_${op}_pred_on.sum"
  done
  compare=()
  # label, benchmark (one kernel per iteration), kernel-name regex
  while read -r label run kernel; do
    # --clock-control none: lmroof never touches clocks and neither may ncu here.
    timeout 40 "$ncu_bin" --clock-control none --cache-control all --metrics "$metrics" \
      --page raw --csv --print-units base --log-file "$out/ncu-$label.csv" \
      --kernel-name "regex:$kernel" --launch-skip 3 --launch-count 1 \
      "$bin/lmroof_bench" --lmroof_backend=cuda --lmroof_suite="${run%%/*}" --lmroof_no_ceilings \
      --benchmark_filter="^$run(/|\$)" --benchmark_repetitions=1 --benchmark_min_time=0.01 \
      >"$out/ncu-$label.log" 2>&1
    echo "ncu $label: exit $?"
    compare+=("$run=$out/ncu-$label.csv")
  done <<'TARGETS'
rmsnorm norm/rmsnorm/fused/cuda/bf16/tokens:16384/d_model:4096 fused_norm_kernel
layernorm norm/layernorm/fused/cuda/bf16/tokens:16384/d_model:4096 fused_norm_kernel
gemm bias/nobias/fused/cuda/bf16/tokens:4096/in_features:4096/out_features:4096 nvjet|sm90|gemm|cutlass
TARGETS
  python3 scripts/ncu_compare.py "$out/run/bench.json" "${compare[@]}" | tee "$out/ncu-compare.txt"
  ncu_rc=${PIPESTATUS[0]}
fi

step "summary"
if [ -f "$out/run/results.json" ]; then
  cp "$out/run/results.json" "$out/results.json"
  cp "$out/run/report.html" "$out/report.html" 2>/dev/null || true
  python3 - "$out/results.json" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{'ceiling':<20}{'value':>12}")
for c in r["ceilings"]:
    if c["unit"] == "s":  # a launch ceiling: the median seconds per launch
        print(f"{c['name']:<20}{c['value']*1e6:>12.2f} us  {c.get('detail','')}")
        continue
    unit = "GB/s" if c["unit"] == "B/s" else "GFLOP/s"
    print(f"{c['name']:<20}{c['value']/1e9:>12.1f} {unit}  {c.get('detail','')}")
print()
print(f"{'run':<72}{'ms':>9}{'GB/s':>9}{'roof%':>7}{'bytes/min':>10}")
for x in r["runs"]:
    bw = x["roofline"].get("bandwidth_utilization")
    over = x["bytes"].get("measured_over_minimum")  # measured DRAM bytes over the minimum, when counters ran
    print(f"{x['id'][:71]:<72}{x['time_s']['median']*1e3:>9.3f}{x['achieved']['byte_per_s']/1e9:>9.0f}"
          f"{(100*bw if bw else 0):>7.0f}{(f'{over:.2f}' if over else '-'):>10}")
PY
fi
echo "device-check: tests rc=$tests_rc, ceilings rc=$ceilings_rc, run rc=$run_rc, ncu comparison rc=$ncu_rc, $(( $(date +%s) - started ))s"
[ "$tests_rc" = 0 ] && [ "$run_rc" = 0 ]
