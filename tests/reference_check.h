#pragma once
// Shared by the kernel tests (tests/test_<family>.cpp): one CPU fp32 run of a pair's
// kernel, validated against its float64 reference on inputs drawn from a fresh seed.
// Each test keeps its own awkward shapes and its own extra checks on the result.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

#include "registry.h"
#include "test_support.h"

namespace lmroof::test {

// A kernel test's parameter: variant, implementation level, shape (named by param_name).
using KernelParam = std::tuple<std::string, std::string, Shape>;

struct ReferenceCheck {
  RunSpec spec;
  std::unique_ptr<Workload> workload;
  uint64_t seed = 0;
  Validation result;

  // Validates the same workload again on inputs drawn from `next_seed` (a kernel must
  // not carry state from one run into the next).
  void validate(uint64_t next_seed) {
    seed = next_seed;
    result = workload->validate(seed);
  }
  // Within the tolerance; on failure the message names the run, the seed and the error,
  // so that the failing inputs can be drawn again.
  ::testing::AssertionResult passed() const {
    if (result.passed()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << spec.bench_name() << " seed " << seed << ": rel error "
                                         << result.rel_error << " > " << result.tolerance;
  }
};

// Builds `pair`'s CPU fp32 workload for `param` (completing and checking the shape, as
// the suite does) and validates it once on a fresh seed.
inline ReferenceCheck check_against_reference(const std::string& pair, const KernelParam& param) {
  const auto& [variant, impl, shape] = param;
  ReferenceCheck check{RunSpec{pair, variant, impl, Backend::cpu, DType::fp32, shape}, nullptr, 0, {}};
  check.workload = make_workload(check.spec);
  check.validate(fresh_seed());
  return check;
}

}  // namespace lmroof::test
