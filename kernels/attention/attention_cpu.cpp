// CPU kernels of the attention pair.
//
//   projections  activations [rows, in] times weights [out, in]ᵀ. Prefill: one GEMM for
//                q|k|v, OpenBLAS cblas_sgemm (its own OpenMP threads). Decode: one each
//                for q, k and v (M = batch), so that k and v land as contiguous
//                [batch, kv_heads, head_dim] rows that are copied into the cache; up to
//                kStreamRows rows they stream the weights once, because OpenBLAS
//                0.3.21's sgemm packs the weight panels at small M and so moves them ~3
//                times (measured 2-3x slower than a stream at M = 1); beyond that, sgemm.
//                Up to 4 rows: dot products along K (gemm_stream); 5 to 16 rows: the
//                rows of x in the lanes of one vector and each weight broadcast
//                (gemm_broadcast), which needs no horizontal sums and one load per
//                eight FMAs.
//   cache        [B, Hkv, n, dh]: prefill writes all n positions (a relayout of k and v),
//                decode writes position n − 1.
//   attention    prefill: per (sequence, query head, 64-query tile) task over OpenMP
//                threads (latest tiles first): S = q kᵀ/√dh over keys 0 .. end of tile (a
//                single-threaded sgemm reading the cache), causal softmax in place,
//                O = P v (sgemm), rows scaled by 1/sum; the score tile stays in L2.
//                decode: decode's grouped CPU kernel (decode::cpu_decode) over the cache.
#include <cblas.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "attention/attention.h"
#include "common/fast_math.h"
#include "common/host_buffer.h"
#include "common/cpu_validation.h"
#include "common/host_data.h"

namespace lmroof::attention {

namespace {

constexpr int64_t kQueryTile = 64;

// c[M, N] = a[M, K] · w[N, K]ᵀ, row-major with leading dimensions.
void gemm_nt(int64_t M, int64_t N, int64_t K, const float* a, int64_t lda, const float* w, int64_t ldw, float* c,
             int64_t ldc, float alpha = 1.0f) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K),
              alpha, a, static_cast<int>(lda), w, static_cast<int>(ldw), 0.0f, c, static_cast<int>(ldc));
}

// Causal attention of every sequence's n tokens: q rows [B·n, ldq] (head h at column
// h·dh), K and V from the cache [B, Hkv, n, dh]; o [B·n, Dq]. `scores` holds
// kQueryTile × n floats per thread.
void causal_attention(const Dims& d, const float* q, int64_t ldq, const float* kc, const float* vc, float* o,
                      float* scores) {
  const int64_t n = d.context, Hq = d.q_heads, dh = d.head_dim, g = Hq / d.kv_heads, Dq = d.q_dim();
  const int64_t tiles = (n + kQueryTile - 1) / kQueryTile;
  const int64_t per_tile = d.batch * Hq;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t task = 0; task < tiles * per_tile; ++task) {
    const int64_t tile = tiles - 1 - task / per_tile, bh = task % per_tile;
    const int64_t b = bh / Hq, h = bh % Hq, kvh = h / g;
    const int64_t q0 = tile * kQueryTile, rows = std::min(kQueryTile, n - q0), keys = q0 + rows;
    const float* kb = kc + (b * d.kv_heads + kvh) * n * dh;
    const float* vb = vc + (b * d.kv_heads + kvh) * n * dh;
    float* s = scores + static_cast<int64_t>(omp_get_thread_num()) * kQueryTile * n;
    float inv_sum[kQueryTile];
    gemm_nt(rows, keys, dh, q + (b * n + q0) * ldq + h * dh, ldq, kb, dh, s, keys, scale);
    for (int64_t r = 0; r < rows; ++r) {
      float* __restrict row = s + r * keys;
      const int64_t visible = q0 + r + 1;  // keys 0 .. q0 + r
      float m = row[0];
      // (a comparison, not std::max: GCC 12 leaves a std::max reduction scalar, 13x slower)
#pragma omp simd reduction(max : m)
      for (int64_t j = 0; j < visible; ++j) m = row[j] > m ? row[j] : m;
      float sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < visible; ++j) {
        row[j] = fast_exp(row[j] - m);  // the polynomial: std::exp is a libm call per score
        sum += row[j];
      }
      for (int64_t j = visible; j < keys; ++j) row[j] = 0;
      inv_sum[r] = 1.0f / sum;
    }
    float* ob = o + (b * n + q0) * Dq + h * dh;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(dh),
                static_cast<int>(keys), 1.0f, s, static_cast<int>(keys), vb, static_cast<int>(dh), 0.0f, ob,
                static_cast<int>(Dq));
    for (int64_t r = 0; r < rows; ++r) {
      float* __restrict orow = ob + r * Dq;
      const float f = inv_sum[r];
#pragma omp simd
      for (int64_t e = 0; e < dh; ++e) orow[e] *= f;
    }
  }
}

