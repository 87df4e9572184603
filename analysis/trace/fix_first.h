#pragma once
// "Fix first": what would save the most time, ranked by saving, each with its current
// time, the estimate after the fix and the assumption in words (docs/trace.md, "Fix
// first"). Three kinds: fusing a module's memory-bound kernels into one pass, ops far
// below their roof, and idle gaps in which the host queued nothing.
#include <string>
#include <vector>

#include "analysis/trace/trace_analysis.h"

namespace lmroof::trace {

struct FixItem {
  std::string kind;    // fuse_module | below_roof | host_bound_idle
  std::string target;  // the module type, the op and its shapes, or "idle gaps"
  double current_s = 0, estimate_s = 0, saving_s = 0;
  std::string assumption;
};

// The fraction of its roof a tuned kernel is taken to reach. Sources: lmroof's measured
// bf16 GEMM on an H200, 769-798 of 990 TFLOP/s (78-81%); Dao-AILab quack's RMSNorm and
// softmax at ~90% of an H100's bandwidth. 0.8 is the lower of the two.
constexpr double kAttainableFraction = 0.8;

// One fused pass over `bytes` (a module's input read once and its output written once):
// at the memory roof, plus one launch. The fix-first fusion item's estimate per call, and
// what `fusion_check.h` checks against lmroof's own measured fused kernels.
double fused_pass_seconds(double bytes, const predict::Device& device);

// At most `limit` items, largest saving first; none needs roofs except the host-bound one.
std::vector<FixItem> fix_first(const TraceAnalysis& a, size_t limit = 10);

}  // namespace lmroof::trace
