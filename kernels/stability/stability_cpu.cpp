// CPU kernels for the stability pair. Every pass is one OpenMP loop over rows; a row
// (a head of head_dim, a token's vocab logits, a query's keys) is read from memory
// once and any second look at it (the sum after the max) comes from L1/L2. The
// passes follow stability::passes() one for one.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "common/fast_math.h"
#include "common/host_buffer.h"
#include "common/host_data.h"
#include "norm/norm.h"
#include "stability/stability.h"

namespace lmroof::stability {

namespace {

// ---- qknorm: RMSNorm of each head row, RoPE (rotate-half) --------------------------

// y = x / rms(x) · gamma per row of dh elements.
void rmsnorm_heads(int64_t rows, int64_t dh, const float* x, const float* gamma, float* y) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict in = x + r * dh;
    float* __restrict out = y + r * dh;
    float ms = 0;
#pragma omp simd reduction(+ : ms)
    for (int64_t i = 0; i < dh; ++i) ms += in[i] * in[i];
    const float rstd = 1.0f / std::sqrt(ms / static_cast<float>(dh) + norm::kEps);
#pragma omp simd
    for (int64_t i = 0; i < dh; ++i) out[i] = in[i] * rstd * gamma[i];
  }
}

// RoPE of `heads` heads per token, x [tokens, heads, dh] -> y; with kNorm each head is
// first normalised as above while it sits in registers/L1 (the fused level).
//
// With AVX-512, half a head a multiple of 16 floats and y 64-byte aligned, y is written
// with streaming stores: it is the output of every level, not read again here, and a
// normal store reads each line of y from DRAM first (write-allocate), a third more
// bytes than the operator moves. All three levels end in this pass, so the pair's
// comparison keeps one store policy for its output.
template <bool kNorm>
void rope_heads(int64_t tokens, int64_t heads, int64_t dh, const float* x, const float* gamma, const float* cos_t,
                const float* sin_t, float* y) {
  const int64_t half = dh / 2;
#ifdef __AVX512F__
  const bool stream = half % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 64 == 0;
#else
  [[maybe_unused]] const bool stream = false;  // read only by the AVX-512 path
#endif
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tokens; ++t) {
      const float* __restrict c = cos_t + t * half;
      const float* __restrict s = sin_t + t * half;
      for (int64_t h = 0; h < heads; ++h) {
        const float* __restrict in = x + (t * heads + h) * dh;
        float* __restrict out = y + (t * heads + h) * dh;
        float rstd = 1.0f;
        if constexpr (kNorm) {
          float ms = 0;
#pragma omp simd reduction(+ : ms)
          for (int64_t i = 0; i < dh; ++i) ms += in[i] * in[i];
          rstd = 1.0f / std::sqrt(ms / static_cast<float>(dh) + norm::kEps);
        }
#ifdef __AVX512F__
        if (stream) {
          const __m512 vr = _mm512_set1_ps(rstd);
          for (int64_t i = 0; i < half; i += 16) {
            __m512 x1 = _mm512_loadu_ps(in + i), x2 = _mm512_loadu_ps(in + i + half);
            if constexpr (kNorm) {
              x1 = _mm512_mul_ps(_mm512_mul_ps(x1, vr), _mm512_loadu_ps(gamma + i));
              x2 = _mm512_mul_ps(_mm512_mul_ps(x2, vr), _mm512_loadu_ps(gamma + i + half));
            }
            const __m512 vc = _mm512_loadu_ps(c + i), vs = _mm512_loadu_ps(s + i);
            _mm512_stream_ps(out + i, _mm512_fmsub_ps(x1, vc, _mm512_mul_ps(x2, vs)));
            _mm512_stream_ps(out + i + half, _mm512_fmadd_ps(x2, vc, _mm512_mul_ps(x1, vs)));
          }
          continue;
        }
#endif
#pragma omp simd
        for (int64_t i = 0; i < half; ++i) {
          float x1 = in[i], x2 = in[i + half];
          if constexpr (kNorm) x1 = x1 * rstd * gamma[i], x2 = x2 * rstd * gamma[i + half];
          out[i] = x1 * c[i] - x2 * s[i];
          out[i + half] = x2 * c[i] + x1 * s[i];
        }
      }
    }