constexpr int64_t kStreamRows = 16;

// y[m, o] = Σ_k x[m, k] · w[o, k] for m < M <= kStreamRows: each weight row is read
// from memory once. A task takes four weight rows and, four rows of x at a time, keeps
// the 4 × 4 dot products in registers (eight loads per sixteen multiply-adds), so
// that even at M = 16 (~8 FLOP per weight byte, about a small CPU's ridge) the
// arithmetic keeps up with the stream. Rows past N or M alias row 0 and are dropped.
void gemm_stream(int64_t M, int64_t N, int64_t K, const float* x, const float* w, float* y, int64_t ldy) {
  const int64_t blocks = (N + 3) / 4;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t o0 = blk * 4, rows = std::min<int64_t>(4, N - o0);
    const float* __restrict w0 = w + o0 * K;
    const float* __restrict w1 = rows > 1 ? w0 + K : w0;
    const float* __restrict w2 = rows > 2 ? w0 + 2 * K : w0;
    const float* __restrict w3 = rows > 3 ? w0 + 3 * K : w0;
    // One token: four dot products, not sixteen of which four are kept (the 4 x 4
    // block's FMAs kept the stream at 38-43 GB/s where this loop reaches 52-53 GB/s,
    // 6144 x 2048 weights, development machine, alternated in one sitting).
    if (M == 1) {
      float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
      for (int64_t k = 0; k < K; ++k) {
        const float u = x[k];
        a0 += u * w0[k], a1 += u * w1[k], a2 += u * w2[k], a3 += u * w3[k];
      }
      const float sums[4] = {a0, a1, a2, a3};
      for (int64_t r = 0; r < rows; ++r) y[o0 + r] = sums[r];
      continue;
    }
    for (int64_t m0 = 0; m0 < M; m0 += 4) {
      const int64_t ms = std::min<int64_t>(4, M - m0);
      const float* __restrict x0 = x + m0 * K;
      const float* __restrict x1 = ms > 1 ? x0 + K : x0;
      const float* __restrict x2 = ms > 2 ? x0 + 2 * K : x0;
      const float* __restrict x3 = ms > 3 ? x0 + 3 * K : x0;
      float a00 = 0, a01 = 0, a02 = 0, a03 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0;
      float a20 = 0, a21 = 0, a22 = 0, a23 = 0, a30 = 0, a31 = 0, a32 = 0, a33 = 0;
#pragma omp simd reduction(+ : a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33)
      for (int64_t k = 0; k < K; ++k) {
        const float v0 = w0[k], v1 = w1[k], v2 = w2[k], v3 = w3[k];
        const float u0 = x0[k], u1 = x1[k], u2 = x2[k], u3 = x3[k];
        a00 += u0 * v0, a01 += u0 * v1, a02 += u0 * v2, a03 += u0 * v3;
        a10 += u1 * v0, a11 += u1 * v1, a12 += u1 * v2, a13 += u1 * v3;
        a20 += u2 * v0, a21 += u2 * v1, a22 += u2 * v2, a23 += u2 * v3;
        a30 += u3 * v0, a31 += u3 * v1, a32 += u3 * v2, a33 += u3 * v3;
      }
      const float sums[4][4] = {{a00, a01, a02, a03}, {a10, a11, a12, a13}, {a20, a21, a22, a23}, {a30, a31, a32, a33}};
      for (int64_t i = 0; i < ms; ++i)
        for (int64_t r = 0; r < rows; ++r) y[(m0 + i) * ldy + o0 + r] = sums[i][r];
    }
  }
}

