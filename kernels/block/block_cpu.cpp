// CPU kernels for the block pair ("fused" level, both variants).
//
//   normalization  norm::cpu_fused (RMSNorm), one read of the input, one write.
//   matrix         OpenBLAS cblas_sgemm, activations [T, in] times weights [out, in]ᵀ,
//                  using OpenBLAS's own (OpenMP) threads.
//   attention      per (head, 64-query tile) task, tasks spread over OpenMP threads
//                  (largest, i.e. latest, tiles first): S = q kᵀ/sqrt(dh) for the tile's
//                  keys 0..end of tile (one single-threaded sgemm), causal softmax in
//                  place (fast vectorised exp), O = P v (sgemm), then O rows scaled by
//                  1/sum. The score tile (64 × T floats) stays in L2.
//   elementwise    RoPE in place on q and k, silu(g)·u, residual adds; OpenMP over rows.
//
// run() times every phase with steady_clock and keeps the seconds per operator class.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "block/block.h"
#include "common/host_data.h"
#include "norm/norm.h"

namespace lmroof::block {

namespace {

constexpr int64_t kQueryTile = 64;

// exp(x), vectorisable (Cephes expf: x = n·ln 2 + r with |r| <= ln 2 / 2, exp(r) by a
// degree-5 polynomial, 2^n by building the exponent bits; ~2 ulp). Inputs below -87 give
// ~1e-38 instead of 0 and inputs above 88 saturate: harmless for softmax (x <= 0) and silu.
inline float fast_exp(float x_in) {
  const float x = std::min(88.0f, std::max(-87.0f, x_in));
  // n = round(x / ln 2) by the 1.5·2^23 trick (std::floor would block vectorisation)
  const float fx = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (x - fx * 0.693359375f) - fx * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  const int32_t e = (static_cast<int32_t>(fx) + 127) << 23;
  return y * std::bit_cast<float>(e);
}

void gemm_nt(int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* w, int64_t ldw, float* c,
             int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K),
              1.0f, a, static_cast<int>(lda), w, static_cast<int>(ldw), 0.0f, c, static_cast<int>(ldc));
}

// In place on the q and k heads of a [T, ld] buffer whose columns 0..2D are q then k.
void rope(const Dims& d, float* qk, int64_t ld, const float* cos_table, const float* sin_table) {
  const int64_t half = d.head_dim / 2, heads = 2 * d.q_heads;
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < d.tokens; ++t) {
    const float* __restrict c = cos_table + t * half;
    const float* __restrict s = sin_table + t * half;
    for (int64_t h = 0; h < heads; ++h) {
      float* __restrict p1 = qk + t * ld + h * d.head_dim;
      float* __restrict p2 = p1 + half;
#pragma omp simd
      for (int64_t i = 0; i < half; ++i) {
        const float x1 = p1[i], x2 = p2[i];
        p1[i] = x1 * c[i] - x2 * s[i];
        p2[i] = x2 * c[i] + x1 * s[i];
      }
    }
  }
}

