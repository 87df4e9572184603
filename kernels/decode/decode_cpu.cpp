// CPU kernels for the decode pair. Both levels run the same flash-decoding loop
// (scores for a block of positions, online softmax with a running max and sum per
// query head, then P·V) on one work item: a kv head's K/V rows and some query
// heads. "naive" gives each work item one query head, so the g heads of a group
// each stream their kv head's K and V; "grouped" gives it the whole group, so each
// K and V row is loaded once and used by all g heads while it sits in L1.
// OpenMP runs the work items in parallel; when there are too few of them the
// context is split (context_splits) and the pieces combined at the end.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include <omp.h>

#include "common/fast_math.h"
#include "common/host_buffer.h"
#include "common/cpu_validation.h"
#include "common/host_data.h"
#include "decode/decode.h"
#include "decode/decode_simd.h"

namespace lmroof::decode {

namespace {

using namespace simd;

constexpr int64_t kBlock = 256;  // positions scored before one softmax update (256 streamed K/V better than 64 on Zen 4)
// The four-row loops below interleave four rows, which the per-instruction stride
// prefetcher does not follow; on memory-bound runs (MHA) that halved the streaming
// rate on the development machine. An explicit prefetch this many rows ahead
// restores it.
constexpr int64_t kAhead = 8;

// Per-thread working set of one work item: n query heads.
struct Scratch {
  std::vector<float> qs, acc, score, m, l;
  Scratch(int64_t n, int64_t dh) : qs(n * dh), acc(n * dh), score(n * kBlock), m(n), l(n) {}
};

// Attends n query heads (rows of q, contiguous) over positions [lo, hi) of one kv
// head's K and V rows. Leaves in w the unnormalised output acc (n × dh), the running
// max m and the running sum of exponentials l per head; an empty range leaves
// acc = 0, m = -inf, l = 0.
void attend(int64_t n, int64_t dh, float scale, const float* __restrict q, const float* __restrict K,
            const float* __restrict V, int64_t lo, int64_t hi, Scratch& w) {
  float* __restrict qs = w.qs.data();
  float* __restrict acc = w.acc.data();
  float* __restrict score = w.score.data();
  float* __restrict m = w.m.data();
  float* __restrict l = w.l.data();
#pragma omp simd
  for (int64_t i = 0; i < n * dh; ++i) {
    qs[i] = q[i] * scale;
    acc[i] = 0;
  }
  for (int64_t i = 0; i < n; ++i) {
    m[i] = -std::numeric_limits<float>::infinity();
    l[i] = 0;
  }
  for (int64_t j0 = lo; j0 < hi; j0 += kBlock) {
    const int64_t nb = std::min(kBlock, hi - j0);
    // Scores, four positions at a time: the four K rows are loaded once and dotted
    // with every query head of the item while they sit in L1 (four independent sums
    // per head, one load of q per four products).
    int64_t j = 0;
    for (; j + 4 <= nb; j += 4) {
      const float* __restrict k0 = K + (j0 + j) * dh;
      const float* __restrict k1 = k0 + dh;
      const float* __restrict k2 = k1 + dh;
      const float* __restrict k3 = k2 + dh;
      if (j0 + j + 4 + kAhead <= hi)
        for (int64_t x = 0; x < 4 * dh; x += 16) __builtin_prefetch(k0 + kAhead * dh + x);
      for (int64_t i = 0; i < n; ++i) {
        const float* __restrict qi = qs + i * dh;
        float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#pragma omp simd reduction(+ : d0, d1, d2, d3)
        for (int64_t x = 0; x < dh; ++x) {
          const float qx = qi[x];
          d0 += qx * k0[x];
          d1 += qx * k1[x];
          d2 += qx * k2[x];
          d3 += qx * k3[x];
        }
        float* si = score + i * kBlock + j;
        si[0] = d0;
        si[1] = d1;
        si[2] = d2;
        si[3] = d3;
      }
    }
    for (; j < nb; ++j) {
      const float* __restrict kr = K + (j0 + j) * dh;
      for (int64_t i = 0; i < n; ++i) {
        const float* __restrict qi = qs + i * dh;
        float dot = 0;
#pragma omp simd reduction(+ : dot)
        for (int64_t x = 0; x < dh; ++x) dot += qi[x] * kr[x];
        score[i * kBlock + j] = dot;
      }
    }
    // Online softmax: raise the running max, rescale what was accumulated under the old one.
    for (int64_t i = 0; i < n; ++i) {
      float* __restrict si = score + i * kBlock;
      float mx = m[i];
      // (vectorized: a comparison, not std::max, which GCC 12 leaves scalar; the
      // polynomial exp, not std::exp, a libm call per score)
#pragma omp simd reduction(max : mx)
      for (int64_t j = 0; j < nb; ++j) mx = si[j] > mx ? si[j] : mx;
      const float corr = std::exp(m[i] - mx);  // 0 on the first block (m = -inf)
      if (corr != 1.0f) {
        l[i] *= corr;
        float* __restrict ai = acc + i * dh;
#pragma omp simd
        for (int64_t x = 0; x < dh; ++x) ai[x] *= corr;
      }
      float sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < nb; ++j) {
        si[j] = fast_exp(si[j] - mx);
        sum += si[j];
      }
      l[i] += sum;
      m[i] = mx;
    }
    // P·V, four positions at a time: the four V rows are loaded once and added into
    // every query head's output (one load and store of the output per four rows).
    for (j = 0; j + 4 <= nb; j += 4) {
      const float* __restrict v0 = V + (j0 + j) * dh;
      const float* __restrict v1 = v0 + dh;
      const float* __restrict v2 = v1 + dh;
      const float* __restrict v3 = v2 + dh;
      if (j0 + j + 4 + kAhead <= hi)
        for (int64_t x = 0; x < 4 * dh; x += 16) __builtin_prefetch(v0 + kAhead * dh + x);
      for (int64_t i = 0; i < n; ++i) {
        const float* si = score + i * kBlock + j;
        const float p0 = si[0], p1 = si[1], p2 = si[2], p3 = si[3];
        float* __restrict ai = acc + i * dh;
#pragma omp simd
        for (int64_t x = 0; x < dh; ++x) ai[x] += p0 * v0[x] + p1 * v1[x] + p2 * v2[x] + p3 * v3[x];
      }
    }
    for (; j < nb; ++j) {
      const float* __restrict vr = V + (j0 + j) * dh;
      for (int64_t i = 0; i < n; ++i) {
        const float p = score[i * kBlock + j];
        float* __restrict ai = acc + i * dh;
#pragma omp simd
        for (int64_t x = 0; x < dh; ++x) ai[x] += p * vr[x];
      }
    }
  }
}

// ---- the fast path: register-tiled, vectorized (grouped level) ----------------
//
// Written with GCC/Clang vector extensions (decode_simd.h), so one source serves
// AVX-512, AVX2 and other hosts.
// The group's queries sit transposed in Qt[x][lane] (one lane per query head, padded
// to whole vectors), so a score tile is a small GEMM: each K element is broadcast
// once and multiplied into all the group's queries (no horizontal sums); softmax
// runs across the query lanes; P·V keeps a tile of 4 queries x 4 vectors of the
// output in registers while the block's V rows stream past. Groups under 4 queries
// (MHA) would waste lanes that way: attend_dot below takes them.

constexpr int kMaxLanes = 64;
// Register budget of the tiles, from the host's vector registers (decode_simd.h:
// 32 with AVX-512, 16 with AVX2). W is at most kNativeLanes (fast_attend_for), so
// one vec<W> is one register.
// With 32 registers, tuned on Zen 4: 16 lanes (groups over 8) 24 score
// accumulators and 6 heads; 8 lanes 12 and 8 heads (x 2 output vectors: each V
// vector loaded once per 8 FMAs; 4 heads x 4 vectors made the compiler fold the V
// loads into the FMAs, 4 loads per V vector, and ran GQA's P·V 1.3x slower).
// With 16, whatever fits: a tile's accumulators plus the operands it holds.

// Keys per score tile (score_tile) of QV query vectors: KT x QV accumulators, the
// QV query vectors and one broadcast of K. The 32-register choice is the tuned one
// above (24, 12, 6 keys at 16 lanes for 1, 2, 4 query vectors; 12 at 8 lanes);
// with 16 registers 12, 6, 2 and 1 keys for 1, 2, 4 and 8 query vectors (the last
// one register over: the compiler then reads the queries from L1 as FMA operands).
template <int W, int QV>
constexpr int score_keys() {
  const int tuned = (W == 16 ? 24 : 12) / QV;
  const int fit = (kVectorRegisters - QV - 1) / QV;
  return std::max(1, std::min(tuned, fit));
}
// Query heads per P·V tile (pv_tile), times pv_vectors(heads) output vectors. With
// 16 registers 8 heads make 8 x 1 tiles: in a loop over a block's rows on Zen 3
// (one thread, V in L2) they ran 72-78 GFLOP/s against 61-65 for 6 x 2 tiles and a
// 2 x 4 tail (and 35-40 for two 4 x 2 tiles).
template <int W>
constexpr int kPvHeads = W == 16 ? 6 : 8;

struct FastScratch {
  std::vector<float> qt, qs, st, acc, m, l, corr;
  // The first block of the item this thread runs next (null when none): attend_fast
  // prefetches it while computing on its own last block, as it does between its
  // blocks. first_prefetched: this item's first block was so prefetched (else it is
  // read front to back before its tiles).
  const float* following_k = nullptr;
  const float* following_v = nullptr;
  int64_t following_rows = 0;
  bool first_prefetched = false;
  FastScratch(int64_t lanes, int64_t dh)
      : qt(dh * lanes), qs(lanes * dh), st(kBlock * lanes), acc(lanes * dh), m(lanes), l(lanes), corr(lanes) {}
};

// Pulls a range of memory into L2 one cache line per step(), spread over a compute
// loop: the next block's K rows during this block's score tiles, its V rows during
// P·V. DRAM then streams while the core computes on the block already in cache.
struct LinePrefetcher {
  // Addresses as integers, from the range's first cache line: no pointer is formed
  // past the range, and a range that starts mid-line still covers its last line.
  uintptr_t line0 = 0;
  int64_t at = 0, bytes = 0;
  int per_step = 1;  // lines a step() of P·V issues (set from pv_passes)
  LinePrefetcher() = default;
  LinePrefetcher(const float* from, int64_t floats) {
    const uintptr_t first = reinterpret_cast<uintptr_t>(from);
    line0 = first & ~uintptr_t{63};
    bytes = floats > 0 ? static_cast<int64_t>(first - line0) + floats * static_cast<int64_t>(sizeof(float)) : 0;
  }
  [[gnu::always_inline]] void step() {
    if (at < bytes) {
      __builtin_prefetch(reinterpret_cast<const char*>(line0 + static_cast<uintptr_t>(at)), 0, 2);  // into L2 (prefetcht1)
      at += 64;
    }
  }
  int64_t lines_left() const { return at < bytes ? (bytes - at + 63) / 64 : 0; }
  void rest() {  // whatever the loop's steps did not cover
    while (at < bytes) step();
  }
};

// The K rows of the next score tile pulled into L1, one line per step(), while
// this tile computes. Tiles walk K's rows in order, so the next tile's rows are
// the KT·dh floats right after this tile's (past the block's end: the next block's
// first rows, which LinePrefetcher has brought into L2). Without it each tile's
// first touch of a line waits on L2 (or L3): in one process, alternated 30-40
// times (Zen 5 guest, batch 4, 32 query heads, head_dim 128, 2 threads), GQA with
// 4 KV heads ran 1.07-1.22x faster at contexts 128-8192 with the 16-lane pair
// tile, 1.04-1.07x with the 8-lane one, and groups of 4 (8 KV heads) 1.05-1.08x;
// groups of 16 and 32 (score_tile, whose K rows serve more queries) within 1-4%.
struct NextTileLines {
  uintptr_t from;  // an integer: no pointer is formed past K's end
  int64_t lines;
  NextTileLines(const float* tile, int64_t tile_floats)
      : from(reinterpret_cast<uintptr_t>(tile) + static_cast<uintptr_t>(tile_floats) * sizeof(float)),
        lines(tile_floats / 16) {}
  [[gnu::always_inline]] void step(int64_t line) const {
    if (line < lines) __builtin_prefetch(reinterpret_cast<const char*>(from + 64 * static_cast<uintptr_t>(line)), 0, 3);
  }
};

// Scores of KT keys (rows of K, dh apart) against the P = QV·W transposed queries.
// DH > 0 fixes head_dim at compile time: the KT rows are then one pointer plus
// constant offsets, where a runtime head_dim needs a register per row, more than
// x86-64 has (the compiler spilled them and reloaded one per FMA: 1.5x slower).
template <int W, int QV, int KT, int DH = 0>
[[gnu::always_inline]] inline void score_tile(int64_t dh_runtime, const float* __restrict qt, const float* __restrict k,
                                              float* __restrict st, LinePrefetcher& next) {
  const int64_t dh = DH > 0 ? DH : dh_runtime;
  constexpr int P = QV * W;
  vec<W> acc[KT][QV];
  for (int t = 0; t < KT; ++t)
    for (int v = 0; v < QV; ++v) acc[t][v] = vec<W>{};
  const NextTileLines next_tile(k, KT * dh);  // KT·dh/16 lines, one per step: up to dh of them
  for (int64_t x = 0; x < dh; ++x) {
    // KT rows of K are KT·dh/16 lines: KT/4 + 1 lines every 4 steps of x cover
    // the next block's K rows within the block's tiles, with some to spare.
    if (x % 4 == 0)
      for (int r = 0; r < KT / 4 + 1; ++r) next.step();
    next_tile.step(x);
    vec<W> qv[QV];
    for (int v = 0; v < QV; ++v) qv[v] = vload<W>(qt + x * P + v * W);
    for (int t = 0; t < KT; ++t) {
      const vec<W> kb = vsplat<W>(k[t * dh + x]);
      for (int v = 0; v < QV; ++v) acc[t][v] += kb * qv[v];
    }
  }
  for (int t = 0; t < KT; ++t)
    for (int v = 0; v < QV; ++v) vstore<W>(st + t * P + v * W, acc[t][v]);
}

// The pair tiles' shared loop: lane 2s + e of the QV·W lanes of acc[t] sums query
// s's element x + e times K row t's element x + e over x = 0, 2, 4, ... (qp: dh/2
// rows of QV·W floats). One broadcast of K's pair per row and step, and QV FMAs.
template <int W, int KT, int QV = 1>
[[gnu::always_inline]] inline void accumulate_pairs(int64_t dh, const float* __restrict qp,
                                                    const float* __restrict k, vec<W> (&acc)[KT][QV],
                                                    LinePrefetcher& next) {
  for (int t = 0; t < KT; ++t)
    for (int v = 0; v < QV; ++v) acc[t][v] = vec<W>{};
  const NextTileLines next_tile(k, KT * dh);  // KT·dh/16 lines, two per step: all of them up to KT = 16
  for (int64_t c = 0; c < dh / 2; ++c) {
    // KT rows of K are KT·dh/16 lines over dh/2 steps: one line every 8/KT steps, and some to spare
    if (c % 2 == 0)
      for (int r = 0; r < KT / 4 + 1; ++r) next.step();
    next_tile.step(2 * c);
    next_tile.step(2 * c + 1);
    vec<W> qv[QV];
    for (int v = 0; v < QV; ++v) qv[v] = vload<W>(qp + (c * QV + v) * W);
    for (int t = 0; t < KT; ++t) {
      const vec<W> kp = vsplat_pair<W>(k + t * dh + c * 2);
      for (int v = 0; v < QV; ++v) acc[t][v] += kp * qv[v];
    }
  }
}

#ifdef __AVX__
// Groups of 4 query heads on 8-lane vectors, two head_dim elements per vector: lane
// 2s + e holds query s's element x + e (qp: dh/2 vectors of 8 floats, queries past n
// zero). One broadcast of K's pair [x, x+2) (vbroadcastsd) and one FMA then cover
// the group's 4 queries for 2 elements, where the one-element tiles leave half of
// the 8 lanes idle. The pair sums are added at the end of the tile. Scores go to
// st[j][0..8) as the 8-lane softmax reads them, lanes 4..7 repeating lanes 0..3
// (finite, never used). The same idea on 16-lane vectors (groups of 8 two elements
// at a time, groups of 4 four at a time) ran slower on Zen 4 than the one-element
// 8-lane tile: its 512-bit broadcasts are not free as the 256-bit ones are (one
// thread in L2, 128-wide heads: 68% and 43% of the core's FMA peak against 90%).
template <int KT, int DH = 0>
[[gnu::always_inline]] inline void score_tile_pairs(int64_t dh_runtime, const float* __restrict qp,
                                                    const float* __restrict k, float* __restrict st,
                                                    LinePrefetcher& next) {
  vec<8> acc[KT][1];
  accumulate_pairs<8, KT>(DH > 0 ? DH : dh_runtime, qp, k, acc, next);
  for (int t = 0; t < KT; t += 2) {
    const vec<8> a = acc[t][0], b = t + 1 < KT ? acc[t + 1][0] : vec<8>{};
    // [4 sums of key t, 4 sums of key t+1] (__builtin_shufflevector: GCC 12+ and Clang)
    const vec<8> r = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14) +
                     __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
    vstore<8>(st + t * 8, __builtin_shufflevector(r, r, 0, 1, 2, 3, 0, 1, 2, 3));
    if (t + 1 < KT) vstore<8>(st + t * 8 + 8, __builtin_shufflevector(r, r, 4, 5, 6, 7, 4, 5, 6, 7));
  }
}
#endif