#ifdef __AVX512F__
    if (stream) _mm_sfence();  // this thread's streaming stores, before the region's barrier
#endif
  }
}

// ---- logits and scores: soft-capping, logsumexp, cross-entropy, softmax ------------

inline float capped(float x, float cap, float inv_cap) { return cap * fast_tanh(x * inv_cap); }

// cap·tanh(x/cap) over n elements (the unfused soft-capping pass).
void softcap_pass(int64_t n, const float* x, float cap, float* y) {
  const float inv = 1.0f / cap;
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = capped(x[i], cap, inv);
}

float row_max(int64_t W, const float* __restrict x) {
  float m = x[0];
  // (a comparison, not std::max: GCC 12 leaves a std::max reduction scalar, 13x slower)
#pragma omp simd reduction(max : m)
  for (int64_t j = 0; j < W; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

// The sum of exp(c − m) over a row (c = cap·tanh(x/cap) when cap > 0), written to
// `out` too when it is not null. The sum is compute work on a row already in L1/L2;
// `next` (the following row, or null) is pulled into L2 alongside, a chunk per chunk,
// so that DRAM keeps streaming while the exponentials are computed and the next row's
// max pass reads from cache.
constexpr int64_t kChunk = 512;  // floats: 32 cache lines

// With the cap, the capped chunk is computed first, into L1 (out's chunk when the
// exponentials are stored, else a buffer on the stack), and its exponentials after:
// two short loops each keep their constants in registers, where one loop of tanh and
// exp together ran at 0.69 ns per element against 0.60 (one thread, a 32000-float row
// in L2, development machine, 2026-12-01).
template <bool kCap, bool kStore>
float chunk_exp_sum(int64_t j0, int64_t j1, const float* __restrict x, float cap, float inv, float m,
                    float* __restrict out) {
  float sum = 0;
  if constexpr (kCap) {
    alignas(64) float buffer[kChunk];
    float* __restrict c = kStore ? out + j0 : buffer;
    const int64_t len = j1 - j0;
#pragma omp simd
    for (int64_t j = 0; j < len; ++j) c[j] = capped(x[j0 + j], cap, inv);
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < len; ++j) {
      const float e = fast_exp(c[j] - m);
      if constexpr (kStore) c[j] = e;
      sum += e;
    }
  } else {
#pragma omp simd reduction(+ : sum)
    for (int64_t j = j0; j < j1; ++j) {
      const float e = fast_exp(x[j] - m);
      if constexpr (kStore) out[j] = e;
      sum += e;
    }
  }
  return sum;
}

template <bool kCap, bool kStore>
float row_exp_sum(int64_t W, const float* __restrict x, float cap, float m, const float* next,
                  float* __restrict out) {
  const float inv = kCap ? 1.0f / cap : 0.f;
  float total = 0;
  for (int64_t j0 = 0; j0 < W; j0 += kChunk) {
    const int64_t j1 = std::min(W, j0 + kChunk);
    if (next)
      for (int64_t j = j0; j < j1; j += 16) _mm_prefetch(reinterpret_cast<const char*>(next + j), _MM_HINT_T1);
    total += chunk_exp_sum<kCap, kStore>(j0, j1, x, cap, inv, m, out);
  }
  return total;
}

float row_exp_sum(int64_t W, const float* x, float cap, float m, const float* next, float* out) {
  if (cap > 0)
    return out ? row_exp_sum<true, true>(W, x, cap, m, next, out) : row_exp_sum<true, false>(W, x, cap, m, next, out);
  return out ? row_exp_sum<false, true>(W, x, cap, m, next, out) : row_exp_sum<false, false>(W, x, cap, m, next, out);
}

// logsumexp of a row, of cap·tanh(x/cap) when cap > 0, as the row's max and the log
// of the sum of exp(c - max). tanh is increasing, so the capped row's max is the cap
// of the raw max: the cap is applied once per element, in the sum. Kept apart so
// that a loss lse - c[target] is (max - c[target]) + log_sum, as PyTorch's
// log_softmax orders it: max + log_sum rounded to a float first loses log_sum's
// digits below the logits' ulp (3.8e-6 at 45), all of a loss whose target is the
// largest logit by a wide margin.
struct RowLogSumExp {
  float max, log_sum;
  float value() const { return max + log_sum; }
};
RowLogSumExp row_logsumexp(int64_t W, const float* __restrict x, float cap, const float* next) {
  const float m_raw = row_max(W, x);
  const float m = cap > 0 ? capped(m_raw, cap, 1.0f / cap) : m_raw;
  return {m, std::log(row_exp_sum(W, x, cap, m, next, nullptr))};
}

// loss[t] = lse_t − c[t, target_t] + zcoef·lse_t² (c: logits, capped when cap > 0).
void cross_entropy_pass(int64_t T, int64_t V, const float* logits, const int32_t* targets, float cap, float zcoef,
                        float* loss) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t) {
    const float* row = logits + t * V;
    const RowLogSumExp r = row_logsumexp(V, row, cap, t + 1 < T ? row + V : nullptr);
    const float x = row[targets[t]];
    const float target = cap > 0 ? capped(x, cap, 1.0f / cap) : x;
    const float lse = r.value();
    loss[t] = (r.max - target) + r.log_sum + zcoef * lse * lse;
  }
}

