#pragma once
// The check every CPU workload's validate() makes once it has drawn its inputs: poison
// the output (an element the kernel forgets to write fails), run once, and compare the
// output with the float64 reference norm-wise (relative_error), at the fp32 tolerance.
#include <span>
#include <vector>

#include "common/host_data.h"
#include "kernels/run_names/workload.h"

namespace lmroof {

// `reference(std::span<double> ref)` writes the float64 reference of `out` into `ref`
// (out's size). `composite`: a chain of operators (tolerance_for).
template <typename Reference>
Validation run_against_reference(Workload& workload, std::span<float> out, Reference&& reference,
                                 bool composite = false) {
  poison(out);
  workload.run();
  std::vector<double> ref(out.size());
  reference(std::span<double>(ref));
  return {relative_error<float>(out, ref), tolerance_for(DType::fp32, composite)};
}

}  // namespace lmroof