#ifdef __AVX__
// Groups of 5-8 query heads on 16 lanes, two head_dim elements per lane pair: lane
// 2s + e holds query s's element x + e (qp: dh/2 rows of 16 floats, queries past n
// zero), as score_tile_pairs does for 4 queries on 8 lanes. The 16 lanes are one
// zmm with AVX-512 and two ymm with AVX2.
// AVX-512: one broadcast of K's pair and one 512-bit FMA cover 8 queries for 2
// elements, where the one-element 8-lane tile runs 256-bit FMAs: half of the peak
// of a core that executes 512-bit FMAs at full width (Zen 5; Zen 4 splits them in
// two, and there this tile lost to the 8-lane one, see score_tile_pairs).
// AVX2: one broadcast (vbroadcastsd) feeds two FMAs, where the one-element tile
// (score_tile<8, 1>) loads a broadcast per FMA: 8 loads per 12 FMAs against 13,
// and cores with two vector loads per cycle (Zen 2/3, Haswell to Alder Lake) then
// have load slots to spare for the prefetches.
// Scores go to st[j][0..8) as the 8-lane softmax reads them.
template <int KT, int DH = 0>
[[gnu::always_inline]] inline void score_tile_pairs16(int64_t dh_runtime, const float* __restrict qp,
                                                      const float* __restrict k, float* __restrict st,
                                                      LinePrefetcher& next) {
  constexpr int W = std::min(16, kNativeLanes), QV = 16 / W;
  vec<W> acc[KT][QV];
  accumulate_pairs<W, KT, QV>(DH > 0 ? DH : dh_runtime, qp, k, acc, next);
  for (int t = 0; t < KT; ++t) {
    const vec<W> a = acc[t][0], b = acc[t][QV - 1];  // (QV = 1: a and b are the one zmm)
    vstore<8>(st + t * 8, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14) +
                              __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15));
  }
}
// Keys per score_tile_pairs16 where head_dim is a compile-time constant: 12 with 32
// registers (the tuned tile); with 16, the 2 x 6 accumulators, 2 query vectors and
// the broadcast that fit.
inline constexpr int kPairKeys16 = std::min(12, (kVectorRegisters - 16 / std::min(16, kNativeLanes) - 1) /
                                                    (16 / std::min(16, kNativeLanes)));
