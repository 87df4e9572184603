// The blas level of decode: attention as a framework without a fused decode kernel
// runs it. Per (sequence, kv head) the g query heads that share the kv head are the
// M rows of two OpenBLAS GEMMs: scores = (Q·Kᵀ)/√h [g × L], a softmax over each
// row, out = P·V [g × h]. The scores make a round trip through memory between the
// calls (the cost model counts it).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "decode/decode.h"
#include "decode/decode_simd.h"

namespace lmroof::decode {

namespace {

using namespace simd;

// Softmax of one row in place, vectorised (the same exp as the fused kernel, so the
// levels differ in their memory traffic and GEMM calls, not in exp quality).
void softmax_row(float* __restrict s, int64_t n) {
  constexpr int W = kNativeLanes;  // one register per vec (a vec<16> on AVX2 is lowered through the stack)
  float mx = -std::numeric_limits<float>::infinity();
  int64_t j = 0;
  vec<W> vm = vsplat<W>(mx);
  for (; j + W <= n; j += W) vm = vmax<W>(vm, vload<W>(s + j));
  for (int i = 0; i < W; ++i) mx = std::max(mx, vm[i]);
  for (; j < n; ++j) mx = std::max(mx, s[j]);
  vec<W> vsum{};
  const vec<W> vmx = vsplat<W>(mx);
  for (j = 0; j + W <= n; j += W) {
    const vec<W> e = vexp<W>(vload<W>(s + j) - vmx);
    vstore<W>(s + j, e);
    vsum += e;
  }
  float sum = 0;
  for (int i = 0; i < W; ++i) sum += vsum[i];
  for (; j < n; ++j) sum += s[j] = std::exp(s[j] - mx);
  const float inv = 1.0f / sum;
#pragma omp simd
  for (j = 0; j < n; ++j) s[j] *= inv;
}

}  // namespace

size_t blas_score_floats(Dims d) {
  return static_cast<size_t>(omp_get_max_threads()) * static_cast<size_t>(d.group() * d.context);
}

void cpu_decode_blas(Dims d, const float* q, const float* k, const float* v, float* out, float* scores) {
  const int64_t g = d.group(), L = d.context, dh = d.head_dim, items = d.batch * d.kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  // Enough (sequence, kv head) items for every thread: one item per thread at a time,
  // each GEMM single-threaded (OpenBLAS's OpenMP build runs serially inside a parallel
  // region). Fewer: one item after the other, each GEMM on all threads.
  const bool per_thread = items >= omp_get_max_threads();
#pragma omp parallel for schedule(static) if (per_thread)
  for (int64_t item = 0; item < items; ++item) {
    float* s = scores + (per_thread ? omp_get_thread_num() : 0) * g * L;
    const float* kb = k + item * L * dh;
    const float* vb = v + item * L * dh;
    // item = b·Hkv + kvh; its query heads are rows item·g ... item·g + g - 1 of q and out
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(g), static_cast<int>(L),
                static_cast<int>(dh), scale, q + item * g * dh, static_cast<int>(dh), kb, static_cast<int>(dh), 0.0f,
                s, static_cast<int>(L));
    for (int64_t i = 0; i < g; ++i) softmax_row(s + i * L, L);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(g), static_cast<int>(dh),
                static_cast<int>(L), 1.0f, s, static_cast<int>(L), vb, static_cast<int>(dh), 0.0f, out + item * g * dh,
                static_cast<int>(dh));
  }
}

}  // namespace lmroof::decode
