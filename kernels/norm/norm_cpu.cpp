// CPU kernels for the norm pair: "fused" (one read of x, one write of y, rows
// spread over OpenMP threads, the row's statistics computed while it sits in L1/L2;
// with AVX-512 and d_model a multiple of 64, one row written while the next is
// reduced: fused_rows_pipelined)
// and "unfused" (one OpenMP pass over memory per primitive, as eager PyTorch runs it).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <omp.h>

#include "common/host_buffer.h"
#include "common/cpu_validation.h"
#include "common/host_data.h"
#include "norm/norm.h"

namespace lmroof::norm {

namespace {

// y = (x - shift) * scale * gamma (+ beta). The output is written with streaming
// (non-temporal) stores where the vector ISA has them: y is not read again by this
// kernel, and a normal store would first read each line of y from DRAM
// (write-allocate), moving a third more bytes than the operator needs.
//
// `next` (the following row, or null) is prefetched into L2 along the way, so DRAM
// keeps streaming while the next row's statistics pass would otherwise stall on it.
//
// The shift is shift + shift_lo (a float and the rounding error of the double it
// came from): x - shift is exact for x near the shift, so rows with a mean far from
// zero next to their spread keep their precision.
template <bool kBeta>
void write_normalized(int64_t D, const float* __restrict x, float shift, float scale, const float* __restrict gamma,
                      const float* __restrict beta, float* __restrict y, [[maybe_unused]] const float* next,
                      [[maybe_unused]] int64_t next_from, float shift_lo = 0.f) {
  int64_t i = 0;
#ifdef __AVX512F__
  for (; i < D && (reinterpret_cast<uintptr_t>(y + i) & 63) != 0; ++i)
    y[i] = ((x[i] - shift) - shift_lo) * scale * gamma[i] + (kBeta ? beta[i] : 0.f);
  const __m512 vshift = _mm512_set1_ps(shift), vshift_lo = _mm512_set1_ps(shift_lo), vscale = _mm512_set1_ps(scale);
  for (; i + 16 <= D; i += 16) {
    if (next && i >= next_from) _mm_prefetch(reinterpret_cast<const char*>(next + i), _MM_HINT_T1);
    const __m512 centred = _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vshift), vshift_lo);
    __m512 v = _mm512_mul_ps(_mm512_mul_ps(centred, vscale), _mm512_loadu_ps(gamma + i));
    if constexpr (kBeta) v = _mm512_add_ps(v, _mm512_loadu_ps(beta + i));
    _mm512_stream_ps(y + i, v);
  }
#endif
  for (; i < D; ++i) y[i] = ((x[i] - shift) - shift_lo) * scale * gamma[i] + (kBeta ? beta[i] : 0.f);
}

// sum over the row of (x[i] - shift)^2, or of x[i] when kSquare is false. Four
// independent vector accumulators: one would make each pass latency-bound on the
// add chain, and these passes must stay short next to the row's memory traffic.
//
// `prefetch` (may be null) is a slice of the next row, [0, prefetch_len) floats,
// pulled into L2 while this pass runs, so DRAM keeps streaming during the passes
// that work out of cache.
template <bool kSquare>
float row_reduce(int64_t D, const float* __restrict x, float shift, [[maybe_unused]] const float* prefetch,
                 [[maybe_unused]] int64_t prefetch_len) {
  int64_t i = 0;
  float total = 0;
#ifdef __AVX512F__
  const __m512 vshift = _mm512_set1_ps(shift);
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  // prefetch_len / D floats of the next row per float of this one, in whole lines
  const int64_t prefetch_per_block = prefetch ? (prefetch_len * 64 + D - 1) / D : 0;
  int64_t prefetched = 0;
  for (; i + 64 <= D; i += 64) {
    for (int64_t end = std::min(prefetch_len, prefetched + prefetch_per_block); prefetched < end; prefetched += 16)
      _mm_prefetch(reinterpret_cast<const char*>(prefetch + prefetched), _MM_HINT_T1);
    for (int k = 0; k < 4; ++k) {
      const __m512 v = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16 * k), vshift);
      acc[k] = kSquare ? _mm512_fmadd_ps(v, v, acc[k]) : _mm512_add_ps(acc[k], v);
    }
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
  for (float v : lanes) total += v;
#endif
  float tail = 0;