#endif

// acc[i0..i0+QT) (rows dh apart), vectors x0..x0+XV of each, += P^T[j][i] · V[j] over the block.
template <int W, int P, int QT, int XV>
[[gnu::always_inline]] inline void pv_tile(int64_t dh, int64_t nb, const float* __restrict st,
                                           const float* __restrict v, float* __restrict acc, int64_t i0,
                                           int64_t x0, LinePrefetcher& next) {
  vec<W> a[QT][XV];
  for (int i = 0; i < QT; ++i)
    for (int x = 0; x < XV; ++x) a[i][x] = vload<W>(acc + (i0 + i) * dh + x0 + x * W);
  for (int64_t j = 0; j < nb; ++j) {
    for (int r = 0; r < next.per_step; ++r) next.step();
    vec<W> vr[XV];
    for (int x = 0; x < XV; ++x) {
      vr[x] = vload<W>(v + j * dh + x0 + x * W);
      // With 16 registers GCC 12 folded the V loads of QT x 2 tiles into the FMAs (a
      // load per FMA, 12 loads per 8 FMAs for groups of 4): the empty asm keeps each
      // V vector in a register, loaded once per row for the QT heads. (One head uses
      // it once, where the folded load is the right code; AVX-512 builds as before.)
      if constexpr (kVectorRegisters < 32 && QT > 1) asm("" : "+x"(vr[x]));
    }
    for (int i = 0; i < QT; ++i) {
      const vec<W> p = vsplat<W>(st[j * P + i0 + i]);
      for (int x = 0; x < XV; ++x) a[i][x] += p * vr[x];
    }
  }
  for (int i = 0; i < QT; ++i)
    for (int x = 0; x < XV; ++x) vstore<W>(acc + (i0 + i) * dh + x0 + x * W, a[i][x]);
}

