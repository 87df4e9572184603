// CPU kernels for the block pair, both variants, both implementation levels.
//
// "fused":
//   normalization  norm::cpu_fused (RMSNorm), one read of the input, one write; QK-norm
//                  inside the RoPE pass (each head normalised while in registers).
//   matrix         OpenBLAS cblas_sgemm, activations [T, in] times weights [out, in]ᵀ,
//                  using OpenBLAS's own (OpenMP) threads.
//   attention      per (head, 64-query tile) task, tasks spread over OpenMP threads
//                  (largest, i.e. latest, tiles first): S = q kᵀ/sqrt(dh) for the tile's
//                  keys 0..end of tile (one single-threaded sgemm), causal softmax in
//                  place (fast vectorised exp), O = P v (sgemm), then O rows scaled by
//                  1/sum. The score tile (64 × T floats) stays in L2.
//                  The soft-cap, when on, is applied to the tile's scores in cache.
//   elementwise    RoPE in place on q and k, silu(g)·u, residual adds; OpenMP over rows.
//
// "unfused" (eager, block.h): the same GEMMs and residual adds; every other step is an
// OpenMP pass over memory of its own, in the order of docs/cost-model.md#block: the
// norm pair's unfused RMSNorm (norm::cpu_unfused), QK-norm as the same six passes over
// the head rows, RoPE as neg/cat/·cos/·sin/+, attention with every head's T×T scores
// in memory (sgemm per head, ·scale, /cap, tanh, ·cap, +mask, softmax, sgemm), SwiGLU
// as silu then ·up.
//
// run() times every phase with steady_clock and keeps the seconds per operator class.
#include <cblas.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "block/block.h"
#include "common/fast_math.h"
#include "common/host_buffer.h"
#include "common/cpu_validation.h"
#include "common/host_data.h"
#include "norm/norm.h"

namespace lmroof::block {

namespace {

constexpr int64_t kQueryTile = 64;

void gemm_nt(int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* w, int64_t ldw, float* c,
             int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K),
              1.0f, a, static_cast<int>(lda), w, static_cast<int>(ldw), 0.0f, c, static_cast<int>(ldc));
}

// In place on the q and k heads of a [T, ld] buffer whose columns 0..2D are q then k.
// With d.qk_norm each head is RMS-normalised (gamma_q for q heads, gamma_k for k heads)
// in the same pass, before it is rotated.
void rope(const Dims& d, float* qk, int64_t ld, const float* cos_table, const float* sin_table,
          const float* gamma_q, const float* gamma_k) {
  const int64_t half = d.head_dim / 2, heads = 2 * d.q_heads, dh = d.head_dim;
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < d.tokens; ++t) {
    const float* __restrict c = cos_table + t * half;
    const float* __restrict s = sin_table + t * half;
    for (int64_t h = 0; h < heads; ++h) {
      float* __restrict p1 = qk + t * ld + h * dh;
      float* __restrict p2 = p1 + half;
      if (d.qk_norm) {
        const float* __restrict g = h < d.q_heads ? gamma_q : gamma_k;
        float ms = 0;
#pragma omp simd reduction(+ : ms)
        for (int64_t i = 0; i < dh; ++i) ms += p1[i] * p1[i];
        const float rstd = 1.0f / std::sqrt(ms / static_cast<float>(dh) + norm::kEps);
#pragma omp simd
        for (int64_t i = 0; i < half; ++i) {
          const float x1 = p1[i] * rstd * g[i], x2 = p2[i] * rstd * g[i + half];
          p1[i] = x1 * c[i] - x2 * s[i];
          p2[i] = x2 * c[i] + x1 * s[i];
        }
        continue;
      }
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
      if (d.softcap > 0) {
        const float cap = static_cast<float>(d.softcap), inv = 1.0f / cap;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) row[j] = cap * fast_tanh(row[j] * inv);
      }
      float m = row[0];
      // (a comparison, not std::max: GCC 12 leaves a std::max reduction scalar, 13x slower)
#pragma omp simd reduction(max : m)
      for (int64_t j = 0; j < n; ++j) m = row[j] > m ? row[j] : m;
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

// ---- the unfused (eager) level's passes --------------------------------------------

// `rows` rows of `w` floats, row r = (t, h) at p + t·ld + h·w with h < per_token: a
// [T, D] activation (per_token 1, w = D) or its heads (per_token H, w = dh), in place
// in the GEMM output whose rows are ld apart.
struct Rows {
  float* p;
  int64_t rows, per_token, w, ld;
  float* row(int64_t r) const { return p + (r / per_token) * ld + (r % per_token) * w; }
};

// RMSNorm over the rows of v, in place, as the norm pair's six unfused passes
// (norm::unfused_passes): sq = x·x, ms = sq.mean(-1), v = ms + eps, rstd = rsqrt(v),
// xn = x·rstd, y = xn·gamma. `tmp` holds rows·w floats, `stat` 3·rows.
void eager_rmsnorm(const Rows& v, const float* gamma, float* tmp, float* stat) {
  const int64_t R = v.rows, w = v.w;
  float *ms = stat, *ve = stat + R, *rstd = stat + 2 * R;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    const float* x = v.row(r);
#pragma omp simd
    for (int64_t i = 0; i < w; ++i) tmp[r * w + i] = x[i] * x[i];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < w; ++i) sum += tmp[r * w + i];
    ms[r] = sum / static_cast<float>(w);
  }
