#pragma once
// The analytic cost model's vocabulary. Every pair computes one Cost per
// (variant, impl, shape, dtype); the formulas live next to each pair and are
// written out in docs/cost-model.md.
#include <map>
#include <string>

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

// Operator classes used for a composite run's breakdown (the block), after
// Ivanov et al.: tensor contractions, statistical normalization, element-wise;
// attention is kept apart because it mixes contraction and softmax.
inline constexpr const char* kClassMatrix = "matrix";
inline constexpr const char* kClassAttention = "attention";
inline constexpr const char* kClassNormalization = "normalization";
inline constexpr const char* kClassElementwise = "elementwise";

struct Cost {
  FlopCount flops;
  // Each input read once and each output written once: the floor any
  // implementation of this operator must move.
  double bytes_minimum = 0;
  // What this implementation moves by design (extra passes, intermediates,
  // re-reads), assuming nothing stays in cache between passes.
  double bytes_model = 0;
  // Composite operators only: FLOPs and model bytes per operator class.
  std::map<std::string, FlopCount> flops_by_class;
  std::map<std::string, double> bytes_by_class;
};

}  // namespace lmroof