// Output vectors per P·V tile: QT x XV accumulators stay in registers, with the XV
// vectors of a V row and one broadcast of P: the largest of 4, 2, 1 that fits (with
// 32 registers 2 from 8 heads up, else 4; with 16, 4 for 1-3 heads, 2 for 4-6, 1
// for 8).
constexpr int pv_vectors(int qt) {
  for (const int xv : {4, 2})
    if (qt * xv + xv + 1 <= kVectorRegisters) return xv;
  return 1;
}

template <int W, int P, int QT>
void pv_rows(int64_t dh, int64_t nb, const float* st, const float* v, float* acc, int64_t i0, LinePrefetcher& next) {
  int64_t x0 = 0;
  constexpr int XV = pv_vectors(QT);
  for (; x0 + XV * W <= dh; x0 += XV * W) pv_tile<W, P, QT, XV>(dh, nb, st, v, acc, i0, x0, next);
  for (; x0 + W <= dh; x0 += W) pv_tile<W, P, QT, 1>(dh, nb, st, v, acc, i0, x0, next);
}

// How many times pv_heads<VW, P, Heads> reads the block's V rows (one pass per tile
// of output vectors per group of heads), so that the next block's prefetch can be
// spread evenly over its steps.
template <int VW, int Heads>
int64_t pv_passes(int64_t n, int64_t dh) {
  const auto tiles = [&](int qt) {
    const int64_t span = pv_vectors(qt) * VW;
    return dh / span + (dh % span) / VW;
  };
  int64_t passes = 0, i = 0;
  for (; i + Heads <= n; i += Heads) passes += tiles(Heads);
  if constexpr (Heads > 4)
    for (; i + 4 <= n; i += 4) passes += tiles(4);
  for (; i + 2 <= n; i += 2) passes += tiles(2);
  for (; i < n; ++i) passes += tiles(1);
  return passes;
}

// P·V for all n heads, Heads at a time, V rows read as VW-float vectors.
template <int VW, int P, int Heads>
void pv_heads(int64_t n, int64_t dh, int64_t nb, const float* st, const float* vb, float* acc,
              LinePrefetcher& next) {
  int64_t i = 0;
  for (; i + Heads <= n; i += Heads) pv_rows<VW, P, Heads>(dh, nb, st, vb, acc, i, next);
  if constexpr (Heads > 4)
    for (; i + 4 <= n; i += 4) pv_rows<VW, P, 4>(dh, nb, st, vb, acc, i, next);
  for (; i + 2 <= n; i += 2) pv_rows<VW, P, 2>(dh, nb, st, vb, acc, i, next);
  for (; i < n; ++i) pv_rows<VW, P, 1>(dh, nb, st, vb, acc, i, next);
}

#ifdef __AVX512F__
// The online-softmax step of 8 query lanes over nb positions of st (rows of 8
// floats, one per position), on 16-lane vectors: positions j and j+1 are adjacent
// rows, so one vector covers two of them and the exponentials take half the
// instructions of the 8-lane loop (the softmax was about a tenth of a GQA step's
// samples in a profile, Zen 5 guest). Leaves exp(s - new max) in st, raises m, adds
// to l, and returns exp(old max - new max), the factor for what was accumulated.
[[gnu::always_inline]] inline vec<8> softmax_rows8_by_two(float* __restrict st, int64_t nb, vec<8>& m, vec<8>& l) {
  const auto low = [](vec<16> v) { return __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7); };
  const auto high = [](vec<16> v) { return __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15); };
  vec<16> max2 = vsplat<16>(-std::numeric_limits<float>::infinity());
  int64_t j = 0;
  for (; j + 2 <= nb; j += 2) max2 = vmax<16>(max2, vload<16>(st + j * 8));
  vec<8> mx = vmax<8>(m, vmax<8>(low(max2), high(max2)));
  for (; j < nb; ++j) mx = vmax<8>(mx, vload<8>(st + j * 8));
  const vec<8> corr = vexp<8>(m - mx);
  const vec<16> mx2 = __builtin_shufflevector(mx, mx, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
  vec<16> sum2{};
  for (j = 0; j + 2 <= nb; j += 2) {
    const vec<16> p = vexp<16>(vload<16>(st + j * 8) - mx2);
    vstore<16>(st + j * 8, p);
    sum2 += p;
  }
  vec<8> sum = low(sum2) + high(sum2);
  for (; j < nb; ++j) {
    const vec<8> p = vexp<8>(vload<8>(st + j * 8) - mx);
    vstore<8>(st + j * 8, p);
    sum += p;
  }
  l = l * corr + sum;
  m = mx;
  return corr;
}
#endif