#pragma omp parallel for simd schedule(static)
  for (int64_t r = 0; r < R; ++r) ve[r] = ms[r] + norm::kEps;
#pragma omp parallel for simd schedule(static)
  for (int64_t r = 0; r < R; ++r) rstd[r] = 1.0f / std::sqrt(ve[r]);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    const float* x = v.row(r);
#pragma omp simd
    for (int64_t i = 0; i < w; ++i) tmp[r * w + i] = x[i] * rstd[r];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    float* y = v.row(r);
#pragma omp simd
    for (int64_t i = 0; i < w; ++i) y[i] = tmp[r * w + i] * gamma[i];
  }
}

// Hugging Face's apply_rotary_pos_emb on the heads of v (T·H rows of dh), in place:
// y = x·cos + rotate_half(x)·sin, rotate_half(x) = cat(−x2, x1), five passes. The tables
// are full width [T, dh] (both halves), as Hugging Face builds them. `neg` holds
// T·D/2 floats, `rot`, `a`, `b` T·D each.
void eager_rope(const Rows& v, const float* cos_full, const float* sin_full, float* neg, float* rot, float* a,
                float* b) {
  const int64_t R = v.rows, dh = v.w, half = dh / 2, H = v.per_token;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    const float* x = v.row(r);
#pragma omp simd
    for (int64_t i = 0; i < half; ++i) neg[r * half + i] = -x[half + i];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    const float* x = v.row(r);
    for (int64_t i = 0; i < half; ++i) rot[r * dh + i] = neg[r * half + i];
    for (int64_t i = 0; i < half; ++i) rot[r * dh + half + i] = x[i];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    const float* x = v.row(r);
    const float* c = cos_full + (r / H) * dh;
#pragma omp simd
    for (int64_t i = 0; i < dh; ++i) a[r * dh + i] = x[i] * c[i];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    const float* sn = sin_full + (r / H) * dh;
#pragma omp simd
    for (int64_t i = 0; i < dh; ++i) b[r * dh + i] = rot[r * dh + i] * sn[i];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    float* y = v.row(r);
#pragma omp simd
    for (int64_t i = 0; i < dh; ++i) y[i] = a[r * dh + i] + b[r * dh + i];
  }
}

// One elementwise pass over n floats.
template <typename F>
void eager_map(int64_t n, float* x, F&& f) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) x[i] = f(x[i]);
}