#pragma omp simd reduction(+ : tail)
  for (int64_t j = i; j < D; ++j) tail += kSquare ? (x[j] - shift) * (x[j] - shift) : x[j] - shift;
  return total + tail;
}

// A row's normalisation: y = ((x - shift) - shift_lo) · scale · gamma (+ beta).
struct Normalization {
  float shift = 0, shift_lo = 0, scale = 1;
};
// LayerNorm's, from the row's mean in double (kept as a float and its rounding
// error: x - shift is exact for x near the shift, so a mean far from zero next to the
// spread keeps its digits) and its variance.
inline Normalization centred(double mean, float variance) {
  const float shift = static_cast<float>(mean);
  return {shift, static_cast<float>(mean - shift), 1.0f / std::sqrt(variance + kEps)};
}
// RMSNorm's, from the mean of the squares.
inline Normalization uncentred(float mean_square) { return {0.f, 0.f, 1.0f / std::sqrt(mean_square + kEps)}; }

#ifdef __AVX512F__
// Mean and M2 (sum of squared deviations) of a row in ONE pass: 32 lanes (two
// vectors) each accumulate sums of (x - K) and (x - K)^2 around their own first
// value K, and the lanes are combined with Chan et al.'s pairwise update in double.
// Shifting by a value of the lane's own data keeps E[(x-K)^2] - E[x-K]^2 free of
// the cancellation of the textbook E[x^2] - mean^2; one pass instead of two keeps
// LayerNorm's cache traffic equal to RMSNorm's (the second pass over a 16 KB row
// from L2 made fused LayerNorm 1.3x slower than fused RMSNorm at d_model 4096).
struct Moments {
  double mean = 0, m2 = 0;
};
// Sum of the 16 lanes, once per row (GCC 12's _mm512_reduce_add_ps and 256-bit
// casts warn of an uninitialised register once inlined here).
inline float lane_sum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float total = 0;
  for (float x : lanes) total += x;
  return total;
}
struct ShiftedMoments {
  // Lanes of two vectors (32), not four: fused_rows_pipelined keeps two rows'
  // accumulators and shifts, 12 vectors, in registers with the output's; with four
  // vectors, 24 of them, they had to stay in memory and fused LayerNorm ran 1.3-1.5x
  // slower than fused RMSNorm. Two add chains per moment are plenty for a pass that
  // waits on memory.
  static constexpr int kVectors = 2, kLanes = 16 * kVectors;
  __m512 shift[kVectors], s1[kVectors], s2[kVectors];
  // x: the row's first 64 values (D >= 64)
  void start(const float* x) {
    for (int k = 0; k < kVectors; ++k) {
      shift[k] = _mm512_loadu_ps(x + 16 * k);
      s1[k] = s2[k] = _mm512_setzero_ps();
    }
  }
  // x: the next 64 values of the row
  [[gnu::always_inline]] void add(const float* __restrict x) {
    for (int k = 0; k < 4; ++k) {
      const int lane = k % kVectors;
      const __m512 v = _mm512_sub_ps(_mm512_loadu_ps(x + 16 * k), shift[lane]);
      s1[lane] = _mm512_add_ps(s1[lane], v);
      s2[lane] = _mm512_fmadd_ps(v, v, s2[lane]);
    }
  }
  // The row's moments after add() covered x[0, blocks * 64), the rest merged in.
  Moments finish(int64_t D, const float* __restrict x, int64_t blocks) const {
    // Every lane holds c = blocks * 64 / kLanes values, so Chan's merge of the lanes has a
    // closed form that stays in vectors: mean = average of the lane means; M2 = sum
    // of the lanes' M2 plus c times the spread of the lane means around the mean.
    const float c = static_cast<float>(blocks * 64 / kLanes);
    const __m512 inv_c = _mm512_set1_ps(1.0f / c);
    // Lane means as deviations from the row's first value: small numbers, so their
    // average keeps the digits a float sum of 64 values near the mean would lose.
    const float base = x[0];
    const __m512 vbase = _mm512_set1_ps(base);
    __m512 lane_dev[kVectors], m2 = _mm512_setzero_ps(), dev_sum = _mm512_setzero_ps();
    for (int k = 0; k < kVectors; ++k) {
      lane_dev[k] = _mm512_fmadd_ps(s1[k], inv_c, _mm512_sub_ps(shift[k], vbase));
      m2 = _mm512_add_ps(m2, _mm512_fnmadd_ps(_mm512_mul_ps(s1[k], s1[k]), inv_c, s2[k]));  // s2 - s1^2 / c
      dev_sum = _mm512_add_ps(dev_sum, lane_dev[k]);
    }
    const float dev = lane_sum(dev_sum) / kLanes;
    const __m512 vdev = _mm512_set1_ps(dev);
    __m512 spread = _mm512_setzero_ps();
    for (int k = 0; k < kVectors; ++k) {
      const __m512 dm = _mm512_sub_ps(lane_dev[k], vdev);
      spread = _mm512_fmadd_ps(dm, dm, spread);
    }
    Moments all;
    const int64_t i = blocks * 64;
    double n = static_cast<double>(i);
    all.mean = static_cast<double>(base) + dev;
    all.m2 = static_cast<double>(lane_sum(m2)) + static_cast<double>(c) * lane_sum(spread);
    if (i < D) {  // the tail, two-pass in double (under 64 elements), merged pairwise
      double sum = 0, tail_m2 = 0;
      for (int64_t j = i; j < D; ++j) sum += x[j];
      const double nb = static_cast<double>(D - i), tail_mean = sum / nb;
      for (int64_t j = i; j < D; ++j) tail_m2 += (x[j] - tail_mean) * (x[j] - tail_mean);
      const double total = n + nb, delta = tail_mean - all.mean;
      all.mean += delta * nb / total;
      all.m2 += tail_m2 + delta * delta * n * nb / total;
    }
    all.m2 = std::max(all.m2, 0.0);
    return all;
  }
};