// Same contract as attend() (acc, m, l of the n query heads over [lo, hi)), for
// head_dim a multiple of W and 4 <= n <= QV·W.
// kPairs (8 lanes, AVX): the scores come from score_tile_pairs (groups of at most
// 4) or, with kPairLanes 16 (AVX-512), score_tile_pairs16 (groups of at most 8).
template <int W, int QV, bool kPairs = false, int kPairLanes = 8>
void attend_fast(int64_t n, int64_t dh, float scale, const float* __restrict q, const float* __restrict K,
                 const float* __restrict V, int64_t lo, int64_t hi, FastScratch& w) {
  constexpr int P = QV * W;
  static_assert(!kPairs || (W == 8 && QV == 1));
  static_assert(kPairLanes == 8 || kPairLanes == 16);
  float* __restrict qt = w.qt.data();
  float* __restrict st = w.st.data();
  float* __restrict acc = w.acc.data();
  if constexpr (!kPairs) {
    for (int64_t x = 0; x < dh; ++x)
      for (int64_t i = 0; i < P; ++i) qt[x * P + i] = i < n ? q[i * dh + x] * scale : 0.0f;
  } else {
    for (int64_t c = 0; c < dh / 2; ++c)
      for (int64_t lane = 0; lane < kPairLanes; ++lane) {
        const int64_t i = lane / 2, x = 2 * c + lane % 2;
        qt[c * kPairLanes + lane] = i < n ? q[i * dh + x] * scale : 0.0f;
      }
  }
  std::fill(acc, acc + n * dh, 0.0f);
  vec<W> m[QV], l[QV];
  for (int v = 0; v < QV; ++v) m[v] = vsplat<W>(-std::numeric_limits<float>::infinity()), l[v] = vec<W>{};

  for (int64_t j0 = lo; j0 < hi; j0 += kBlock) {
    const int64_t nb = std::min(kBlock, hi - j0);
    const float* __restrict kb = K + j0 * dh;
    const float* __restrict vb = V + j0 * dh;
    // A thread's first block is read front to back, one load per cache line: the
    // sequential stream the hardware prefetchers follow at full speed (the score
    // tiles read 12 rows at once, a pattern they follow poorly from DRAM). Every
    // later block was prefetched into L2 while the block before it was computed
    // on: its K rows during the score tiles, its V rows during P·V, each spread
    // over its loop, so that DRAM streams while the core computes. Measured A/B
    // on the development machine (Zen 4 VM, GQA at context 4096 from DRAM):
    // 2.75 ms against 3.00-3.07 ms for a front-to-back read of every block before
    // its tiles, and 1.95-2.04 ms once P·V's share was spread over all its steps
    // (docs/cost-model.md, "How close the CPU kernels get").
    if (j0 == lo && !w.first_prefetched) {
      float touched = 0;
      for (const float* __restrict rows : {kb, vb})
        for (int64_t r = 0; r < nb; ++r)
          for (int64_t x = 0; x < dh; x += 16) touched += rows[r * dh + x];
      asm volatile("" : : "x"(touched));  // the loads are the point: keep them
    }
    const int64_t next_rows = std::min(kBlock, std::max<int64_t>(0, hi - j0 - kBlock));
    LinePrefetcher next_k(kb + nb * dh, next_rows * dh), next_v(vb + nb * dh, next_rows * dh), none;
    if (j0 + kBlock >= hi && w.following_k) {  // the last block: the next item's first
      next_k = LinePrefetcher(w.following_k, w.following_rows * dh);
      next_v = LinePrefetcher(w.following_v, w.following_rows * dh);
    }
    // scores into st[j][lane]
#ifdef __AVX__
    if constexpr (kPairs && kPairLanes == 16) {
      constexpr int K = kPairKeys16;
      int64_t j = 0;
      if (dh == 128)
        for (; j + K <= nb; j += K) score_tile_pairs16<K, 128>(dh, qt, kb + j * dh, st + j * P, next_k);
      else if (dh == 64)
        for (; j + K <= nb; j += K) score_tile_pairs16<K, 64>(dh, qt, kb + j * dh, st + j * P, next_k);
      for (; j + 6 <= nb; j += 6) score_tile_pairs16<6>(dh, qt, kb + j * dh, st + j * P, next_k);
      for (; j < nb; ++j) score_tile_pairs16<1>(dh, qt, kb + j * dh, st + j * P, none);
      next_k.rest();
    } else if constexpr (kPairs) {
      // 12 keys a tile where head_dim is a compile-time constant (one pointer plus
      // constant offsets); a runtime head_dim needs a register per row: 6.
      int64_t j = 0;
      if (dh == 128)
        for (; j + 12 <= nb; j += 12) score_tile_pairs<12, 128>(dh, qt, kb + j * dh, st + j * P, next_k);
      else if (dh == 64)
        for (; j + 12 <= nb; j += 12) score_tile_pairs<12, 64>(dh, qt, kb + j * dh, st + j * P, next_k);
      for (; j + 6 <= nb; j += 6) score_tile_pairs<6>(dh, qt, kb + j * dh, st + j * P, next_k);
      for (; j < nb; ++j) score_tile_pairs<1>(dh, qt, kb + j * dh, st + j * P, none);
      next_k.rest();
    } else
#endif
    {
      constexpr int KT = score_keys<W, QV>();
      int64_t j = 0;
      for (; j + KT <= nb; j += KT) {
        if (dh == 128)  // the common head_dim (Llama, Mistral, Qwen, Falcon)
          score_tile<W, QV, KT, 128>(dh, qt, kb + j * dh, st + j * P, next_k);
        else
          score_tile<W, QV, KT>(dh, qt, kb + j * dh, st + j * P, next_k);
      }
      for (; j < nb; ++j) {
        score_tile<W, QV, 1>(dh, qt, kb + j * dh, st + j * P, none);
      }
      next_k.rest();
    }
    // online softmax across the query lanes
#ifdef __AVX512F__
    if constexpr (P == 8) {
      vstore<8>(w.corr.data(), softmax_rows8_by_two(st, nb, m[0], l[0]));
    } else
#endif
    for (int v = 0; v < QV; ++v) {
      vec<W> mx = m[v];
      for (int64_t j = 0; j < nb; ++j) mx = vmax<W>(mx, vload<W>(st + j * P + v * W));
      const vec<W> corr = vexp<W>(m[v] - mx);
      vec<W> sum{};
      for (int64_t j = 0; j < nb; ++j) {
        const vec<W> p = vexp<W>(vload<W>(st + j * P + v * W) - mx);
        vstore<W>(st + j * P + v * W, p);
        sum += p;
      }
      l[v] = l[v] * corr + sum;
      m[v] = mx;
      vstore<W>(w.corr.data() + v * W, corr);
    }
    if (j0 > lo)
      for (int64_t i = 0; i < n; ++i) {
        const float c = w.corr[i];
        if (c == 1.0f) continue;
        float* __restrict ai = acc + i * dh;
        for (int64_t x = 0; x < dh; ++x) ai[x] *= c;
      }
    // P·V, the next block's V rows prefetched evenly over its steps
    const auto spread = [&](int64_t passes) {
      const int64_t lines = next_v.lines_left(), steps = std::max<int64_t>(1, passes * nb);
      next_v.per_step = static_cast<int>(std::max<int64_t>(1, (lines + steps - 1) / steps));
    };
    if constexpr (W < kNativeLanes) {  // 8 query lanes on AVX-512: V read as full registers
      if (dh % kNativeLanes == 0) {
        spread(pv_passes<kNativeLanes, kPvHeads<W>>(n, dh));
        pv_heads<kNativeLanes, P, kPvHeads<W>>(n, dh, nb, st, vb, acc, next_v);
      } else {
        spread(pv_passes<W, kPvHeads<W>>(n, dh));
        pv_heads<W, P, kPvHeads<W>>(n, dh, nb, st, vb, acc, next_v);
      }
    } else {
      spread(pv_passes<W, kPvHeads<W>>(n, dh));
      pv_heads<W, P, kPvHeads<W>>(n, dh, nb, st, vb, acc, next_v);
    }
    next_v.rest();
  }
  for (int v = 0; v < QV; ++v) {
    vstore<W>(w.m.data() + v * W, m[v]);
    vstore<W>(w.l.data() + v * W, l[v]);
  }
}