// Eager attention: per head S = q kᵀ into `scores` [H, T, T], then ·scale, (/cap, tanh,
// ·cap), + mask (0 or −inf, [T, T]), softmax over each full row, O = P v; each step one
// pass over all the scores. q, k, v: heads at columns h·dh of [T, ld_in]; out [T, ld_out].
void eager_attention(const Dims& d, const float* q, const float* k, const float* v, int64_t ld_in, float* out,
                     int64_t ld_out, float* scores, const float* mask) {
  const int64_t T = d.tokens, H = d.q_heads, dh = d.head_dim, TT = T * T, n = H * TT;
  for (int64_t h = 0; h < H; ++h)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(T), static_cast<int>(T),
                static_cast<int>(dh), 1.0f, q + h * dh, static_cast<int>(ld_in), k + h * dh, static_cast<int>(ld_in),
                0.0f, scores + h * TT, static_cast<int>(T));
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  eager_map(n, scores, [scale](float x) { return x * scale; });
  if (d.softcap > 0) {
    const float cap = static_cast<float>(d.softcap);
    eager_map(n, scores, [cap](float x) { return x / cap; });
    eager_map(n, scores, [](float x) { return fast_tanh(x); });
    eager_map(n, scores, [cap](float x) { return x * cap; });
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < H * T; ++r) {
    float* row = scores + r * T;
    const float* m = mask + (r % T) * T;
#pragma omp simd
    for (int64_t j = 0; j < T; ++j) row[j] += m[j];
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < H * T; ++r) {
    float* __restrict row = scores + r * T;
    float m = row[0];
    // (a comparison, not std::max: GCC 12 leaves a std::max reduction scalar, 13x slower)
#pragma omp simd reduction(max : m)
    for (int64_t j = 0; j < T; ++j) m = row[j] > m ? row[j] : m;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < T; ++j) sum += (row[j] = fast_exp(row[j] - m));  // −inf: ~1e-38
    const float inv = 1.0f / sum;
#pragma omp simd
    for (int64_t j = 0; j < T; ++j) row[j] *= inv;
  }
  for (int64_t h = 0; h < H; ++h)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(T), static_cast<int>(dh),
                static_cast<int>(T), 1.0f, scores + h * TT, static_cast<int>(T), v + h * dh, static_cast<int>(ld_in),
                0.0f, out + h * dh, static_cast<int>(ld_out));
}

// act_fn(gate) * up as two passes: s = silu(g) into `tmp` [T, F], then out = s·u.
void eager_swiglu(int64_t T, int64_t F, const float* g, const float* u, int64_t ld_in, float* out, int64_t ld_out,
                  float* tmp) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t) {
    const float* __restrict gr = g + t * ld_in;
    float* __restrict sr = tmp + t * F;
#pragma omp simd
    for (int64_t j = 0; j < F; ++j) sr[j] = gr[j] / (1.0f + fast_exp(-gr[j]));
  }
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t) {
    const float* __restrict sr = tmp + t * F;
    const float* __restrict ur = u + t * ld_in;
    float* __restrict o = out + t * ld_out;
#pragma omp simd
    for (int64_t j = 0; j < F; ++j) o[j] = sr[j] * ur[j];
  }
}

class CpuBlockWorkload final : public Workload {
 public:
  explicit CpuBlockWorkload(const RunSpec& spec)
      : variant_(parse_variant(spec.variant)),
        unfused_(spec.impl == "unfused"),
        d_(dims_of(spec.shape)),
        w_(variant_, d_) {
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
    if (unfused_) allocate_eager();
    randomize(1);
  }

  void run() override {
    // OpenMP may have been given more threads since construction: one score tile each.
    const size_t need = static_cast<size_t>(omp_get_max_threads()) * kQueryTile * d_.tokens;
    if (scores_.size() < need) scores_.resize(need);
    seconds_ = {{kClassNormalization, 0.0}, {kClassMatmul, 0.0}, {kClassAttention, 0.0}, {kClassElementwise, 0.0}};
    if (variant_ == Variant::serial)
      run_serial();
    else
      run_parallel();
  }