// Causal attention. q, k, v: [T, ld_in] with head h at columns h·dh of each; out:
// [T, ld_out], head h at columns h·dh. `scores` holds kQueryTile × T floats per thread.
void attention(const Dims& d, const float* q, const float* k, const float* v, int64_t ld_in, float* out,
               int64_t ld_out, float* scores) {
  const int64_t T = d.tokens, H = d.q_heads, dh = d.head_dim;
  const int64_t tiles = (T + kQueryTile - 1) / kQueryTile;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t task = 0; task < tiles * H; ++task) {
    const int64_t tile = tiles - 1 - task / H, h = task % H;
    const int64_t q0 = tile * kQueryTile, rows = std::min(kQueryTile, T - q0), keys = q0 + rows;
    float* s = scores + static_cast<int64_t>(omp_get_thread_num()) * kQueryTile * T;
    float inv_sum[kQueryTile];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(keys),
                static_cast<int>(dh), scale, q + q0 * ld_in + h * dh, static_cast<int>(ld_in), k + h * dh,
                static_cast<int>(ld_in), 0.0f, s, static_cast<int>(keys));
    for (int64_t r = 0; r < rows; ++r) {
      float* __restrict row = s + r * keys;
      const int64_t n = q0 + r + 1;  // keys 0..q0+r are visible
      float m = row[0];
#pragma omp simd reduction(max : m)
      for (int64_t j = 0; j < n; ++j) m = std::max(m, row[j]);
      float sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < n; ++j) {
        row[j] = fast_exp(row[j] - m);
        sum += row[j];
      }
      for (int64_t j = n; j < keys; ++j) row[j] = 0;
      inv_sum[r] = 1.0f / sum;
    }
    float* o = out + q0 * ld_out + h * dh;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(dh),
                static_cast<int>(keys), 1.0f, s, static_cast<int>(keys), v + h * dh, static_cast<int>(ld_in), 0.0f,
                o, static_cast<int>(ld_out));
    for (int64_t r = 0; r < rows; ++r) {
      float* __restrict orow = o + r * ld_out;
      const float f = inv_sum[r];
#pragma omp simd
      for (int64_t e = 0; e < dh; ++e) orow[e] *= f;
    }
  }
}

void swiglu_row(int64_t F, const float* __restrict g, const float* __restrict u, float* __restrict out) {
#pragma omp simd
  for (int64_t j = 0; j < F; ++j) out[j] = g[j] / (1.0f + fast_exp(-g[j])) * u[j];
}

// out[t, j] = silu(g[t, j]) · u[t, j], j < F; g and u rows ld_in apart, out rows ld_out apart.
void swiglu(int64_t T, int64_t F, const float* g, const float* u, int64_t ld_in, float* out, int64_t ld_out) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t) swiglu_row(F, g + t * ld_in, u + t * ld_in, out + t * ld_out);
}

void add(int64_t n, const float* __restrict a, const float* __restrict b, float* __restrict y) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

class CpuBlockWorkload final : public Workload {
 public:
  explicit CpuBlockWorkload(const RunSpec& spec)
      : variant_(parse_variant(spec.variant)), d_(dims_of(spec.shape)), w_(variant_, d_) {
    const int64_t T = d_.tokens, D = d_.d_model, F = d_.d_ff;
    x_.resize(T * D);
    y_.resize(T * D);
    n_.resize(T * D);
    attn_.resize(variant_ == Variant::serial ? T * D : T * (D + F));  // parallel: [attn | act]
    m_.resize(T * D);
    if (variant_ == Variant::serial) {
      qkv_.resize(T * 3 * D);
      h_.resize(T * D);
      gu_.resize(T * 2 * F);
      act_.resize(T * F);
    } else {
      qkv_.resize(T * (3 * D + 2 * F));  // [q | k | v | gate | up]
    }
    scores_.resize(static_cast<size_t>(omp_get_max_threads()) * kQueryTile * T);
    rope_tables(d_, cos_, sin_);
    randomize(1);
  }

  void run() override {
    // OpenMP may have been given more threads since construction: one score tile each.
    const size_t need = static_cast<size_t>(omp_get_max_threads()) * kQueryTile * d_.tokens;
    if (scores_.size() < need) scores_.resize(need);
    seconds_ = {{kClassNormalization, 0.0}, {kClassMatrix, 0.0}, {kClassAttention, 0.0}, {kClassElementwise, 0.0}};
    if (variant_ == Variant::serial)
      run_serial();
    else
      run_parallel();
  }

  Validation validate(uint64_t seed) override {
    randomize(seed);
    poison(y_);
    run();
    std::vector<double> ref(y_.size());
    reference(variant_, d_, w_.view(), x_, ref);
    return {relative_error<float>(y_, ref), tolerance_for(DType::fp32, /*composite=*/true)};
  }