// Items of under 4 query heads (MHA, and groups of 2 or 3): two passes per block
// of positions, each reading one array front to back: the scores along K's rows
// (dot products along head_dim), then out += p·V with the output rows in registers.
// A front-to-back read of one array is the pattern the hardware prefetchers follow
// best; the earlier loop (256-position blocks, software prefetches of the V row
// and the next K row during the scores) streamed 15-25% slower on the development
// machine (Zen 4 VM). DH > 0 fixes head_dim at compile time so that the output
// rows stay in registers; otherwise they live in the scratch (L1).
constexpr int64_t kDotBlock = 2048;  // positions per block: N x 8 KiB of scores

template <int W, int N, int DH>
void attend_dot(int64_t n, int64_t dh_runtime, float scale, const float* __restrict q, const float* __restrict K,
                const float* __restrict V, int64_t lo, int64_t hi, FastScratch& w) {
  static_assert(N * kDotBlock <= kBlock * kMaxLanes, "the scores fit the scratch");
  (void)n;
  const int64_t dh = DH > 0 ? DH : dh_runtime;
  float* __restrict qs = w.qs.data();
  float* __restrict s = w.st.data();  // s[i * kDotBlock + j]
  float* __restrict acc = w.acc.data();
  for (int64_t i = 0; i < N * dh; ++i) qs[i] = q[i] * scale;
  std::fill(acc, acc + N * dh, 0.0f);
  float m[N], l[N];
  for (int i = 0; i < N; ++i) m[i] = -std::numeric_limits<float>::infinity(), l[i] = 0;

  for (int64_t j0 = lo; j0 < hi; j0 += kDotBlock) {
    const int64_t nb = std::min(kDotBlock, hi - j0);
    const float* __restrict kb = K + j0 * dh;
    const float* __restrict vb = V + j0 * dh;
    // pass 1: scores
    for (int64_t j = 0; j < nb; ++j) {
      const float* __restrict kr = kb + j * dh;
      for (int i = 0; i < N; ++i) {
        vec<W> a0{}, a1{};
        int64_t x = 0;
        for (; x + 2 * W <= dh; x += 2 * W) {
          a0 += vload<W>(qs + i * dh + x) * vload<W>(kr + x);
          a1 += vload<W>(qs + i * dh + x + W) * vload<W>(kr + x + W);
        }
        for (; x < dh; x += W) a0 += vload<W>(qs + i * dh + x) * vload<W>(kr + x);
        s[i * kDotBlock + j] = vsum<W>(a0 + a1);
      }
    }
    // online softmax, per head along the block
    float corr[N];
    for (int i = 0; i < N; ++i) {
      float* __restrict si = s + i * kDotBlock;
      float mx = m[i];
      for (int64_t j = 0; j < nb; ++j) mx = std::max(mx, si[j]);
      const vec<W> vmx = vsplat<W>(mx);
      vec<W> sum{};
      int64_t j = 0;
      for (; j + W <= nb; j += W) {
        const vec<W> e = vexp<W>(vload<W>(si + j) - vmx);
        vstore<W>(si + j, e);
        sum += e;
      }
      float tail = 0;
      for (; j < nb; ++j) tail += si[j] = std::exp(si[j] - mx);
      corr[i] = std::exp(m[i] - mx);  // 0 on the first block (m = -inf)
      l[i] = l[i] * corr[i] + vsum<W>(sum) + tail;
      m[i] = mx;
    }
    // pass 2: out += p·V
    if constexpr (DH > 0) {
      constexpr int XV = DH / W;
      vec<W> a[N][XV];
      for (int i = 0; i < N; ++i)
        for (int x = 0; x < XV; ++x) a[i][x] = vload<W>(acc + i * DH + x * W) * corr[i];
      for (int64_t j = 0; j < nb; ++j) {
        const float* __restrict vr = vb + j * DH;
        vec<W> p[N];
        for (int i = 0; i < N; ++i) p[i] = vsplat<W>(s[i * kDotBlock + j]);
        for (int x = 0; x < XV; ++x) {
          const vec<W> vx = vload<W>(vr + x * W);
          for (int i = 0; i < N; ++i) a[i][x] += p[i] * vx;
        }
      }
      for (int i = 0; i < N; ++i)
        for (int x = 0; x < XV; ++x) vstore<W>(acc + i * DH + x * W, a[i][x]);
    } else {
      for (int i = 0; i < N; ++i)
        for (int64_t x = 0; x < dh; ++x) acc[i * dh + x] *= corr[i];
      for (int64_t j = 0; j < nb; ++j) {
        const float* __restrict vr = vb + j * dh;
        for (int i = 0; i < N; ++i) {
          const vec<W> p = vsplat<W>(s[i * kDotBlock + j]);
          for (int64_t x = 0; x < dh; x += W) vstore<W>(acc + i * dh + x, vload<W>(acc + i * dh + x) + p * vload<W>(vr + x));
        }
      }
    }
  }
  for (int i = 0; i < N; ++i) w.m[i] = m[i], w.l[i] = l[i];
}

