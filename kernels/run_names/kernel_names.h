#pragma once
// The class of a GPU kernel from its name alone: one ordered table of the names that
// GEMM, attention, norm and collective libraries (CUDA and ROCm), PyTorch and Triton give
// their kernels. The profiler's kernel trace tries each pair's own kernel names first
// (PairDef::kernel_classes), then this table; a user's PyTorch trace uses it where
// neither the op nor the module says more (docs/trace.md, "Classes and modules";
// docs/metrics.md lists the same table).
#include <string_view>
#include <vector>

#include "kernels/run_names/op_class.h"

namespace lmroof {

struct KernelNameRule {
  enum class Match { substring, prefix, suffix };
  std::string_view pattern;  // lower case; matched against the lower-cased name
  OpClass op_class;
  std::string_view why;      // what the rule catches, for docs and the tests
  Match match = Match::substring;
  std::string_view also = {};  // a second substring the name must hold too ("" none)
};

// First match wins. Order matters: a collective or attention kernel may also name a
// GEMM tile, cuBLAS's splitKreduce_kernel is a GEMM's, not a reduction.
const std::vector<KernelNameRule>& kernel_name_rules();

bool matches(const KernelNameRule& rule, std::string_view lower_name);

// The class by kernel_name_rules(); OpClass::other when none matches.
OpClass class_of_kernel_name(std::string_view kernel_name);

}  // namespace lmroof
