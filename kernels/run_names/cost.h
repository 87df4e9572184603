#pragma once
// The analytic cost model's vocabulary. Every pair computes one Cost per
// (variant, impl, shape, dtype); the formulas live next to each pair and are
// written out in docs/cost-model.md.
#include <map>
#include <string>
#include <vector>

#include "kernels/run_names/op_class.h"

namespace lmroof {

// FLOPs split the way a roofline needs them: matrix work can use tensor cores or
// BLAS; vector work is element-wise arithmetic and reductions; special functions
// (exp, rsqrt, sigmoid, sin/cos) run on slower units and are counted as one each.
struct FlopCount {
  double matrix = 0;
  double vector = 0;
  double special = 0;

  double total() const { return matrix + vector + special; }
  FlopCount& operator+=(const FlopCount& o) {
    matrix += o.matrix;
    vector += o.vector;
    special += o.special;
    return *this;
  }
};

// The classes a composite run's breakdown (the block) files its FLOPs and bytes under:
// lmroof's one operator-class vocabulary (kernels/run_names/op_class.h), by name.
inline constexpr const char* kClassMatmul = to_string(OpClass::matmul).data();
inline constexpr const char* kClassAttention = to_string(OpClass::attention).data();
inline constexpr const char* kClassNormalization = to_string(OpClass::normalization).data();
inline constexpr const char* kClassElementwise = to_string(OpClass::elementwise).data();

// One step of a composite run: a pass over memory (or a group of identical ones, such as
// a stack's layers of one kind) that runs on its own, so that its own roof holds it.
struct CostStep {
  std::string name;
  FlopCount flops;
  double bytes = 0;  // model bytes, read and written
};

struct Cost {
  FlopCount flops;
  // Each input read once and each output written once: the floor any
  // implementation of this operator must move.
  double bytes_minimum = 0;
  // What this implementation moves by design (extra passes, intermediates,
  // re-reads), assuming nothing stays in cache between passes.
  double bytes_model = 0;
  // The model bytes by direction (bytes_read + bytes_written = bytes_model when
  // given; both 0 when a pair does not split them). Which memory roof a run can
  // reach depends on it: a read-only stream is faster than a copy on most CPUs.
  double bytes_read = 0;
  double bytes_written = 0;
  // Distinct bytes the run touches (inputs, outputs and intermediates, each once):
  // what must fit a cache level for that level's roof to be the limit. 0 means
  // bytes_minimum (no intermediates).
  double working_set_bytes = 0;
  // The bytes the implementation holds in memory while it runs, where it holds more
  // than bytes_minimum: its intermediates and scratch (the eager block's H·T² scores and
  // T² mask). What the memory budget counts for the run (bench footprint_bytes); 0 means
  // bytes_minimum.
  double resident_bytes = 0;
  // The part of bytes_read this implementation re-reads by design (naive decode's
  // query heads each streaming their shared kv head), and the data one work item
  // re-reads (reread_set_bytes): when that set fits a cache on every thread at once,
  // the re-reads are served there, not by DRAM. Both 0 when nothing is re-read.
  double bytes_reread = 0;
  double reread_set_bytes = 0;
  // True when reread_set_bytes is the whole run's set, shared by the threads (each
  // pass of an unfused operator splits one tensor among them), not one per thread.
  bool reread_set_shared = false;
  // The part of bytes_written the CPU kernel may write with streaming (non-temporal)
  // stores, which bypass the caches: those bytes take no room in the last cache, so
  // only the rest of the working set competes for it (analysis/roofs/roof_choice.cpp). A
  // kernel that may instead store normally on some hosts still declares them: the
  // roof then assumes more of its reads stay cached, a best case, never a worse one.
  double bytes_streamed_out = 0;
  // Composite operators only: FLOPs and model bytes per operator class.
  std::map<std::string, FlopCount> flops_by_class;
  std::map<std::string, double> bytes_by_class;
  // Composite runs whose steps are not operator classes (the unfused stability passes,
  // a window stack's layers): each step's FLOPs and model bytes, summing to the run's.
  // Declared only where there are at least two; the block declares its steps by class.
  std::vector<CostStep> steps;

  // The steps a composite run is judged by (the time-based roofline, Σ max(F_i/P, B_i/W),
  // analysis/roofs/roof_choice.h): `steps` where declared, else one per operator class.
  std::vector<CostStep> composite_steps() const {
    if (!steps.empty()) return steps;
    std::vector<CostStep> out;
    for (const auto& [cls, f] : flops_by_class) out.push_back({cls, f, bytes_by_class.count(cls) ? bytes_by_class.at(cls) : 0.0});
    for (const auto& [cls, b] : bytes_by_class)
      if (!flops_by_class.count(cls)) out.push_back({cls, FlopCount{}, b});
    return out;
  }

  // working_set_bytes, or bytes_minimum where it is not given.
  double working_set() const { return working_set_bytes > 0 ? working_set_bytes : bytes_minimum; }
};

// A working set of at least this many times the outermost cache streams from DRAM on
// every repetition; under it, part of it can stay in that cache between repetitions
// (a victim L3 such as Zen's keeps part of a stream that overflows it). Shared by the
// roof choice (analysis/roofs/roof_choice.cpp) and the DRAM probes (bench/dram_probe.h).
inline constexpr double kDramResidentOverOuterCache = 2.0;

}  // namespace lmroof