// RMSNorm's statistic, sum of x^2, in the same shape as ShiftedMoments.
struct SumOfSquares {
  __m512 acc[4];
  void start(const float*) {
    for (auto& a : acc) a = _mm512_setzero_ps();
  }
  [[gnu::always_inline]] void add(const float* __restrict x) {
    for (int k = 0; k < 4; ++k) {
      const __m512 v = _mm512_loadu_ps(x + 16 * k);
      acc[k] = _mm512_fmadd_ps(v, v, acc[k]);
    }
  }
  float finish() const {
    return lane_sum(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
  }
};

// Requires D >= 64. `prefetch` as in row_reduce.
Moments row_moments(int64_t D, const float* __restrict x, const float* prefetch, int64_t prefetch_len) {
  ShiftedMoments acc;
  acc.start(x);
  const int64_t prefetch_per_block = prefetch ? (prefetch_len * 64 + D - 1) / D : 0;
  int64_t prefetched = 0, i = 0;
  for (; i + 64 <= D; i += 64) {
    for (int64_t end = std::min(prefetch_len, prefetched + prefetch_per_block); prefetched < end; prefetched += 16)
      _mm_prefetch(reinterpret_cast<const char*>(prefetch + prefetched), _MM_HINT_T1);
    acc.add(x + i);
  }
  return acc.finish(D, x, i / 64);
}

void fused_row(Kind kind, int64_t D, const float* __restrict x, const float* __restrict gamma,
               const float* __restrict beta, float* __restrict y, const float* next);

// The pipelined loop over rows [t0, t1), for d_model a multiple of 64 and rows of
// y aligned to 64 bytes. A row needs its statistics before its first output, so a
// row-at-a-time loop alternates a pass that only loads (the statistics) with one
// that mostly stores (the output), and the streaming stores idle through the first.
// Here rows are written kGroup at a time, and each step of a group's output also
// accumulates 64 values of each row of the next group's statistics and prefetches
// 64 values of each row of the group after it into L2, so that loads from DRAM and
// streaming stores are in flight together, as in a copy. Each gamma (and beta)
// vector loaded serves the group's rows. An odd last row goes alone, at the end.
//
// Measured on the development machine (Zen 4 VM, 8192x4096, 2 threads, alternated
// with copy_nt right before and after, the run's median):
//   - one row at a time with this pipeline: RMSNorm at 90-93% of the probed copy_nt
//     with the machine slow, 71% with it fast (the first figure of session 5, the
//     second of session 7); the row-at-a-time loop 80-81%, LayerNorm 73-75%;
//   - two rows at a time (session 7, RMSNorm in a harness copy of this loop): the
//     median at 98-100% slow (272 alternations) and 78.5-79% fast (68), where one
//     row reached 95-98% and 71% in the same sittings; four rows were slower
//     (94.5-96% slow, 62% fast), and so were two rows without the prefetch (83-85%
//     slow). In lmroof_bench, old and new binaries alternated: RMSNorm 89% -> 96-101%
//     slow and 59-63% -> 72-74% fast, LayerNorm 80-81% -> 91-96% and 52% -> 69-70%
//     (docs/cost-model.md, "Fused norms").
// Without the prefetch of the group after next the pipeline was slower than the
// row-at-a-time loop (the demand loads alone do not keep DRAM busy), as were
// coarser interleavings (2 and 8 KiB of one row, then of the other). The
// row-at-a-time loop stays for other shapes and hosts.
constexpr int64_t kGroup = 2;

// A row's Normalization as vectors; lo_scaled = shift_lo * scale.
struct RowScale {
  __m512 shift, lo_scaled, scale;
};
template <bool kLayerNorm, typename Stats>
RowScale row_scale(Stats& stats, int64_t D, const float* x, int64_t blocks) {
  Normalization n;
  if constexpr (kLayerNorm) {
    const Moments mo = stats.finish(D, x, blocks);
    n = centred(mo.mean, static_cast<float>(mo.m2 / D));
  } else {
    n = uncentred(stats.finish() / D);
  }
  return {_mm512_set1_ps(n.shift), _mm512_set1_ps(n.shift_lo * n.scale), _mm512_set1_ps(n.scale)};
}
template <bool kLayerNorm>
[[gnu::always_inline]] inline void write_vector(const RowScale& r, const float* x, __m512 g, __m512 bt, float* y) {
  __m512 v = _mm512_loadu_ps(x);
  if constexpr (kLayerNorm) {
    // ((x - shift) * scale - shift_lo * scale) * gamma + beta: three operations, not
    // five (the subtraction of shift stays exact for x near the mean, as before).
    v = _mm512_fmsub_ps(_mm512_sub_ps(v, r.shift), r.scale, r.lo_scaled);
    v = _mm512_fmadd_ps(v, g, bt);
  } else {
    v = _mm512_mul_ps(_mm512_mul_ps(v, r.scale), g);
  }
  _mm512_stream_ps(y, v);
}

template <bool kLayerNorm>
void fused_rows_pipelined(int64_t D, const float* __restrict x, const float* __restrict gamma,
                          const float* __restrict beta, float* __restrict y, int64_t t0, int64_t t1) {
  using Stats = std::conditional_t<kLayerNorm, ShiftedMoments, SumOfSquares>;
  static_assert(kGroup == 2, "the loop below names its two rows");
  const int64_t blocks = D / 64;
  const int64_t groups_end = t0 + (t1 - t0) / kGroup * kGroup;
  // The accumulators must live in registers: GCC kept an array of them on the
  // stack (a load and a store around every accumulation), and that L1 traffic cost
  // 9 points of the copy bandwidth with the machine fast (harness, 0.68 against
  // 0.77, session 7). Hence two named rows and local copies in the loop.
  Stats first, second;
  if (t0 < groups_end) {
    first.start(x + t0 * D);
    second.start(x + (t0 + 1) * D);
    for (int64_t b = 0; b < blocks; ++b) first.add(x + t0 * D + 64 * b), second.add(x + (t0 + 1) * D + 64 * b);
  }
  for (int64_t t = t0; t < groups_end; t += kGroup) {
    const float* __restrict xr = x + t * D;
    float* __restrict yr = y + t * D;
    const RowScale r0 = row_scale<kLayerNorm>(first, D, xr, blocks);
    const RowScale r1 = row_scale<kLayerNorm>(second, D, xr + D, blocks);
    const float* __restrict next = t + kGroup < groups_end ? xr + kGroup * D : nullptr;
    // the group after next, or the odd last row (up to kGroup rows)
    const float* ahead = xr + 2 * kGroup * D;
    const int64_t ahead_rows = std::clamp<int64_t>(t1 - (t + 2 * kGroup), 0, kGroup);
    if (next) first.start(next), second.start(next + D);
    // Local copies for the loop: objects whose address escapes (start, finish)
    // stay in memory, while copies used only through the inlined add() stay in
    // registers.
    Stats acc0 = first, acc1 = second;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t i = 64 * b;
      for (int64_t r = 0; r < ahead_rows; ++r)
        for (int k = 0; k < 4; ++k) _mm_prefetch(reinterpret_cast<const char*>(ahead + r * D + i + 16 * k), _MM_HINT_T1);
      if (next) acc0.add(next + i), acc1.add(next + D + i);
      for (int k = 0; k < 4; ++k) {
        const int64_t j = i + 16 * k;
        const __m512 g = _mm512_loadu_ps(gamma + j);
        const __m512 bt = kLayerNorm ? _mm512_loadu_ps(beta + j) : _mm512_setzero_ps();
        write_vector<kLayerNorm>(r0, xr + j, g, bt, yr + j);
        write_vector<kLayerNorm>(r1, xr + D + j, g, bt, yr + D + j);
      }
    }
    first = acc0, second = acc1;
  }
  if (groups_end < t1)
    fused_row(kLayerNorm ? Kind::layernorm : Kind::rmsnorm, D, x + groups_end * D, gamma, beta, y + groups_end * D,
              nullptr);
}
#endif

