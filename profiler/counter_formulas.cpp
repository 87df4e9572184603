#include "profiler/counter_formulas.h"

#include <algorithm>

namespace lmroof::profiler {

namespace {

std::optional<double> get(const CounterValues& c, const char* name) {
  const auto it = c.find(name);
  if (it == c.end()) return std::nullopt;
  return it->second;
}

double get_or_zero(const CounterValues& c, const char* name) { return get(c, name).value_or(0.0); }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// add·wa + mul·wm + fma·wf, when all three counters are present.
std::optional<double> weighted(const CounterValues& c, const char* add, const char* mul, const char* fma, double wa,
                               double wm, double wf) {
  const auto a = get(c, add), m = get(c, mul), f = get(c, fma);
  if (!a || !m || !f) return std::nullopt;
  return wa * *a + wm * *m + wf * *f;
}

}  // namespace

const std::vector<std::string>& roofline_metrics() {
  static const std::vector<std::string> names = {
      metric::kDramRead,       metric::kDramWrite,  metric::kL2Bytes,    metric::kSmCycles,
      metric::kSmClock,        metric::kDuration,   metric::kFadd,       metric::kFmul,
      metric::kFfma,           metric::kDadd,       metric::kDmul,       metric::kDfma,
      metric::kHadd,           metric::kHmul,       metric::kHfma,       metric::kFadd2,
      metric::kFmul2,          metric::kFfma2,      metric::kTensorBf16, metric::kTensorFp16,
      metric::kTensorTf32,     metric::kTensorFp64, metric::kTensorFp8,  metric::kTensorBf16Hgmma,
      metric::kTensorBf16Hmma,
  };
  return names;
}

const std::vector<std::string>& tensor_flop_metrics() {
  static const std::vector<std::string> names = {metric::kTensorBf16, metric::kTensorFp16, metric::kTensorTf32,
                                                 metric::kTensorFp64, metric::kTensorFp8};
  return names;
}

bool is_additive(const std::string& m) {
  // Rates and percentages are not; counts, byte and cycle totals and durations of
  // consecutive ranges are.
  return !ends_with(m, ".per_second") && !ends_with(m, ".pct") && m.find(".pct_of_") == std::string::npos &&
         m.find(".per_cycle") == std::string::npos;
}

std::optional<double> fp32_flops(const CounterValues& c) {
  const auto scalar = weighted(c, metric::kFadd, metric::kFmul, metric::kFfma, 1, 1, 2);
  if (!scalar) return std::nullopt;
  // Paired FP32 instructions do two lanes of work per thread instruction; chips
  // without them (GH100) do not have these counters, which then count as 0.
  return *scalar + 2 * get_or_zero(c, metric::kFadd2) + 2 * get_or_zero(c, metric::kFmul2) +
         4 * get_or_zero(c, metric::kFfma2);
}

std::optional<double> fp64_flops(const CounterValues& c) {
  return weighted(c, metric::kDadd, metric::kDmul, metric::kDfma, 1, 1, 2);
}

std::optional<double> fp16_flops(const CounterValues& c) {
  // Nsight Compute's half-precision roofline counts HADD/HMUL as 2 and HFMA as 4
  // operations per thread instruction: they operate on half2 (two lanes).
  return weighted(c, metric::kHadd, metric::kHmul, metric::kHfma, 2, 2, 4);
}

std::optional<double> tensor_flops(const CounterValues& c) {
  std::optional<double> sum;
  for (const auto& name : tensor_flop_metrics())
    if (const auto v = get(c, name.c_str())) sum = sum.value_or(0.0) + *v;
  return sum;
}

std::optional<double> dram_bytes(const CounterValues& c) {
  const auto r = get(c, metric::kDramRead), w = get(c, metric::kDramWrite);
  if (!r || !w) return std::nullopt;
  return *r + *w;
}

std::optional<double> l2_bytes(const CounterValues& c) { return get(c, metric::kL2Bytes); }

std::optional<double> sm_clock_hz(const CounterValues& c) {
  if (const auto hz = get(c, metric::kSmClock)) return *hz;
  const auto cycles = get(c, metric::kSmCycles), ns = get(c, metric::kDuration);
  if (cycles && ns && *ns > 0) return *cycles / (*ns * 1e-9);
  return std::nullopt;
}

DerivedMetrics derive(const CounterValues& c) {
  DerivedMetrics d;
  d.dram_read_bytes = get(c, metric::kDramRead);
  d.dram_write_bytes = get(c, metric::kDramWrite);
  d.dram_bytes = dram_bytes(c);
  d.l2_bytes = l2_bytes(c);
  d.fp32_flops = fp32_flops(c);
  d.fp64_flops = fp64_flops(c);
  d.fp16_flops = fp16_flops(c);
  if (d.fp32_flops && d.fp64_flops && d.fp16_flops) d.cuda_core_flops = *d.fp32_flops + *d.fp64_flops + *d.fp16_flops;
  d.tensor_flops = tensor_flops(c);
  if (d.cuda_core_flops && d.tensor_flops) d.total_flops = *d.cuda_core_flops + *d.tensor_flops;
  d.sm_cycles = get(c, metric::kSmCycles);
  d.sm_clock_hz = sm_clock_hz(c);
  if (const auto ns = get(c, metric::kDuration)) d.duration_s = *ns * 1e-9;

  // What a formula needed and did not get (the optional paired-FP32 counters and all
  // but one tensor path may be absent without making a formula unknown).
  const std::vector<const char*> required = {metric::kDramRead, metric::kDramWrite, metric::kL2Bytes, metric::kSmCycles,
                                             metric::kFadd,     metric::kFmul,      metric::kFfma,    metric::kDadd,
                                             metric::kDmul,     metric::kDfma,      metric::kHadd,    metric::kHmul,
                                             metric::kHfma};
  for (const char* name : required)
    if (!c.count(name)) d.missing.emplace_back(name);
  for (const auto& name : tensor_flop_metrics())
    if (!c.count(name)) d.missing.push_back(name);
  return d;
}

CounterValues subtract(const CounterValues& a, const CounterValues& b) {
  CounterValues out;
  for (const auto& [name, value] : a) {
    if (!is_additive(name)) continue;
    const auto it = b.find(name);
    if (it != b.end()) out[name] = value - it->second;
  }
  return out;
}

std::optional<double> writeback_bytes(const CounterValues& writeback, const CounterValues& baseline) {
  const auto w = get(writeback, metric::kDramWrite), b = get(baseline, metric::kDramWrite);
  if (!w || !b) return std::nullopt;
  return std::max(0.0, *w - *b);
}

}  // namespace lmroof::profiler