void logsumexp_pass(int64_t T, int64_t V, const float* logits, float* z) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t)
    z[t] = row_logsumexp(V, logits + t * V, 0.f, t + 1 < T ? logits + (t + 1) * V : nullptr).value();
}

void add_zloss_pass(int64_t T, const float* z, float coef, float* loss) {
#pragma omp parallel for simd schedule(static)
  for (int64_t t = 0; t < T; ++t) loss[t] += coef * z[t] * z[t];
}

// p = softmax(c) per row of W, c = cap·tanh(s/cap) when cap > 0.
//
// A probability below FLT_MIN is stored as 0, not as the subnormal number e/sum would
// round to: a multiply whose result is subnormal takes the CPU's slow path (a
// microcode assist on Intel, a long-latency one on AMD), and unclamped scores spread
// far enough for that: scores in ±60 (1.2·kAttnCap, HostInputs::randomize) put ~28%
// of each row's exp(s − max) at fast_exp's floor near 1.6e-38, and every one of them
// turned subnormal when divided by the row's sum. That made `without`, the softmax
// alone, 5.5x slower than the same pass with the soft-cap (71 against 13 ms, issue
// #34 item 8), whose capped scores stay within ±41.7 and never come near FLT_MIN.
// The select comes before the multiply, so no lane ever computes a subnormal; the
// float64 reference's value there is below 1.2e-38, far within the validation's
// tolerance, and a probability that small is 0 to every consumer of the softmax.
void softmax_pass(int64_t R, int64_t W, const float* scores, float cap, float* p) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    const float* __restrict s = scores + r * W;
    float* __restrict out = p + r * W;
    const float m_raw = row_max(W, s);
    const float m = cap > 0 ? capped(m_raw, cap, 1.0f / cap) : m_raw;
    const float sum = row_exp_sum(W, s, cap, m, r + 1 < R ? s + W : nullptr, out);
    const float inv_sum = 1.0f / sum;
    // (twice FLT_MIN·sum: e·inv_sum rounds to no less than FLT_MIN above it)
    const float smallest = 2 * std::numeric_limits<float>::min() * sum;
#pragma omp simd
    for (int64_t j = 0; j < W; ++j) out[j] = (out[j] >= smallest ? out[j] : 0.f) * inv_sum;
  }
}

