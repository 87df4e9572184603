#pragma once
// Row-major GEMMs through cuBLASLt for the CUDA backend: bf16 inputs and outputs
// with fp32 accumulation on tensor cores, or fp32 throughout (CUBLAS_COMPUTE_32F on
// fp32 data: plain SGEMM on CUDA cores, never TF32). Optional bias epilogue and
// strided batching (attention's per-head GEMMs).
//
// A plan is built once per GEMM of a workload (descriptors, layouts and the
// heuristic's algorithm for the actual pointers and their alignment) and enqueued
// by run() on the workload's stream without any further host work.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/cuda_buffer.h"
#include "kernels/run_names/workload.h"

namespace lmroof::cuda {

// A cuBLASLt handle, a cuBLAS handle (fallback for shapes cuBLASLt has no algorithm
// for) and one workspace shared by the plans of a workload. GEMMs on one stream run
// one after another, so sharing the workspace is safe.
class BlasContext {
 public:
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // NVIDIA's recommendation for Hopper

  BlasContext();
  ~BlasContext();
  BlasContext(const BlasContext&) = delete;
  BlasContext& operator=(const BlasContext&) = delete;

  cublasLtHandle_t lt() const { return lt_; }
  cublasHandle_t blas() const { return blas_; }
  void* workspace() const { return workspace_.data(); }
  size_t workspace_bytes() const { return workspace_.bytes(); }

 private:
  cublasLtHandle_t lt_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  DeviceBuffer<std::byte> workspace_;
};

// C[M, N] = alpha · A[M, K] · op(B) (+ bias[N]), all row-major with leading dimensions
// in elements. B is [N, K] (a weight in nn.Linear layout: C = A · Bᵀ) when
// b_transposed, else [K, N]. Batched: `batch` problems `stride_*` elements apart.
struct GemmSpec {
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool b_transposed = true;
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  float alpha = 1.0f;
  DType dtype = DType::bf16;  // of A, B, C and the bias; accumulation is fp32 either way
};

// cuBLASLt's heuristic offers no algorithm with the bias epilogue for this GEMM's
// shape, leading dimensions and alignment (cuBLAS has no bias fallback). A shape the
// library refuses, not a wrong result: it is an std::invalid_argument, so validation
// before timing passes over an odd size the round sizes cover, a benchmark is skipped
// with this message, and the CUDA tests report such a case as skipped with it.
class NoBiasEpilogueAlgorithm : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The spec of an nn.Linear: C[M, out] = A[M, in] · W[out, in]ᵀ, A's rows lda elements
// apart, W's ldw and C's ldc (0: packed, in, in and out). One place for the pairs that
// build one (bias, mlp, block, attention).
inline GemmSpec linear_spec(int64_t M, int64_t in, int64_t out, DType dtype, int64_t lda = 0, int64_t ldw = 0,
                            int64_t ldc = 0) {
  GemmSpec g;
  g.M = M;
  g.N = out;
  g.K = in;
  g.lda = lda ? lda : in;
  g.ldb = ldw ? ldw : in;
  g.ldc = ldc ? ldc : out;
  g.b_transposed = true;
  g.dtype = dtype;
  return g;
}

class GemmPlan {
 public:
  // bias may be null (no epilogue). Throws NoBiasEpilogueAlgorithm, naming the GEMM,
  // when cuBLASLt has no algorithm for it with the bias epilogue.
  GemmPlan(BlasContext& ctx, const GemmSpec& spec, const void* a, const void* b, void* c,
           const void* bias = nullptr);
  ~GemmPlan();
  GemmPlan(const GemmPlan&) = delete;
  GemmPlan& operator=(const GemmPlan&) = delete;

  void run(cudaStream_t stream) const;
  const GemmSpec& spec() const { return spec_; }
  bool uses_cublaslt() const { return lt_ok_; }
  double flops() const { return 2.0 * spec_.M * spec_.N * spec_.K * spec_.batch; }

 private:
  void release() noexcept;

  BlasContext& ctx_;
  GemmSpec spec_;
  const void *a_, *b_, *bias_;
  void* c_;
  bool lt_ok_ = false;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace lmroof::cuda