// One vector of Lanes floats: the rows of x that gemm_broadcast keeps in its lanes.
template <int Lanes>
struct RowLanes;
#ifdef __AVX512F__
template <>
struct RowLanes<16> {
  using V = __m512;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_load_ps(p); }
  static V fma_broadcast(V x, float w, V acc) { return _mm512_fmadd_ps(x, _mm512_set1_ps(w), acc); }
  static void store(float* p, V v) { _mm512_store_ps(p, v); }
};
#endif
#if defined(__AVX2__) && defined(__FMA__)
template <>
struct RowLanes<8> {
  using V = __m256;
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_load_ps(p); }
  static V fma_broadcast(V x, float w, V acc) { return _mm256_fmadd_ps(x, _mm256_set1_ps(w), acc); }
  static void store(float* p, V v) { _mm256_store_ps(p, v); }
};
#endif

// y[m, o] = Σ_k x[m, k] · w[o, k] for m < M <= Lanes, each weight row read from memory
// once. x is packed transposed into `packed` (K × Lanes floats, 64-byte aligned: column
// k of x in one vector, rows past M zero); a task takes kBroadcastRows weight rows
// and, for each k, multiplies that vector by each row's w[o, k] broadcast. The
// accumulators hold y[0 .. Lanes, o] and need no horizontal sums, and there is one
// vector load per eight FMAs where gemm_stream's 4 × 4 blocks need eight per sixteen
// and re-read x from L2 for every four weight rows. Projections of the attention
// pair's decode (d_model 2048, GQA weights 6.3 M + 4.2 M floats, 2 threads,
// development machine, alternated in one sitting): at M = 16, 177–194 GFLOP/s
// against 99–118 for gemm_stream; at M = 8 with 8 lanes, 100–121 against 84–89.
// More than 8 weight rows per task (16, 24) was 2–4x slower: as many concurrent
// streams from DRAM, and accumulators past the register file.
constexpr int64_t kBroadcastRows = 8;

template <int Lanes>
void gemm_broadcast(int64_t M, int64_t N, int64_t K, const float* x, const float* w, float* y, int64_t ldy,
                    float* __restrict packed) {
  using L = RowLanes<Lanes>;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t m = 0; m < Lanes; ++m) packed[k * Lanes + m] = m < M ? x[m * K + k] : 0.0f;
    const int64_t blocks = (N + kBroadcastRows - 1) / kBroadcastRows;
#pragma omp for schedule(static)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const int64_t o0 = blk * kBroadcastRows, rows = std::min(kBroadcastRows, N - o0);
      const float* wr[kBroadcastRows];  // rows past N alias the block's last row and are dropped
      for (int64_t r = 0; r < kBroadcastRows; ++r) wr[r] = w + (o0 + std::min(r, rows - 1)) * K;
      typename L::V acc[kBroadcastRows];
      for (auto& a : acc) a = L::zero();
      for (int64_t k = 0; k < K; ++k) {
        const typename L::V column = L::load(packed + k * Lanes);
        for (int64_t r = 0; r < kBroadcastRows; ++r) acc[r] = L::fma_broadcast(column, wr[r][k], acc[r]);
      }
      alignas(64) float out[kBroadcastRows][Lanes];
      for (int64_t r = 0; r < kBroadcastRows; ++r) L::store(out[r], acc[r]);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t r = 0; r < rows; ++r) y[m * ldy + o0 + r] = out[r][m];
    }
  }
}

// Floats of the packed x that project() needs for inputs of K elements.
int64_t project_scratch_floats(int64_t K) { return K * kStreamRows; }

// The decode projections: a stream of the weights at small M, else sgemm.
void project(int64_t M, int64_t N, int64_t K, const float* x, const float* w, float* y, int64_t ldy,
             float* scratch) {
#ifdef __AVX512F__
  if (M > 8 && M <= 16) return gemm_broadcast<16>(M, N, K, x, w, y, ldy, scratch);
#endif
#if defined(__AVX2__) && defined(__FMA__)
  if (M > 4 && M <= 8) return gemm_broadcast<8>(M, N, K, x, w, y, ldy, scratch);
#endif
  (void)scratch;
  if (M <= kStreamRows)
    gemm_stream(M, N, K, x, w, y, ldy);
  else
    gemm_nt(M, N, K, x, K, w, K, y, ldy);
}