  std::map<std::string, double> last_class_seconds() const override { return seconds_; }

 private:
  template <typename F>
  void phase(const char* cls, F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    seconds_[cls] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // The fused RMSNorm of kernels/norm (beta unused).
  void rmsnorm(const float* in, const float* gamma, float* out) const {
    norm::cpu_fused(norm::Kind::rmsnorm, {d_.tokens, d_.d_model}, in, gamma, nullptr, out);
  }

  void run_serial() {
    const int64_t T = d_.tokens, D = d_.d_model, F = d_.d_ff;
    float* q = qkv_.data();
    phase(kClassNormalization, [&] { rmsnorm(x_.data(), w_.gamma1.data(), n_.data()); });
    phase(kClassMatrix, [&] { gemm_nt(T, 3 * D, D, n_.data(), D, w_.w_in.data(), D, q, 3 * D); });
    phase(kClassElementwise, [&] { rope(d_, q, 3 * D, cos_.data(), sin_.data()); });
    phase(kClassAttention, [&] { attention(d_, q, q + D, q + 2 * D, 3 * D, attn_.data(), D, scores_.data()); });
    phase(kClassMatrix, [&] { gemm_nt(T, D, D, attn_.data(), D, w_.w_out.data(), D, m_.data(), D); });
    phase(kClassElementwise, [&] { add(T * D, x_.data(), m_.data(), h_.data()); });
    phase(kClassNormalization, [&] { rmsnorm(h_.data(), w_.gamma2.data(), n_.data()); });
    phase(kClassMatrix, [&] { gemm_nt(T, 2 * F, D, n_.data(), D, w_.w_in.data() + 3 * D * D, D, gu_.data(), 2 * F); });
    phase(kClassElementwise, [&] { swiglu(T, F, gu_.data(), gu_.data() + F, 2 * F, act_.data(), F); });
    phase(kClassMatrix, [&] { gemm_nt(T, D, F, act_.data(), F, w_.w_down.data(), F, m_.data(), D); });
    phase(kClassElementwise, [&] { add(T * D, h_.data(), m_.data(), y_.data()); });
  }

  void run_parallel() {
    const int64_t T = d_.tokens, D = d_.d_model, F = d_.d_ff, ld = 3 * D + 2 * F;
    float* z = qkv_.data();  // [T, 3D + 2F]: q | k | v | gate | up
    float* cat = attn_.data();  // [T, D + F]: attn | silu(gate)·up
    phase(kClassNormalization, [&] { rmsnorm(x_.data(), w_.gamma1.data(), n_.data()); });
    phase(kClassMatrix, [&] { gemm_nt(T, ld, D, n_.data(), D, w_.w_in.data(), D, z, ld); });
    phase(kClassElementwise, [&] { rope(d_, z, ld, cos_.data(), sin_.data()); });
    phase(kClassAttention, [&] { attention(d_, z, z + D, z + 2 * D, ld, cat, D + F, scores_.data()); });
    phase(kClassElementwise, [&] { swiglu(T, F, z + 3 * D, z + 3 * D + F, ld, cat + D, D + F); });
    phase(kClassMatrix, [&] { gemm_nt(T, D, D + F, cat, D + F, w_.w_out.data(), D + F, m_.data(), D); });
    phase(kClassElementwise, [&] { add(T * D, x_.data(), m_.data(), y_.data()); });
  }

  void randomize(uint64_t seed) {
    fill_uniform(x_, seed, -1.f, 1.f);
    w_.randomize(seed + 10);
  }

  Variant variant_;
  Dims d_;
  HostWeights w_;
  std::vector<float> x_, y_, n_, qkv_, attn_, m_, h_, gu_, act_, scores_, cos_, sin_;
  std::map<std::string, double> seconds_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) {
  if (spec.impl != "fused") throw std::invalid_argument("block has only the 'fused' implementation level");
  return std::make_unique<CpuBlockWorkload>(spec);
}

}  // namespace lmroof::block