class CpuStabilityWorkload final : public Workload {
 public:
  explicit CpuStabilityWorkload(const RunSpec& spec)
      : trick_(parse_trick(spec.variant)), level_(parse_level(spec.impl)), d_(dims_of(trick_, spec.shape)) {
    in_.randomize(trick_, d_, 1);
    out_.resize(output_size(trick_, d_));
    if (level_ == Level::unfused) {
      // qknorm: the normalised q and k; softcap: the capped tensor; zloss: lse per token
      const size_t n = trick_ == Trick::zloss ? static_cast<size_t>(d_.tokens) : in_.a.size() + in_.b.size();
      scratch_.resize(n);
    }
  }

  void run() override {
    const float cap = cap_of(trick_);
    switch (trick_) {
      case Trick::qknorm: return run_qknorm();
      case Trick::zloss:
        cross_entropy_pass(d_.tokens, d_.vocab, in_.a.data(), in_.targets.data(), 0.f,
                           level_ == Level::fused ? static_cast<float>(kZLossCoef) : 0.f, out_.data());
        if (level_ == Level::unfused) {
          logsumexp_pass(d_.tokens, d_.vocab, in_.a.data(), scratch_.data());
          add_zloss_pass(d_.tokens, scratch_.data(), static_cast<float>(kZLossCoef), out_.data());
        }
        return;
      case Trick::logit_softcap:
        if (level_ == Level::unfused) {
          softcap_pass(static_cast<int64_t>(in_.a.size()), in_.a.data(), cap, scratch_.data());
          cross_entropy_pass(d_.tokens, d_.vocab, scratch_.data(), in_.targets.data(), 0.f, 0.f, out_.data());
        } else {
          cross_entropy_pass(d_.tokens, d_.vocab, in_.a.data(), in_.targets.data(),
                             level_ == Level::fused ? cap : 0.f, 0.f, out_.data());
        }
        return;
      case Trick::attn_softcap: {
        const int64_t R = d_.rows(trick_), W = d_.width(trick_);
        if (level_ == Level::unfused) {
          softcap_pass(R * W, in_.a.data(), cap, scratch_.data());
          softmax_pass(R, W, scratch_.data(), 0.f, out_.data());
        } else {
          softmax_pass(R, W, in_.a.data(), level_ == Level::fused ? cap : 0.f, out_.data());
        }
        return;
      }
    }
  }

  Validation validate(uint64_t seed) override {
    in_.randomize(trick_, d_, seed);
    poison(out_);
    run();
    const std::vector<double> ref = reference(trick_, level_ != Level::without, d_, in_);
    return {relative_error<float>(out_, ref, validation_floor(trick_)), tolerance_for(DType::fp32)};
  }

 private:
  void run_qknorm() {
    const int64_t T = d_.tokens, dh = d_.head_dim, Hq = d_.q_heads, Hk = d_.kv_heads;
    const float *q = in_.a.data(), *k = in_.b.data(), *c = in_.cos_table.data(), *s = in_.sin_table.data();
    float* q_out = out_.data();
    float* k_out = q_out + T * Hq * dh;
    switch (level_) {
      case Level::without:
        rope_heads<false>(T, Hq, dh, q, nullptr, c, s, q_out);
        rope_heads<false>(T, Hk, dh, k, nullptr, c, s, k_out);
        break;
      case Level::unfused: {
        float* qn = scratch_.data();
        float* kn = qn + T * Hq * dh;
        rmsnorm_heads(T * Hq, dh, q, in_.gamma_q.data(), qn);
        rmsnorm_heads(T * Hk, dh, k, in_.gamma_k.data(), kn);
        rope_heads<false>(T, Hq, dh, qn, nullptr, c, s, q_out);
        rope_heads<false>(T, Hk, dh, kn, nullptr, c, s, k_out);
        break;
      }
      case Level::fused:
        rope_heads<true>(T, Hq, dh, q, in_.gamma_q.data(), c, s, q_out);
        rope_heads<true>(T, Hk, dh, k, in_.gamma_k.data(), c, s, k_out);
        break;
    }
  }

  Trick trick_;
  Level level_;
  Dims d_;
  HostInputs in_;
  HostVector<float> out_, scratch_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuStabilityWorkload>(spec); }

}  // namespace lmroof::stability
