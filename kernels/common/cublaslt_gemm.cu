#include "common/cublaslt_gemm.h"

#include <algorithm>
#include <stdexcept>

#include "common/cuda_check.h"

namespace lmroof::cuda {

BlasContext::BlasContext() : workspace_(kWorkspaceBytes) {
  CUBLAS_CHECK(cublasLtCreate(&lt_));
  CUBLAS_CHECK(cublasCreate(&blas_));
  CUBLAS_CHECK(cublasSetWorkspace(blas_, workspace_.data(), workspace_.bytes()));
  // Host-side alpha/beta; default math: no TF32 for fp32 data.
  CUBLAS_CHECK(cublasSetPointerMode(blas_, CUBLAS_POINTER_MODE_HOST));
  CUBLAS_CHECK(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH));
}

BlasContext::~BlasContext() {
  if (blas_) cublasDestroy(blas_);
  if (lt_) cublasLtDestroy(lt_);
}

namespace {

cudaDataType_t cuda_type(DType d) { return d == DType::bf16 ? CUDA_R_16BF : CUDA_R_32F; }

// Largest power of two (at most 256) that divides the address and every offset
// the kernel adds to it in whole rows or batches.
uint32_t alignment_of(const void* p, int64_t ld_bytes, int64_t stride_bytes) {
  uint64_t bits = reinterpret_cast<uintptr_t>(p) | 256u;
  if (ld_bytes > 0) bits |= static_cast<uint64_t>(ld_bytes);
  if (stride_bytes > 0) bits |= static_cast<uint64_t>(stride_bytes);
  return static_cast<uint32_t>(bits & (~bits + 1));  // lowest set bit
}

std::string describe(const GemmSpec& s, bool bias) {
  return "GEMM M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) + " K=" + std::to_string(s.K) +
         " lda=" + std::to_string(s.lda) + " ldb=" + std::to_string(s.ldb) + " ldc=" + std::to_string(s.ldc) +
         " batch=" + std::to_string(s.batch) + (s.b_transposed ? " B=[N,K]" : " B=[K,N]") +
         (s.dtype == DType::bf16 ? " bf16" : " fp32") + (bias ? " +bias" : "");
}

template <typename T>
void set_layout(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, T value) {
  CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout, attr, &value, sizeof(value)));
}

}  // namespace

