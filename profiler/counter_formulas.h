#pragma once
// From raw GPU counter values (metric name -> value, as CUPTI's range profiler or
// `ncu --metrics` reports them) to the quantities a roofline needs: FLOPs per
// precision, tensor-core FLOPs, DRAM and L2 bytes, the achieved SM clock.
//
// Pure functions, no CUDA dependency: compiled in every build and unit-tested on the
// CPU (tests/test_counter_formulas.cpp). Every formula and its source is written out
// in docs/metrics.md.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lmroof::profiler {

using CounterValues = std::map<std::string, double>;

// The metric names used below (Nsight Compute / CUPTI Perfworks names).
namespace metric {
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
inline constexpr const char* kL2Bytes = "lts__t_bytes.sum";
inline constexpr const char* kSmCycles = "sm__cycles_elapsed.avg";
inline constexpr const char* kSmClock = "sm__cycles_elapsed.avg.per_second";
inline constexpr const char* kDuration = "gpu__time_duration.sum";  // ns

inline constexpr const char* kFadd = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum";
inline constexpr const char* kFmul = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum";
inline constexpr const char* kFfma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
inline constexpr const char* kDadd = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum";
inline constexpr const char* kDmul = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum";
inline constexpr const char* kDfma = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum";
inline constexpr const char* kHadd = "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum";
inline constexpr const char* kHmul = "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum";
inline constexpr const char* kHfma = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum";
// Paired FP32 instructions (FADD2/FMUL2/FFMA2) of chips newer than Hopper; absent on
// GH100, where they count as 0.
inline constexpr const char* kFadd2 = "smsp__sass_thread_inst_executed_op_fadd2_pred_on.sum";
inline constexpr const char* kFmul2 = "smsp__sass_thread_inst_executed_op_fmul2_pred_on.sum";
inline constexpr const char* kFfma2 = "smsp__sass_thread_inst_executed_op_ffma2_pred_on.sum";

// Tensor-core math ops by source type (GH100 names; they include the wgmma/hgmma
// path). One op is one FLOP: an FMA counts 2 (docs/metrics.md).
inline constexpr const char* kTensorBf16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
inline constexpr const char* kTensorFp16 = "sm__ops_path_tensor_src_fp16.sum";
inline constexpr const char* kTensorTf32 = "sm__ops_path_tensor_src_tf32_dst_fp32.sum";
inline constexpr const char* kTensorFp64 = "sm__ops_path_tensor_src_fp64.sum";
inline constexpr const char* kTensorFp8 = "sm__ops_path_tensor_src_fp8_sparsity_off.sum";
// Diagnostics only (not summed: already inside kTensorBf16): which instruction family
// did the bf16 work, warpgroup wgmma (HGMMA) or warp-level mma (HMMA).
inline constexpr const char* kTensorBf16Hgmma = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum";
inline constexpr const char* kTensorBf16Hmma = "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum";
}  // namespace metric

// The metrics lmroof asks the range profiler for, in this order.
const std::vector<std::string>& roofline_metrics();
// The tensor paths summed into tensor FLOPs.
const std::vector<std::string>& tensor_flop_metrics();

// Counters that are sums over the hardware (all of the above except the clock rate
// and the per-SM cycle average) and may therefore be added and subtracted across
// ranges.
bool is_additive(const std::string& metric);

// Each returns nullopt when a counter it needs is absent from `c`.
std::optional<double> fp32_flops(const CounterValues& c);  // fadd + fmul + 2·ffma (+ 2·fadd2 + 2·fmul2 + 4·ffma2)
std::optional<double> fp64_flops(const CounterValues& c);  // dadd + dmul + 2·dfma
std::optional<double> fp16_flops(const CounterValues& c);  // 2·hadd + 2·hmul + 4·hfma (half2 instructions)
// Sum of the tensor_flop_metrics() present; nullopt when none is.
std::optional<double> tensor_flops(const CounterValues& c);
std::optional<double> dram_bytes(const CounterValues& c);  // read + write
std::optional<double> l2_bytes(const CounterValues& c);    // lts__t_bytes
// SM clock achieved over the range, Hz: the .per_second rollup when present, else
// elapsed cycles / duration.
std::optional<double> sm_clock_hz(const CounterValues& c);

// Everything derivable from one range's counters.
struct DerivedMetrics {
  std::optional<double> dram_read_bytes, dram_write_bytes, dram_bytes, l2_bytes;
  std::optional<double> fp32_flops, fp64_flops, fp16_flops;
  std::optional<double> cuda_core_flops;  // fp32 + fp64 + fp16, when all three are known
  std::optional<double> tensor_flops;
  std::optional<double> total_flops;  // cuda_core + tensor, when both are known
  std::optional<double> sm_cycles, sm_clock_hz, duration_s;
  std::vector<std::string> missing;  // counters absent from the input that a formula needed
};
DerivedMetrics derive(const CounterValues& c);

// a − b for the additive counters present in both (non-additive ones are dropped).
CounterValues subtract(const CounterValues& a, const CounterValues& b);

// DRAM writes that the measured range caused but that were still dirty in L2 when it
// ended, from two flush ranges run right after it: `writeback` (evicts those lines)
// and `baseline` (an identical flush with nothing dirty). Clamped at 0; nullopt when a
// write counter is missing.
std::optional<double> writeback_bytes(const CounterValues& writeback, const CounterValues& baseline);

}  // namespace lmroof::profiler