  Validation validate(uint64_t seed) override {
    randomize(seed);
    return run_against_reference(
        *this, y_, [&](std::span<double> ref) { reference(variant_, d_, w_.view(), x_, ref); }, /*composite=*/true);
  }

  std::map<std::string, double> last_class_seconds() const override { return seconds_; }

 private:
  template <typename F>
  void phase(const char* cls, F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    seconds_[cls] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // The RMSNorm of kernels/norm (beta unused): fused, or its unfused primitive passes.
  void rmsnorm(const float* in, const float* gamma, float* out) {
    phase(kClassNormalization, [&] {
      if (unfused_)
        norm::cpu_unfused(norm::Kind::rmsnorm, {d_.tokens, d_.d_model}, in, gamma, nullptr, out, norm_tmp_.data());
      else
        norm::cpu_fused(norm::Kind::rmsnorm, {d_.tokens, d_.d_model}, in, gamma, nullptr, out);
    });
  }

  // QK-norm (when on) and RoPE on the q and k heads at columns [0, 2D) of qk [T, ld].
  void qk_rope(float* qk, int64_t ld) {
    if (!unfused_) {
      phase(kClassElementwise,
            [&] { rope(d_, qk, ld, cos_.data(), sin_.data(), w_.gamma_q.data(), w_.gamma_k.data()); });
      return;
    }
    const int64_t T = d_.tokens, H = d_.q_heads, dh = d_.head_dim;
    const Rows q{qk, T * H, H, dh, ld}, k{qk + d_.d_model, T * H, H, dh, ld};
    if (d_.qk_norm)
      phase(kClassNormalization, [&] {
        eager_rmsnorm(q, w_.gamma_q.data(), eager_a_.data(), eager_stat_.data());
        eager_rmsnorm(k, w_.gamma_k.data(), eager_a_.data(), eager_stat_.data());
      });
    phase(kClassElementwise, [&] {
      for (const Rows& v : {q, k})
        eager_rope(v, cos_full_.data(), sin_full_.data(), eager_neg_.data(), eager_rot_.data(), eager_a_.data(),
                   eager_b_.data());
    });
  }

  void attend(const float* q, int64_t ld_in, float* out, int64_t ld_out) {
    const int64_t D = d_.d_model;
    phase(kClassAttention, [&] {
      if (unfused_)
        eager_attention(d_, q, q + D, q + 2 * D, ld_in, out, ld_out, eager_scores_.data(), mask_.data());
      else
        attention(d_, q, q + D, q + 2 * D, ld_in, out, ld_out, scores_.data());
    });
  }

  void act(const float* g, const float* u, int64_t ld_in, float* out, int64_t ld_out) {
    phase(kClassElementwise, [&] {
      if (unfused_)
        eager_swiglu(d_.tokens, d_.d_ff, g, u, ld_in, out, ld_out, eager_silu_.data());
      else
        swiglu(d_.tokens, d_.d_ff, g, u, ld_in, out, ld_out);
    });
  }

  // Buffers of the unfused level: the norm's and QK-norm's intermediates, RoPE's, every
  // head's T×T scores and the causal mask, silu(gate), the full-width RoPE tables.
  void allocate_eager() {
    const int64_t T = d_.tokens, D = d_.d_model, F = d_.d_ff, H = d_.q_heads, dh = d_.head_dim;
    if (static_cast<double>(H) * static_cast<double>(T) * static_cast<double>(T) >
        static_cast<double>(kMaxTensorElements))
      throw std::invalid_argument(fmt::format("block unfused: the scores would hold {} x {}^2 elements (limit {})", H,
                                              T, kMaxTensorElements));
    norm_tmp_.resize(norm::cpu_unfused_scratch_floats({T, D}));
    eager_stat_.resize(3 * T * H);
    eager_neg_.resize(T * D / 2);
    eager_rot_.resize(T * D);
    eager_a_.resize(T * D);
    eager_b_.resize(T * D);
    eager_scores_.resize(static_cast<size_t>(H * T * T));
    mask_.resize(static_cast<size_t>(T * T));
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) mask_[i * T + j] = j <= i ? 0.f : -INFINITY;
    eager_silu_.resize(T * F);
    const int64_t half = dh / 2;
    cos_full_.resize(T * dh);
    sin_full_.resize(T * dh);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < dh; ++i) {
        cos_full_[t * dh + i] = cos_[t * half + i % half];
        sin_full_[t * dh + i] = sin_[t * half + i % half];
      }
  }

  void run_serial() {
    const int64_t T = d_.tokens, D = d_.d_model, F = d_.d_ff;
    float* q = qkv_.data();
    rmsnorm(x_.data(), w_.gamma1.data(), n_.data());
    phase(kClassMatmul, [&] { gemm_nt(T, 3 * D, D, n_.data(), D, w_.w_in.data(), D, q, 3 * D); });
    qk_rope(q, 3 * D);
    attend(q, 3 * D, attn_.data(), D);
    phase(kClassMatmul, [&] { gemm_nt(T, D, D, attn_.data(), D, w_.w_out.data(), D, m_.data(), D); });
    phase(kClassElementwise, [&] { add(T * D, x_.data(), m_.data(), h_.data()); });
    rmsnorm(h_.data(), w_.gamma2.data(), n_.data());
    phase(kClassMatmul, [&] { gemm_nt(T, 2 * F, D, n_.data(), D, w_.w_in.data() + 3 * D * D, D, gu_.data(), 2 * F); });
    act(gu_.data(), gu_.data() + F, 2 * F, act_.data(), F);
    phase(kClassMatmul, [&] { gemm_nt(T, D, F, act_.data(), F, w_.w_down.data(), F, m_.data(), D); });
    phase(kClassElementwise, [&] { add(T * D, h_.data(), m_.data(), y_.data()); });
  }

  void run_parallel() {
    const int64_t T = d_.tokens, D = d_.d_model, F = d_.d_ff, ld = 3 * D + 2 * F;
    float* z = qkv_.data();  // [T, 3D + 2F]: q | k | v | gate | up
    float* cat = attn_.data();  // [T, D + F]: attn | silu(gate)·up
    rmsnorm(x_.data(), w_.gamma1.data(), n_.data());
    phase(kClassMatmul, [&] { gemm_nt(T, ld, D, n_.data(), D, w_.w_in.data(), D, z, ld); });
    qk_rope(z, ld);
    attend(z, ld, cat, D + F);
    act(z + 3 * D, z + 3 * D + F, ld, cat + D, D + F);
    phase(kClassMatmul, [&] { gemm_nt(T, D, D + F, cat, D + F, w_.w_out.data(), D + F, m_.data(), D); });
    phase(kClassElementwise, [&] { add(T * D, x_.data(), m_.data(), y_.data()); });
  }

  void randomize(uint64_t seed) {
    fill_uniform(x_, seed, -1.f, 1.f);
    w_.randomize(seed + 10);
  }

  Variant variant_;
  bool unfused_;
  Dims d_;
  HostWeights w_;
  HostVector<float> x_, y_, n_, qkv_, attn_, m_, h_, gu_, act_, scores_;
  std::vector<float> cos_, sin_;
  HostVector<float> norm_tmp_, eager_stat_, eager_neg_, eager_rot_, eager_a_, eager_b_, eager_scores_, mask_,
      eager_silu_, cos_full_, sin_full_;
  std::map<std::string, double> seconds_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) {
  if (spec.impl != "fused" && spec.impl != "unfused")
    throw std::invalid_argument("block has the 'fused' and 'unfused' implementation levels only");
  return std::make_unique<CpuBlockWorkload>(spec);
}

}  // namespace lmroof::block