// The next row is prefetched in equal slices across this row's passes.
void fused_row(Kind kind, int64_t D, const float* __restrict x, const float* __restrict gamma,
               const float* __restrict beta, float* __restrict y, const float* next) {
  if (kind == Kind::layernorm) {
#ifdef __AVX512F__
    if (D >= 64) {
      const int64_t half = (D / 2) & ~int64_t{15};
      const Moments mo = row_moments(D, x, next, half);
      const Normalization n = centred(mo.mean, static_cast<float>(mo.m2 / D));
      write_normalized<true>(D, x, n.shift, n.scale, gamma, beta, y, next, half, n.shift_lo);
      return;
    }
#endif
    const int64_t third = (D / 3) & ~int64_t{15};
    // The mean around the row's first value, in double: x - x[0] is exact for x
    // near it, so a mean far from zero next to the spread (offset 1000, spread 0.01)
    // keeps the digits a float mean of raw values loses (found by the x86-64-v3
    // build, where this loop runs for every d_model).
    const float x0 = x[0];
    const double mean = x0 + static_cast<double>(row_reduce<false>(D, x, x0, next, third)) / static_cast<double>(D);
    const float shift = static_cast<float>(mean);
    // Two-pass variance from the cached row: no cancellation as in E[x^2] - mean^2.
    // Around the float shift, whose distance to the mean (under an ulp of it) adds
    // its square to the variance, far below its float resolution.
    const float var = row_reduce<true>(D, x, shift, next ? next + third : nullptr, third) / D;
    const Normalization n = centred(mean, var);
    write_normalized<true>(D, x, n.shift, n.scale, gamma, beta, y, next, 2 * third, n.shift_lo);
  } else {
    const int64_t half = (D / 2) & ~int64_t{15};
    const Normalization n = uncentred(row_reduce<true>(D, x, 0.f, next, half) / D);
    write_normalized<false>(D, x, n.shift, n.scale, gamma, beta, y, next, half);
  }
}