#ifdef __AVX512F__
// Which score tile groups of 5-8 heads run, 8 or 16 lanes: timed once per process
// on this core (about 10 ms, one thread, the tiles' operands in L1, the better of
// three alternations each), since the answer depends on the core: on session 8's
// Zen 5 the 16-lane tile ran 149-153 GFLOP/s against 84-86 (72% and 41% of one
// core's FMA peak), and whole GQA decode steps 1.26-1.35x faster (batch 4, 32
// heads, 4 KV heads, context 1024-4096); on Zen 4 the 8-lane tile won (the note
// on score_tile_pairs). LMROOF_DECODE_SCORE_TILE=8 or 16 forces one (the tests run
// both).
int measured_score_tile_lanes() {
  constexpr int DH = 128, KT = 12, kKeys = 60, kIterations = 1500;
  std::vector<float> qt(DH * 16), k(kKeys * DH), st(kKeys * 16);
  for (size_t i = 0; i < qt.size(); ++i) qt[i] = 1e-3f * static_cast<float>(i % 13);
  for (size_t i = 0; i < k.size(); ++i) k[i] = 1e-3f * static_cast<float>(i % 11);
  LinePrefetcher none;
  const auto seconds = [&](auto tile) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < kIterations; ++it) {
      for (int j = 0; j + KT <= kKeys; j += KT) tile(j);
      asm volatile("" : : "r"(st.data()) : "memory");
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double eight = 1e30, sixteen = 1e30;
  for (int round = 0; round < 3; ++round) {
    eight = std::min(eight, seconds([&](int j) { score_tile<8, 1, KT, DH>(DH, qt.data(), k.data() + j * DH, st.data() + j * 8, none); }));
    sixteen = std::min(sixteen, seconds([&](int j) { score_tile_pairs16<KT, DH>(DH, qt.data(), k.data() + j * DH, st.data() + j * 8, none); }));
  }
  return sixteen < 0.9 * eight ? 16 : 8;  // a clear win only: a tie keeps the 8-lane tile
}
#endif
#ifdef __AVX__
// Without AVX-512 the 16-lane pair tile always: it needs fewer loads per FMA (the
// note on score_tile_pairs16), whatever the core. On Zen 3 (one thread, head_dim
// 128, operands in L1) it ran 94-96 GFLOP/s against 82-84 for the 8-lane tile.
int score_tile_lanes() {
  if (const char* forced = std::getenv("LMROOF_DECODE_SCORE_TILE")) {
    if (std::string_view(forced) == "8") return 8;
    if (std::string_view(forced) == "16") return 16;
  }
#ifdef __AVX512F__
  static const int lanes = measured_score_tile_lanes();
  return lanes;
#else
  return 16;
#endif
}
#endif

// This thread's scratch of type T for these sizes, kept across calls. Allocated
// inside every call's parallel region, it went back to the OS at the region's end
// (glibc trimmed the worker thread's arena) and was faulted back in at the next
// call: on session 8's VM, in a binary with the CUDA libraries loaded (lmroof_bench),
// a GQA decode step at context 1024 took 0.79-0.92 ms that way against 0.39-0.40 ms
// with glibc's trim threshold raised (MALLOC_TRIM_THRESHOLD_), in the same binary.
template <typename T>
T& thread_scratch(int64_t rows, int64_t dh) {
  thread_local std::optional<T> scratch;
  thread_local int64_t for_rows = -1, for_dh = -1;
  if (!scratch || for_rows != rows || for_dh != dh) {
// GCC 12 warns, falsely, that the vectors of a std::optional it has just reset may be
// used uninitialized (GCC bug 80635).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    scratch.reset();
    scratch.emplace(rows, dh);
#pragma GCC diagnostic pop
    for_rows = rows, for_dh = dh;
  }
  return *scratch;
}

using FastAttend = void (*)(int64_t, int64_t, float, const float*, const float*, const float*, int64_t, int64_t,
                            FastScratch&);

// attend_dot for n < 4 query heads on the widest vector (up to the host's) that
// divides head_dim, down to 8 lanes (4 where the host has no wider vectors).
// head_dim 128 keeps the output rows in registers where N x 128/W accumulators, a
// broadcast and a V vector fit them (AVX-512: up to 3 heads; AVX2: never, 16
// accumulators for one head already fill its 16 registers, and the rows live in
// the scratch).
template <int W>
FastAttend attend_dot_for(int64_t n, int64_t dh) {
  if (dh % W != 0) {
    if constexpr (W > 4 && W > std::min(8, kNativeLanes)) return attend_dot_for<W / 2>(n, dh);
    return nullptr;
  }
  const auto heads = [&]<int N>() -> FastAttend {
    // (only at the widest width: a narrower one runs when head_dim is not a multiple
    // of the widest, so never for 128)
    if constexpr (W == std::min(16, kNativeLanes) && N * 128 / W + 2 <= kVectorRegisters)
      if (dh == 128) return attend_dot<W, N, 128>;
    return attend_dot<W, N, 0>;
  };
  return n == 1 ? heads.template operator()<1>() : n == 2 ? heads.template operator()<2>() : heads.template operator()<3>();
}

// Groups over 8 heads (and groups of 4-8 on hosts without AVX) on the host's
// vectors: as many query vectors as the group needs, up to 8 (kMaxLanes).
template <int W>
FastAttend attend_fast_for(int64_t n, int64_t dh) {
  if (dh % W != 0) return nullptr;
  if (n <= W) return attend_fast<W, 1>;
  if (n <= 2 * W) return attend_fast<W, 2>;
  if (n <= 4 * W) return attend_fast<W, 4>;
  if constexpr (8 * W <= kMaxLanes)
    if (n <= 8 * W) return attend_fast<W, 8>;
  return nullptr;
}

// The fast kernel for n query heads per item, or nullptr where it does not apply
// (head_dim not a multiple of the vector width, more than kMaxLanes heads).
// Vectors are never wider than the host's (kNativeLanes): a vec<16> on AVX2 is two
// ymm per value, twice the registers the tiles were sized for.
FastAttend fast_attend_for(int64_t n, int64_t dh) {
  constexpr int W = std::min(16, kNativeLanes);
  // Under 4 heads: two passes per block.
  if (n < 4) return attend_dot_for<W>(n, dh);
  // 4-8 heads: 8 lanes (no lanes wasted at group 8; on AVX-512 hosts such as Zen 4,
  // which split a 512-bit FMA into two 256-bit halves, 8 lanes lose nothing either).
  // Groups of 5-8 take the 16-lane pair tile where this core runs it clearly faster
  // (score_tile_lanes: Zen 5, whose 512-bit FMAs run at full width) and on every
  // AVX2 host (two ymm, fewer loads per FMA).
#ifdef __AVX__
  if (n <= 4) return dh % 8 == 0 ? attend_fast<8, 1, true> : nullptr;
#endif
#ifdef __AVX__
  if (n <= 8 && score_tile_lanes() == 16) return dh % 8 == 0 ? attend_fast<8, 1, true, 16> : nullptr;
#endif
  if constexpr (W >= 8)
    if (n <= 8) return dh % 8 == 0 ? attend_fast<8, 1> : nullptr;
  return attend_fast_for<W>(n, dh);
}

}  // namespace