GemmPlan::GemmPlan(BlasContext& ctx, const GemmSpec& spec, const void* a, const void* b, void* c, const void* bias)
    : ctx_(ctx), spec_(spec), a_(a), b_(b), bias_(bias), c_(c) {
  const GemmSpec& s = spec_;
  if (s.M <= 0 || s.N <= 0 || s.K <= 0 || s.batch <= 0)
    throw std::invalid_argument("GemmPlan: empty " + describe(s, bias != nullptr));
  if (s.lda < s.K || s.ldc < s.N || s.ldb < (s.b_transposed ? s.K : s.N))
    throw std::invalid_argument("GemmPlan: leading dimension too small in " + describe(s, bias != nullptr));
  const cudaDataType_t type = cuda_type(s.dtype);
  const int64_t elem = dtype_bytes(s.dtype);

  try {
    // cuBLASLt is column-major: the row-major C[M,N] = A·op(B) is the column-major
    // Cᵀ[N,M] = op(B)ᵀ·Aᵀ, so cuBLASLt's "A" is our B, its "B" is our A, m = N, n = M.
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t op_a = s.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
    if (bias) {
      const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_, sizeof(bias_)));
      const int32_t bias_type = type;
      CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)));
    }
    if (s.b_transposed)
      CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_a_, type, s.K, s.N, s.ldb));
    else
      CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_a_, type, s.N, s.K, s.ldb));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_b_, type, s.K, s.M, s.lda));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_c_, type, s.N, s.M, s.ldc));
    if (s.batch > 1) {
      const int32_t count = static_cast<int32_t>(s.batch);
      for (auto* l : {layout_a_, layout_b_, layout_c_}) set_layout(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, count);
      set_layout(layout_a_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, s.stride_b);
      set_layout(layout_b_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, s.stride_a);
      set_layout(layout_c_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, s.stride_c);
    }

    cublasLtMatmulPreference_t pref = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    struct PrefGuard {
      cublasLtMatmulPreference_t p;
      ~PrefGuard() { cublasLtMatmulPreferenceDestroy(p); }
    } guard{pref};
    const size_t ws = ctx_.workspace_bytes();
    CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    const uint32_t align_a = alignment_of(b_, s.ldb * elem, s.batch > 1 ? s.stride_b * elem : 0);
    const uint32_t align_b = alignment_of(a_, s.lda * elem, s.batch > 1 ? s.stride_a * elem : 0);
    const uint32_t align_c = alignment_of(c_, s.ldc * elem, s.batch > 1 ? s.stride_c * elem : 0);
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a,
                                                      sizeof(align_a)));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b,
                                                      sizeof(align_b)));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c,
                                                      sizeof(align_c)));
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c,
                                                      sizeof(align_c)));

    cublasLtMatmulHeuristicResult_t results[4] = {};
    int found = 0;
    // "not supported" here means no algorithm: fall back below rather than fail.
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(ctx_.lt(), desc_, layout_a_, layout_b_, layout_c_,
                                                             layout_c_, pref, 4, results, &found);
    for (int i = 0; st == CUBLAS_STATUS_SUCCESS && i < found; ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS) {
        algo_ = results[i].algo;
        lt_ok_ = true;
        break;
      }
    if (!lt_ok_ && bias)
      throw NoBiasEpilogueAlgorithm("cuBLASLt has no bias-epilogue algorithm for " + describe(s, true) +
                                    " (heuristic status " + std::to_string(static_cast<int>(st)) + ", " +
                                    std::to_string(found) + " candidates)");
  } catch (...) {
    release();
    throw;
  }
}

GemmPlan::~GemmPlan() { release(); }

void GemmPlan::release() noexcept {
  if (layout_c_) cublasLtMatrixLayoutDestroy(layout_c_);
  if (layout_b_) cublasLtMatrixLayoutDestroy(layout_b_);
  if (layout_a_) cublasLtMatrixLayoutDestroy(layout_a_);
  if (desc_) cublasLtMatmulDescDestroy(desc_);
  layout_a_ = layout_b_ = layout_c_ = nullptr;
  desc_ = nullptr;
}

void GemmPlan::run(cudaStream_t stream) const {
  const GemmSpec& s = spec_;
  const float alpha = s.alpha, beta = 0.0f;
  if (lt_ok_) {
    CUBLAS_CHECK(cublasLtMatmul(ctx_.lt(), desc_, &alpha, b_, layout_a_, a_, layout_b_, &beta, c_, layout_c_, c_,
                                layout_c_, &algo_, ctx_.workspace(), ctx_.workspace_bytes(), stream));
    return;
  }
  // cuBLAS fallback (same column-major mapping), fp32 accumulation.
  const cudaDataType_t type = cuda_type(s.dtype);
  CUBLAS_CHECK(cublasSetStream(ctx_.blas(), stream));
  // cublasSetStream() unconditionally resets the handle's workspace to cuBLAS's own
  // default pool (cuBLAS docs, cublasSetStream), undoing the constructor's
  // cublasSetWorkspace: point it back at the context's buffer, as the header promises.
  CUBLAS_CHECK(cublasSetWorkspace(ctx_.blas(), ctx_.workspace(), ctx_.workspace_bytes()));
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      ctx_.blas(), s.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.N),
      static_cast<int>(s.M), static_cast<int>(s.K), &alpha, b_, type, static_cast<int>(s.ldb), s.stride_b, a_, type,
      static_cast<int>(s.lda), s.stride_a, &beta, c_, type, static_cast<int>(s.ldc), s.stride_c,
      static_cast<int>(s.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace lmroof::cuda