// The primitives of the unfused level. Each is one parallel pass over memory.
void row_mean(int64_t T, int64_t D, const float* in, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t) {
    float s = 0;
    const float* r = in + t * D;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < D; ++i) s += r[i];
    out[t] = s / D;
  }
}
void sub_row_scalar(int64_t T, int64_t D, const float* a, const float* s, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t)
#pragma omp simd
    for (int64_t i = 0; i < D; ++i) out[t * D + i] = a[t * D + i] - s[t];
}
void mul_row_scalar(int64_t T, int64_t D, const float* a, const float* s, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t)
#pragma omp simd
    for (int64_t i = 0; i < D; ++i) out[t * D + i] = a[t * D + i] * s[t];
}
void square(int64_t n, const float* a, float* out) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * a[i];
}
void add_scalar(int64_t n, const float* a, float s, float* out) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + s;
}
void rsqrt(int64_t n, const float* a, float* out) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) out[i] = 1.0f / std::sqrt(a[i]);
}
void mul_broadcast_col(int64_t T, int64_t D, const float* a, const float* v, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t)
#pragma omp simd
    for (int64_t i = 0; i < D; ++i) out[t * D + i] = a[t * D + i] * v[i];
}
void add_broadcast_col(int64_t T, int64_t D, const float* a, const float* v, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t)
#pragma omp simd
    for (int64_t i = 0; i < D; ++i) out[t * D + i] = a[t * D + i] + v[i];
}

}  // namespace