size_t cpu_partial_floats(Impl impl, Dims d) {
  if (impl == Impl::blas) return blas_score_floats(d);
  const int64_t splits = context_splits(Backend::cpu, impl, d);
  return splits > 1 ? static_cast<size_t>(d.batch * d.q_heads * splits * (d.head_dim + 2)) : 0;
}

void cpu_decode(Impl impl, Dims d, const float* q, const float* k, const float* v, float* out, float* partials) {
  if (impl == Impl::blas) return cpu_decode_blas(d, q, k, v, out, partials);
  const int64_t Hq = d.q_heads, Hkv = d.kv_heads, dh = d.head_dim, L = d.context, g = d.group();
  const int64_t splits = context_splits(Backend::cpu, impl, d);
  const int64_t n = impl == Impl::naive ? 1 : g;  // query heads per work item
  const int64_t units = Hq / n;                   // work items per sequence before the split
  const int64_t items = d.batch * units * splits;
  const int64_t chunk = (L + splits - 1) / splits;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const int64_t pstride = dh + 2;  // one partial: unnormalised output, max, sum

  const FastAttend fast = fast_attend_for(n, dh);

#pragma omp parallel
  {
    // one of the two: the vectorized kernel where it applies, the portable one otherwise
    FastScratch* fw = fast ? &thread_scratch<FastScratch>(int64_t{kMaxLanes}, dh) : nullptr;
    Scratch* sw = fast ? nullptr : &thread_scratch<Scratch>(n, dh);
    const float* acc = fast ? fw->acc.data() : sw->acc.data();
    const float* m = fast ? fw->m.data() : sw->m.data();
    const float* l = fast ? fw->l.data() : sw->l.data();
    // Which sequence, heads and positions an item covers.
    struct Item {
      int64_t b, h0, piece, lo, hi;
      const float *k, *v;  // the kv head's K and V rows
    };
    const auto item_at = [&](int64_t item) {
      const int64_t piece = item % splits, u = (item / splits) % units, b = item / (splits * units);
      const int64_t h0 = u * n, kvh = h0 / g;
      const int64_t lo = std::min(L, piece * chunk), hi = std::min(L, lo + chunk);
      return Item{b, h0, piece, lo, hi, k + (b * Hkv + kvh) * L * dh, v + (b * Hkv + kvh) * L * dh};
    };
    // Contiguous items per thread (as schedule(static) gives them), so that each
    // thread knows the item it runs next and can prefetch its first block.
    const int64_t threads = omp_get_num_threads(), id = omp_get_thread_num();
    const int64_t first = items * id / threads, last = items * (id + 1) / threads;
    bool prev_had_rows = false;
    for (int64_t item = first; item < last; ++item) {
      const Item it = item_at(item);
      const int64_t b = it.b, h0 = it.h0, piece = it.piece;
      if (fast) {
        // (an empty previous item, possible with context splits, prefetched nothing)
        fw->first_prefetched = item > first && prev_had_rows;
        fw->following_k = fw->following_v = nullptr;
        if (item + 1 < last) {
          const Item next = item_at(item + 1);
          fw->following_k = next.k + next.lo * dh;
          fw->following_v = next.v + next.lo * dh;
          fw->following_rows = std::min(kBlock, next.hi - next.lo);
        }
        fast(n, dh, scale, q + (b * Hq + h0) * dh, it.k, it.v, it.lo, it.hi, *fw);
        prev_had_rows = it.lo < it.hi;
      } else
        attend(n, dh, scale, q + (b * Hq + h0) * dh, it.k, it.v, it.lo, it.hi, *sw);
      for (int64_t i = 0; i < n; ++i) {
        const float* __restrict ai = acc + i * dh;
        if (splits == 1) {
          float* __restrict o = out + (b * Hq + h0 + i) * dh;
          const float inv = 1.0f / l[i];
#pragma omp simd
          for (int64_t x = 0; x < dh; ++x) o[x] = ai[x] * inv;
        } else {
          float* __restrict p = partials + ((b * Hq + h0 + i) * splits + piece) * pstride;
          std::copy(ai, ai + dh, p);
          p[dh] = m[i];
          p[dh + 1] = l[i];
        }
      }
    }
    if (splits > 1) {
#pragma omp barrier
      // Combine the pieces of each query head: rescale each to the common max.
#pragma omp for schedule(static)
      for (int64_t bh = 0; bh < d.batch * Hq; ++bh) {
        const float* p0 = partials + bh * splits * pstride;
        float mx = -std::numeric_limits<float>::infinity();
        for (int64_t s = 0; s < splits; ++s) mx = std::max(mx, p0[s * pstride + dh]);
        float* __restrict o = out + bh * dh;
        std::fill(o, o + dh, 0.0f);
        float den = 0;
        for (int64_t s = 0; s < splits; ++s) {
          const float* __restrict ps = p0 + s * pstride;
          const float wgt = std::exp(ps[dh] - mx);  // 0 for an empty piece (max -inf)
          den += wgt * ps[dh + 1];
#pragma omp simd
          for (int64_t x = 0; x < dh; ++x) o[x] += wgt * ps[x];
        }
        const float inv = 1.0f / den;
#pragma omp simd
        for (int64_t x = 0; x < dh; ++x) o[x] *= inv;
      }
    }
  }
}

namespace {

class CpuDecodeWorkload final : public Workload {
 public:
  explicit CpuDecodeWorkload(const RunSpec& spec)
      : impl_(parse_impl(spec.impl)),
        dims_(dims_of(spec.shape)),
        q_(dims_.batch * dims_.q_heads * dims_.head_dim),
        k_(dims_.batch * dims_.kv_heads * dims_.context * dims_.head_dim),
        v_(k_.size()),
        out_(q_.size()),
        partials_(cpu_partial_floats(impl_, dims_)) {
    fill_inputs(1, q_, k_, v_);
  }

  void run() override { cpu_decode(impl_, dims_, q_.data(), k_.data(), v_.data(), out_.data(), partials_.data()); }

  Validation validate(uint64_t seed) override {
    fill_inputs(seed, q_, k_, v_);
    poison(partials_);  // the split-context partials too: a tile it forgets to write fails
    return run_against_reference(*this, out_, [&](std::span<double> ref) { reference(dims_, q_, k_, v_, ref); });
  }

 private:
  Impl impl_;
  Dims dims_;
  HostVector<float> q_, k_, v_, out_, partials_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuDecodeWorkload>(spec); }

}  // namespace lmroof::decode