class CpuAttentionWorkload final : public Workload {
 public:
  explicit CpuAttentionWorkload(const RunSpec& spec)
      : phase_(parse_phase(spec.impl)), d_(dims_of(spec.shape)), host_(phase_, d_) {
    const int64_t rows = phase_ == Phase::prefill ? d_.batch * d_.context : d_.batch;
    qkv_.resize(rows * d_.qkv_dim());
    o_.resize(rows * d_.q_dim());
    y_.resize(rows * d_.d_model);
    if (phase_ == Phase::prefill) {
      k_cache_.resize(d_.batch * d_.kv_heads * d_.context * d_.head_dim);
      v_cache_.resize(k_cache_.size());
      scores_.resize(static_cast<size_t>(omp_get_max_threads()) * kQueryTile * d_.context);
    } else {
      partials_.resize(decode::cpu_partial_floats(decode::Impl::grouped, d_.decode_dims()));
      packed_x_.resize(project_scratch_floats(std::max(d_.d_model, d_.q_dim())));
    }
    host_.randomize(1);
  }

  void run() override {
    if (phase_ == Phase::prefill)
      prefill();
    else
      decode_step();
  }

  Validation validate(uint64_t seed) override {
    host_.randomize(seed);
    for (auto* buf : {&qkv_, &o_, &k_cache_, &v_cache_, &partials_}) poison(*buf);
    return run_against_reference(
        *this, y_, [&](std::span<double> ref) { reference(phase_, d_, host_, ref); }, /*composite=*/true);
  }

 private:
  void prefill() {
    const int64_t T = d_.batch * d_.context, n = d_.context, dh = d_.head_dim, Hkv = d_.kv_heads;
    const int64_t ld = d_.qkv_dim(), Dq = d_.q_dim(), Dkv = d_.kv_dim();
    gemm_nt(T, ld, d_.d_model, host_.x.data(), d_.d_model, host_.w_qkv.data(), d_.d_model, qkv_.data(), ld);
    // k and v of every token into the cache layout
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t b = t / n, pos = t % n;
      const float* row = qkv_.data() + t * ld;
      for (int64_t kvh = 0; kvh < Hkv; ++kvh) {
        const int64_t dst = ((b * Hkv + kvh) * n + pos) * dh;
        std::memcpy(k_cache_.data() + dst, row + Dq + kvh * dh, dh * sizeof(float));
        std::memcpy(v_cache_.data() + dst, row + Dq + Dkv + kvh * dh, dh * sizeof(float));
      }
    }
    causal_attention(d_, qkv_.data(), ld, k_cache_.data(), v_cache_.data(), o_.data(), scores_.data());
    gemm_nt(T, d_.d_model, Dq, o_.data(), Dq, host_.w_o.data(), Dq, y_.data(), d_.d_model);
  }

  void decode_step() {
    const int64_t B = d_.batch, n = d_.context, dh = d_.head_dim, Hkv = d_.kv_heads, dm = d_.d_model;
    const int64_t Dq = d_.q_dim(), Dkv = d_.kv_dim();
    float* q = qkv_.data();
    float* k = q + B * Dq;
    float* v = k + B * Dkv;
    const float* w = host_.w_qkv.data();
    project(B, Dq, dm, host_.x.data(), w, q, Dq, packed_x_.data());
    project(B, Dkv, dm, host_.x.data(), w + Dq * dm, k, Dkv, packed_x_.data());
    project(B, Dkv, dm, host_.x.data(), w + (Dq + Dkv) * dm, v, Dkv, packed_x_.data());
    for (int64_t r = 0; r < B * Hkv; ++r) {  // row (b, kv head) -> cache position n - 1
      const int64_t dst = (r * n + n - 1) * dh;
      std::memcpy(host_.k_cache.data() + dst, k + r * dh, dh * sizeof(float));
      std::memcpy(host_.v_cache.data() + dst, v + r * dh, dh * sizeof(float));
    }
    decode::cpu_decode(decode::Impl::grouped, d_.decode_dims(), q, host_.k_cache.data(), host_.v_cache.data(),
                       o_.data(), partials_.data());
    project(B, dm, Dq, o_.data(), host_.w_o.data(), y_.data(), dm, packed_x_.data());
  }

  Phase phase_;
  Dims d_;
  HostLayer host_;  // weights, x, and the decode cache (its last position is written by run())
  HostVector<float> qkv_, o_, y_, k_cache_, v_cache_, scores_, partials_, packed_x_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuAttentionWorkload>(spec); }

}  // namespace lmroof::attention