void cpu_fused(Kind kind, Dims d, const float* x, const float* gamma, const float* beta, float* y) {
  const int64_t D = d.d_model;
  const int64_t T = d.tokens;
#ifdef __AVX512F__
  if (D % 64 == 0 && reinterpret_cast<uintptr_t>(y) % 64 == 0) {
#pragma omp parallel
    {
      // contiguous rows per thread (as schedule(static) would give them)
      const int64_t n = omp_get_num_threads(), id = omp_get_thread_num();
      const int64_t t0 = T * id / n, t1 = T * (id + 1) / n;
      if (t0 < t1) {
        if (kind == Kind::layernorm)
          fused_rows_pipelined<true>(D, x, gamma, beta, y, t0, t1);
        else
          fused_rows_pipelined<false>(D, x, gamma, beta, y, t0, t1);
      }
      _mm_sfence();  // each thread's streaming stores, before the region's barrier
    }
    return;
  }
#endif
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < T; ++t) fused_row(kind, D, x + t * D, gamma, beta, y + t * D, t + 1 < T ? x + (t + 1) * D : nullptr);
#ifdef __AVX512F__
  _mm_sfence();  // streaming stores are weakly ordered: make y visible before returning
#endif
}

size_t cpu_unfused_scratch_floats(Dims d) { return 2 * d.tokens * d.d_model + 4 * d.tokens; }

void cpu_unfused(Kind kind, Dims d, const float* x, const float* gamma, const float* beta, float* y,
                 float* scratch) {
  const int64_t T = d.tokens, D = d.d_model, TD = T * D;
  float* a = scratch;        // TD
  float* b = a + TD;         // TD
  float* stat = b + TD;      // T: mean or mean square
  float* var = stat + T;     // T
  float* var_eps = var + T;  // T
  float* rstd = var_eps + T; // T
  // Each line below is one pass of unfused_passes(), in the same order.
  if (kind == Kind::layernorm) {
    row_mean(T, D, x, stat);
    sub_row_scalar(T, D, x, stat, a);
    square(TD, a, b);
    row_mean(T, D, b, var);
    add_scalar(T, var, kEps, var_eps);
    rsqrt(T, var_eps, rstd);
    mul_row_scalar(T, D, a, rstd, b);
    mul_broadcast_col(T, D, b, gamma, a);
    add_broadcast_col(T, D, a, beta, y);
  } else {
    square(TD, x, a);
    row_mean(T, D, a, stat);
    add_scalar(T, stat, kEps, var_eps);
    rsqrt(T, var_eps, rstd);
    mul_row_scalar(T, D, x, rstd, b);
    mul_broadcast_col(T, D, b, gamma, y);
  }
}

namespace {

class CpuNormWorkload final : public Workload {
 public:
  explicit CpuNormWorkload(const RunSpec& spec)
      : kind_(parse_kind(spec.variant)),
        fused_(spec.impl == "fused"),
        dims_(dims_of(spec.shape)),
        x_(dims_.tokens * dims_.d_model),
        y_(x_.size()),
        gamma_(dims_.d_model),
        beta_(dims_.d_model),
        scratch_(fused_ ? 0 : cpu_unfused_scratch_floats(dims_)) {
    fill_inputs(1, x_, gamma_, beta_);
  }

  void run() override {
    if (fused_)
      cpu_fused(kind_, dims_, x_.data(), gamma_.data(), beta_.data(), y_.data());
    else
      cpu_unfused(kind_, dims_, x_.data(), gamma_.data(), beta_.data(), y_.data(), scratch_.data());
  }

  Validation validate(uint64_t seed) override {
    fill_inputs(seed, x_, gamma_, beta_);
    return run_against_reference(*this, y_,
                                 [&](std::span<double> ref) { reference(kind_, dims_, x_, gamma_, beta_, ref); });
  }

 private:
  Kind kind_;
  bool fused_;
  Dims dims_;
  HostVector<float> x_, y_, gamma_, beta_, scratch_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuNormWorkload>(spec); }

}  // namespace lmroof::norm
