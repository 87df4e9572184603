#pragma once
// The memory-bandwidth curve (issue #34): read (and copy) rates over working sets from
// inside L1 to beyond the outermost cache, on every OpenMP thread, as ERT and
// likwid-bench measure them. Each point is a benchmark curve/cpu/read/<bytes>
// (model::kCurvePrefix) whose repetitions each time one read of the set; analysis
// (analysis/roofs/memory_levels.h) finds the levels' plateaus from them. The sets are swept
// in the DRAM segments' memory (bench/dram_segments.h), so the curve adds nothing to
// the memory budget; it ends at the largest set the budget holds.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/suite.h"

namespace lmroof::bench {

// Working sets from `smallest` to `largest` bytes: two per octave, and four per octave
// within an octave of each capacity (where the curve falls from one level to the
// next), ascending, none within 8% of its neighbour.
std::vector<int64_t> curve_working_sets(int64_t smallest, int64_t largest, const std::vector<int64_t>& capacities);

// Registers the curve's points (CPU) for one phase (0: with the ceilings, before the
// suite; 1: after it, with the DRAM ceilings' recheck), in sweeps over all points so
// that a point's repeats are apart in time; returns how many benchmarks.
int register_bandwidth_curve(const SuiteOptions& options, int phase);
// The named points ("curve/cpu/read/<bytes>") again, each at its phase and marked as a
// second attempt (model::counter::kCeilingAttempt): the runner measures a point again
// when its repeats at one phase spread beyond model::kCeilingSpreadBound.
int register_curve_remeasures(const SuiteOptions& options, const std::vector<std::pair<std::string, int>>& points);

// Registers the GPU's curve (bench/bandwidth_curve_cuda.cu, CUDA builds only): read
// bandwidth from 1 MiB to 4 x L2, the device's L2 capacity beside each point; without a
// GPU one benchmark that skips with the reason. Returns how many.
int register_cuda_bandwidth_curve(const SuiteOptions& options);

}  // namespace lmroof::bench
