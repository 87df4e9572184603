#pragma once
// One formula per operator for FLOPs and bytes, shared by every surface that costs an
// operator: the pairs' cost models (kernels/*/..._cost.cpp), predict's whole-model step
// (analysis/predict/step_cost.cpp) and the profiler-trace cost models
// (analysis/trace/cost_models.cpp). Before this header the three disagreed: LayerNorm
// was 7 FLOPs per element in two of them and 8 in the third, so the lecture's
// norm-share claim was counted three ways. docs/cost-model.md, "One formula per
// operator", states each convention and where it differs from TraceLens's.
//
// Conventions (the same everywhere):
// - a multiply-add is 2 FLOPs; an add, a multiply, a division or a comparison is 1;
//   a transcendental (rsqrt, exp) is 1 and counted apart as `special`, since it runs on
//   slower units;
// - the minimum bytes read each input once and write each output once, at the
//   tensor's element size: no intermediates, no statistics outputs (PyTorch's
//   native_layer_norm also writes mean and rstd per row: the trace adds those itself).
// Plain C++ without dependencies, so that the analysis can use it without linking the
// kernels (it sits in the run vocabulary beside cost.h).

namespace lmroof::formulas {

struct Flops {
  double vector = 0;   // additions, multiplications, divisions
  double special = 0;  // transcendentals: one each
  double total() const { return vector + special; }
};

// LayerNorm over `rows` rows of `d` elements, forward.
// Per element: the sum for the mean, the subtraction of it, the square, the sum for the
// variance and the scale by rstd (5); with an affine weight and bias, the multiply by
// gamma and the add of beta (7). The centred value is computed once and reused for the
// variance and the output (lmroof's trace model counted 8 before: the subtraction twice).
// Per row: the two divisions by d and the eps add (3), and one rsqrt (special).
inline Flops layernorm_flops(double rows, double d, bool weight = true, bool bias = true) {
  return {(5 + (weight ? 1 : 0) + (bias ? 1 : 0)) * rows * d + 3 * rows, rows};
}

// RMSNorm over `rows` rows of `d` elements, forward.
// Per element: the square, the sum, the scale by rstd (3), and the weight (4).
// Per row: the division by d and the eps add (2), and one rsqrt (special). TraceLens
// counts 4 per element and 2 per row (its RMSNorm perf model: the eps add not counted).
inline Flops rmsnorm_flops(double rows, double d, bool weight = true) {
  return {(weight ? 4 : 3) * rows * d + 2 * rows, rows};
}

// The minimum bytes of a norm: x read and y written once, and `params_per_column`
// parameter vectors of d elements (LayerNorm: gamma and beta, 2; RMSNorm: 1).
inline double norm_bytes(double rows, double d, int params_per_column, double element_bytes) {
  return (2 * rows * d + params_per_column * d) * element_bytes;
}

// A (batched) matrix product C[batch, M, N] = A[batch, M, K] · B[batch, K, N]: one
// multiply-add per (m, n, k).
inline double matmul_flops(double batch, double M, double N, double K) { return 2 * batch * M * N * K; }

// Its minimum bytes: A, B and C once each, at their element sizes (B shared by the
// batch when `b_batched` is false: a weight).
inline double matmul_bytes(double batch, double M, double N, double K, double a_bytes, double b_bytes,
                           double c_bytes, bool b_batched = true) {
  return batch * M * K * a_bytes + (b_batched ? batch : 1) * K * N * b_bytes + batch * M * N * c_bytes;
}

}  // namespace lmroof::formulas
