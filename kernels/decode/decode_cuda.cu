// CUDA kernels for the decode pair: one query token per sequence attends over a KV
// cache (q [B, Hq, dh], K/V [B, Hkv, L, dh], bf16 or fp32 storage, fp32 softmax and
// accumulation), flash-decoding style: the context of every work item is split into
// `splits` pieces so that B·Hkv·splits CTAs fill the GPU, each piece runs an online
// softmax over 64-key (or 32-key) tiles, and a second kernel combines the pieces.
//
// Tiles of K and V go from global memory to shared memory with cp.async (16-byte
// chunks, L2 only), double-buffered: tile t+1 is in flight while tile t is used. A
// tile of a kv head is one contiguous block of memory (its rows are consecutive).
//
//   naive    one CTA per (batch, query head, split): every query head streams the K/V
//            of its kv head itself (a group of g query heads reads them g times).
//   grouped  one CTA per (batch, kv head, split) (and per chunk of query heads when
//            the group is large): each K/V tile is loaded once into shared memory and
//            used by all the group's query heads.
//            - bf16 with g >= 8 and head_dim in {64, 96, 128, 256}: tensor cores.
//              mma.sync m16n8k16 (bf16 in, fp32 accumulate) with the group's query
//              heads as the 16 rows of the A operand (up to 4 m-tiles = 64 heads per
//              CTA): S = Q·Kᵀ takes K straight from shared memory as the B operand,
//              the scores' accumulator registers become the A operand of O = P·V
//              (FlashAttention-2's register reuse), V's B fragments come from
//              ldmatrix.trans. At g >= 8 the CUDA-core path would need ~2g FLOPs per
//              byte of K/V, past the FP32 ridge point: tensor cores keep it memory-bound.
//            - otherwise (small groups, fp32, other head sizes): the CUDA-core kernel
//              with up to 8 query heads per CTA.
//   The CUDA-core kernel (naive, and grouped with small g): per tile, scores by 2 (or
//   4) threads per key over the head dimension, the online-softmax update by one warp
//   per head, then P·V with each thread owning 8 output dimensions of one head for a
//   subset of the tile's keys (partial sums combined at the end).
//
// head_dim up to 256; not a multiple of the 16-byte vector width takes plain loads.
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cuda_buffer.h"
#include "common/cuda_device.cuh"
#include "common/cuda_workload.h"
#include "common/host_data.h"
#include "decode/decode.h"

namespace lmroof::decode {

namespace {

using cuda::bf16;
using cuda::from_float;
using cuda::span_of;
using cuda::to_float;

constexpr int kThreads = 128;  // 4 warps per CTA, every kernel
constexpr int kMaxSplits = 64;
constexpr int kMaxHeadDim = 256;
constexpr int kSimtMaxHeads = 8;  // query heads per CTA on the CUDA-core path
constexpr float kLog2e = 1.4426950408889634f;

struct Params {
  const void* q;
  const void* k;
  const void* v;
  void* out;
  float* part_o;   // [B·Hq][splits][dh]: unnormalised output of each split
  float* part_ml;  // [B·Hq][splits][2]: its running max (log2 domain) and sum
  int64_t context;
  int64_t chunk;  // keys per split (a multiple of the tile)
  int q_heads, kv_heads, group, head_dim;
  int splits;
  int heads_per_cta;  // query heads one CTA serves (1 for naive)
  int ctas_per_kv;    // CTAs per (batch, kv head) and split: ceil(group / heads_per_cta)
  float scale_log2;   // log2(e) / sqrt(head_dim)
};

// What one CTA works on: blockIdx.x = (batch, kv head, head chunk), blockIdx.y = split.
// With heads_per_cta = 1 the x index is batch·Hq + query head (the naive layout).
struct Work {
  int64_t b;
  int kvh;
  int h_first;  // first query head (within the batch entry)
  int heads;    // query heads served
  int split;
  int64_t k_begin, k_end;
};

__device__ __forceinline__ Work work_of(const Params& p) {
  Work w;
  const int64_t unit = blockIdx.x;
  const int c = static_cast<int>(unit % p.ctas_per_kv);
  const int64_t bk = unit / p.ctas_per_kv;
  w.b = bk / p.kv_heads;
  w.kvh = static_cast<int>(bk % p.kv_heads);
  w.h_first = w.kvh * p.group + c * p.heads_per_cta;
  w.heads = min(p.heads_per_cta, p.group - c * p.heads_per_cta);
  w.split = static_cast<int>(blockIdx.y);
  w.k_begin = static_cast<int64_t>(w.split) * p.chunk;
  w.k_end = min(p.context, w.k_begin + p.chunk);
  return w;
}

// Either the final output (one split) or this split's partial state.
template <typename T>
__device__ __forceinline__ void store_result(const Params& p, const Work& w, int h, int d, float o, float m,
                                             float l) {
  const int64_t gh = w.b * p.q_heads + w.h_first + h;
  if (p.splits == 1) {
    static_cast<T*>(p.out)[gh * p.head_dim + d] = from_float<T>(o / l);
  } else {
    const int64_t slot = gh * p.splits + w.split;
    p.part_o[slot * p.head_dim + d] = o;
    if (d == 0) {
      p.part_ml[2 * slot] = m;
      p.part_ml[2 * slot + 1] = l;
    }
  }
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Copies `rows` consecutive rows of dh elements from global memory into shared-memory
// rows `rs` elements apart. cp.async in 16-byte chunks when rows are 16-byte multiples,
// plain loads otherwise. ZERO_TAIL: rows [rows, TK) of columns [0, dh) are zeroed
// (the tensor-core P·V multiplies them by P = 0, and 0 · NaN would be NaN).
template <typename T, int TK, bool ZERO_TAIL>
__device__ __forceinline__ void load_tile(T* dst, const T* src, int rows, int dh, int rs, bool async) {
  if (async) {
    constexpr int V = 16 / sizeof(T);
    const int cpr = dh / V;
    for (int i = threadIdx.x; i < rows * cpr; i += kThreads) {
      const int r = i / cpr, c = i - r * cpr;
      cp_async16(dst + r * rs + c * V, src + static_cast<int64_t>(r) * dh + c * V);
    }
    if constexpr (ZERO_TAIL)
      for (int i = threadIdx.x; i < (TK - rows) * cpr; i += kThreads) {
        const int r = rows + i / cpr, c = i % cpr;
        *reinterpret_cast<uint4*>(dst + r * rs + c * V) = make_uint4(0, 0, 0, 0);
      }
  } else {
    for (int i = threadIdx.x; i < rows * dh; i += kThreads) {
      const int r = i / dh, c = i - r * dh;
      dst[r * rs + c] = src[static_cast<int64_t>(r) * dh + c];
    }
    if constexpr (ZERO_TAIL)
      for (int i = threadIdx.x; i < (TK - rows) * dh; i += kThreads) {
        const int r = rows + i / dh, c = i % dh;
        dst[r * rs + c] = from_float<T>(0.f);
      }
  }
}

// The K/V tiles of one CTA's keys [w.k_begin, w.k_end) as both decode kernels stream
// them: TK keys a tile, in two shared-memory stages of K and V (rows rs elements apart,
// dh columns copied). A two-stage pipeline: before waiting for tile t, the copy of tile
// t + 1 into the other stage is issued (cp.async and a commit), so that it overlaps the
// work on tile t. The caller issues tile 0 before its loop.
template <typename T, int TK, bool ZERO_TAIL>
struct KvTiles {
  T* kv_s;
  int rs, dh;
  const T* kg;
  const T* vg;
  const Work& w;
  bool async;

  // stage st of K (which = 0) or V (which = 1); arithmetic, not an array (no local memory)
  __device__ __forceinline__ T* stage(int st, int which) const { return kv_s + (st * 2 + which) * TK * rs; }
  __device__ __forceinline__ int count() const { return static_cast<int>((w.k_end - w.k_begin + TK - 1) / TK); }
  __device__ __forceinline__ int rows(int t) const {
    return static_cast<int>(min(static_cast<int64_t>(TK), w.k_end - (w.k_begin + static_cast<int64_t>(t) * TK)));
  }
  __device__ __forceinline__ void issue(int t) const {
    const int64_t key0 = w.k_begin + static_cast<int64_t>(t) * TK;
    load_tile<T, TK, ZERO_TAIL>(stage(t & 1, 0), kg + key0 * dh, rows(t), dh, rs, async);
    load_tile<T, TK, ZERO_TAIL>(stage(t & 1, 1), vg + key0 * dh, rows(t), dh, rs, async);
    cp_async_commit();
  }
  // Issues tile t + 1 (if any), waits for tile t and syncs the block; returns how many of
  // tile t's keys are valid (the last tile may be partial).
  __device__ __forceinline__ int await(int t) const {
    if (t + 1 < count()) {
      issue(t + 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    return rows(t);
  }
};

// 8 consecutive elements from 16-byte-aligned shared memory.
__device__ __forceinline__ void load8(const bf16* p, float (&f)[8]) { cuda::load_vec(p, f); }
__device__ __forceinline__ void load8(const float* p, float (&f)[8]) {
  const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
  f[0] = a.x, f[1] = a.y, f[2] = a.z, f[3] = a.w, f[4] = b.x, f[5] = b.y, f[6] = b.z, f[7] = b.w;
}

// ---------------------------------------------------------------------------
// CUDA-core kernel
// ---------------------------------------------------------------------------

// Shared-memory layout of the CUDA-core kernel, in bytes; the host sizes the launch
// with the same function.
struct SimtLayout {
  int dhp;  // head_dim rounded up to 8 (one "chunk" = 8 elements)
  int rs;   // row stride of a K/V tile in elements: dhp + 16 bytes (bank spread)
  int ns;   // P·V thread slots: kThreads / (dhp / 8)
  size_t kv, q, s, p, stats, red, total;
  __host__ __device__ SimtLayout(int dh, int elem, int tk, int gmax) {
    dhp = (dh + 7) / 8 * 8;
    rs = dhp + 16 / elem;
    ns = kThreads / (dhp / 8);
    kv = 0;                                                                // [2 stages][K, V][tk][rs] T
    q = kv + static_cast<size_t>(4) * tk * rs * elem;                      // [gmax][dhp] float
    s = q + static_cast<size_t>(gmax) * dhp * 4;                           // [kThreads / tk][gmax][tk] float
    p = s + static_cast<size_t>(kThreads / tk) * gmax * tk * 4;            // [gmax][tk] float
    stats = p + static_cast<size_t>(gmax) * tk * 4;                        // m, l, alpha, (pad) [gmax] float
    total = stats + static_cast<size_t>(4) * gmax * 4;
    // [ns][2][dhp] float for the final key-phase sums: used after the last tile, so it
    // reuses the K/V stages when it fits (it always does for 64-key tiles)
    const size_t red_bytes = static_cast<size_t>(ns) * 2 * dhp * 4;
    if (red_bytes <= q - kv) {
      red = kv;
    } else {
      red = total;
      total += red_bytes;
    }
  }
};

template <typename T, int TK, int GMAX>
__global__ void __launch_bounds__(kThreads) decode_simt_kernel(Params p) {
  constexpr int TPK = kThreads / TK;  // threads per key in the score phase
  extern __shared__ __align__(16) unsigned char smem[];
  const int dh = p.head_dim;
  const SimtLayout lay(dh, sizeof(T), TK, GMAX);
  const int DHP = lay.dhp, DC = DHP / 8, RS = lay.rs, NS = lay.ns;
  T* kv_s = reinterpret_cast<T*>(smem + lay.kv);
  float* q_s = reinterpret_cast<float*>(smem + lay.q);
  float* s_s = reinterpret_cast<float*>(smem + lay.s);
  float* p_s = reinterpret_cast<float*>(smem + lay.p);
  float* m_s = reinterpret_cast<float*>(smem + lay.stats);
  float* l_s = m_s + GMAX;
  float* a_s = l_s + GMAX;
  float* red = reinterpret_cast<float*>(smem + lay.red);
  const int tid = threadIdx.x;

  const Work w = work_of(p);
  const int64_t kv_off = (w.b * p.kv_heads + w.kvh) * p.context * dh;
  const T* kg = static_cast<const T*>(p.k) + kv_off;
  const T* vg = static_cast<const T*>(p.v) + kv_off;
  const T* qg = static_cast<const T*>(p.q) + (w.b * p.q_heads + w.h_first) * dh;
  const bool async = (dh * static_cast<int>(sizeof(T))) % 16 == 0;

  // q of the served heads, pre-scaled into the log2 domain, zero-padded to DHP
  for (int i = tid; i < GMAX * DHP; i += kThreads) {
    const int h = i / DHP, c = i - h * DHP;
    q_s[i] = h < w.heads && c < dh ? to_float(qg[h * dh + c]) * p.scale_log2 : 0.f;
  }
  if (tid < GMAX) {
    m_s[tid] = -INFINITY;
    l_s[tid] = 0.f;
  }
  if (DHP > dh)  // pad columns of K (and V) must read as zero: q is zero there, but 0 · NaN is not
    for (int i = tid; i < 4 * TK * (DHP - dh); i += kThreads) {
      const int r = i / (DHP - dh), c = dh + i % (DHP - dh);
      kv_s[r * RS + c] = from_float<T>(0.f);
    }

  const KvTiles<T, TK, false> kv{kv_s, RS, dh, kg, vg, w, async};
  const int tiles = kv.count();

  // P·V ownership: thread = (8-dimension chunk c_pv, slot). With heads <= slots, slot
  // serves head slot % heads over keys kphase, kphase + KP, ...; with more heads than
  // slots (head_dim 256, 8 heads) each slot serves two heads over all keys.
  const int c_pv = tid % DC, slot = tid / DC;
  const int HPS = w.heads <= NS ? 1 : 2;
  const int KP = HPS == 1 ? NS / w.heads : 1;
  const int head0 = HPS == 1 ? slot % w.heads : slot;
  const int kphase = HPS == 1 ? slot / w.heads : 0;
  const bool pv_active = slot < NS && (HPS == 2 || slot < w.heads * KP);
  float acc[2][8];
#pragma unroll
  for (int hh = 0; hh < 2; ++hh)
#pragma unroll
    for (int e = 0; e < 8; ++e) acc[hh][e] = 0.f;

  kv.issue(0);
  for (int t = 0; t < tiles; ++t) {
    const int valid = kv.await(t);
    const T* ks = kv.stage(t & 1, 0);
    const T* vs = kv.stage(t & 1, 1);

    // scores: thread (key, part) sums chunks part, part + TPK, ... of q_h · k
    {
      const int key = tid % TK, part = tid / TK;
      if (key < valid) {
        float sc[GMAX];
#pragma unroll
        for (int h = 0; h < GMAX; ++h) sc[h] = 0.f;
        for (int c = part; c < DC; c += TPK) {
          float kf[8];
          load8(ks + key * RS + c * 8, kf);
#pragma unroll
          for (int h = 0; h < GMAX; ++h) {
            if (h < w.heads) {
              const float4 q0 = reinterpret_cast<const float4*>(q_s + h * DHP + c * 8)[0];
              const float4 q1 = reinterpret_cast<const float4*>(q_s + h * DHP + c * 8)[1];
              sc[h] += kf[0] * q0.x + kf[1] * q0.y + kf[2] * q0.z + kf[3] * q0.w + kf[4] * q1.x + kf[5] * q1.y +
                       kf[6] * q1.z + kf[7] * q1.w;
            }
          }
        }
#pragma unroll
        for (int h = 0; h < GMAX; ++h)
          if (h < w.heads) s_s[(part * GMAX + h) * TK + key] = sc[h];
      }
    }
    __syncthreads();

    // online softmax: one warp per head
    {
      const int warp = tid / 32, lane = tid % 32;
      for (int h = warp; h < w.heads; h += kThreads / 32) {
        float sv[TK / 32];
        float mx = -INFINITY;
#pragma unroll
        for (int r = 0; r < TK / 32; ++r) {
          const int j = lane + 32 * r;
          float s = -INFINITY;
          if (j < valid) {
            s = 0.f;
#pragma unroll
            for (int part = 0; part < TPK; ++part) s += s_s[(part * GMAX + h) * TK + j];
          }
          sv[r] = s;
          mx = fmaxf(mx, s);
        }
        mx = cuda::warp_max(mx);  // finite: every tile has a valid key
        const float m_old = m_s[h], m_new = fmaxf(m_old, mx);
        const float alpha = exp2f(m_old - m_new);  // 0 on the first tile (m_old = -inf)
        float ps = 0.f;
#pragma unroll
        for (int r = 0; r < TK / 32; ++r) {
          const float pj = exp2f(sv[r] - m_new);
          p_s[h * TK + lane + 32 * r] = pj;
          ps += pj;
        }
        ps = cuda::warp_sum(ps);
        if (lane == 0) {
          l_s[h] = l_s[h] * alpha + ps;
          m_s[h] = m_new;
          a_s[h] = alpha;
        }
      }
    }
    __syncthreads();

    // P·V into registers
    if (pv_active) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int h = head0 + hh * NS;
        if (hh >= HPS || h >= w.heads) continue;
        const float alpha = a_s[h];
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[hh][e] *= alpha;
        for (int j = kphase; j < valid; j += KP) {
          const float pj = p_s[h * TK + j];
          float vf[8];
          load8(vs + j * RS + c_pv * 8, vf);
#pragma unroll
          for (int e = 0; e < 8; ++e) acc[hh][e] = fmaf(pj, vf[e], acc[hh][e]);
        }
      }
    }
    __syncthreads();  // the stage is refilled two tiles on
  }

  // combine the key phases (red may alias the stages: the loop ended on a barrier),
  // normalise (or keep the split's partial state)
  if (pv_active)
#pragma unroll
    for (int hh = 0; hh < 2; ++hh)
      if (hh < HPS)
#pragma unroll
        for (int e = 0; e < 8; ++e) red[(slot * 2 + hh) * DHP + c_pv * 8 + e] = acc[hh][e];
  __syncthreads();
  for (int i = tid; i < w.heads * dh; i += kThreads) {
    const int h = i / dh, d = i - h * dh;
    float o = 0.f;
    if (HPS == 1) {
      for (int kp = 0; kp < KP; ++kp) o += red[((kp * w.heads + h) * 2) * DHP + d];
    } else {
      o = red[((h % NS) * 2 + h / NS) * DHP + d];
    }
    store_result<T>(p, w, h, d, o, m_s[h], l_s[h]);
  }
}

// ---------------------------------------------------------------------------
// Tensor-core kernel (bf16)
// ---------------------------------------------------------------------------

__device__ __forceinline__ void mma_bf16_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // .x (low 16 bits) = lo
  return *reinterpret_cast<const uint32_t*>(&v);
}

constexpr int kMmaTile = 64;  // keys per tile

// Bytes of shared memory of the tensor-core kernel.
__host__ __device__ constexpr size_t mma_smem_bytes(int dh, int mpc) {
  return (static_cast<size_t>(4) * kMmaTile + 16 * mpc) * (dh + 8) * sizeof(uint16_t);
}

// DH head dimension, MPC m-tiles (16 query heads each) per CTA. Warps: WPM = 4 / MPC per
// m-tile, each taking KW = 64 / WPM keys of every tile; their softmax states are
// merged at the end.
template <int DH, int MPC>
__global__ void __launch_bounds__(kThreads) decode_mma_kernel(Params p) {
  constexpr int TK = kMmaTile, WPM = 4 / MPC, KW = TK / WPM, RS = DH + 8, ROWS = 16 * MPC;
  constexpr int KB = KW < (DH <= 128 ? 32 : 16) ? KW : (DH <= 128 ? 32 : 16);
  static_assert(DH % 16 == 0 && KB % 16 == 0 && KW % KB == 0, "whole k16 steps");
  // the final merge reuses the K/V stages: 4 warps x 16 rows x DH floats + m, l
  static_assert(4 * 16 * DH * 4 + 4 * 16 * 2 * 4 <= 4 * TK * RS * 2, "merge scratch fits the stages");
  extern __shared__ __align__(16) unsigned char smem[];
  bf16* kv_s = reinterpret_cast<bf16*>(smem);  // [2 stages][K, V][TK][RS]
  bf16* q_s = kv_s + 4 * TK * RS;              // [ROWS][RS]
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int mt = warp / WPM, kw0 = (warp % WPM) * KW;
  const int g = lane >> 2, tq = lane & 3;

  const Work w = work_of(p);
  const int64_t kv_off = (w.b * p.kv_heads + w.kvh) * p.context * DH;
  const bf16* kg = static_cast<const bf16*>(p.k) + kv_off;
  const bf16* vg = static_cast<const bf16*>(p.v) + kv_off;
  const bf16* qg = static_cast<const bf16*>(p.q) + (w.b * p.q_heads + w.h_first) * DH;

  for (int i = tid; i < ROWS * (DH / 8); i += kThreads) {
    const int r = i / (DH / 8), c = i % (DH / 8);
    uint4 val = make_uint4(0, 0, 0, 0);  // rows past the group: zero queries
    if (r < w.heads) val = *reinterpret_cast<const uint4*>(qg + r * DH + c * 8);
    *reinterpret_cast<uint4*>(q_s + r * RS + c * 8) = val;
  }

  const KvTiles<bf16, TK, true> kv{kv_s, RS, DH, kg, vg, w, true};
  const int tiles = kv.count();

  float o[DH / 8][4];
#pragma unroll
  for (int n = 0; n < DH / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  float m_r[2] = {-INFINITY, -INFINITY}, l_r[2] = {0.f, 0.f};  // rows g and g + 8; l per thread

  kv.issue(0);
  for (int t = 0; t < tiles; ++t) {
    const int valid = kv.await(t);
    const bf16* ks = kv.stage(t & 1, 0);
    const bf16* vs = kv.stage(t & 1, 1);

    // The warp's KW keys in blocks of KB, each a complete online-softmax step: the
    // score registers of a block (KB / 2 floats) then stay few beside O's DH / 2.
#pragma unroll 1
    for (int kb0 = kw0; kb0 < kw0 + KW; kb0 += KB) {
      if (kb0 >= valid) break;  // past the split's last key (warp-uniform): nothing changes
      // S = Q·Kᵀ for KB of this warp's keys: rows = query heads, columns = keys
      float s[KB / 8][4];
#pragma unroll
      for (int j = 0; j < KB / 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
#pragma unroll
      for (int kk = 0; kk < DH / 16; ++kk) {
        uint32_t a[4];
        ldmatrix_x4(a, q_s + (mt * 16 + (lane & 15)) * RS + kk * 16 + (lane >> 4) * 8);
#pragma unroll
        for (int j = 0; j < KB / 8; ++j) {
          const bf16* kr = ks + (kb0 + j * 8 + g) * RS + kk * 16 + tq * 2;
          mma_bf16_16816(s[j], a, *reinterpret_cast<const uint32_t*>(kr), *reinterpret_cast<const uint32_t*>(kr + 8));
        }
      }

      // online softmax on the accumulators: this thread holds rows g (s[j][0..1]) and
      // g + 8 (s[j][2..3]) at keys kb0 + 8j + 2tq + {0, 1}; a row's keys span a quad
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < KB / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const bool ok = kb0 + j * 8 + tq * 2 + e < valid;
          s[j][e] = ok ? s[j][e] * p.scale_log2 : -INFINITY;
          s[j][2 + e] = ok ? s[j][2 + e] * p.scale_log2 : -INFINITY;
          mx[0] = fmaxf(mx[0], s[j][e]);
          mx[1] = fmaxf(mx[1], s[j][2 + e]);
        }
      float m_use[2], alpha[2], rsum[2] = {0.f, 0.f};
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
        const float m_new = fmaxf(m_r[r], mx[r]);
        m_use[r] = m_new == -INFINITY ? 0.f : m_new;  // all keys masked so far: keep exp2 finite
        alpha[r] = exp2f(m_r[r] - m_use[r]);
        m_r[r] = m_new;
      }
#pragma unroll
      for (int j = 0; j < KB / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          s[j][e] = exp2f(s[j][e] - m_use[0]);
          s[j][2 + e] = exp2f(s[j][2 + e] - m_use[1]);
          rsum[0] += s[j][e];
          rsum[1] += s[j][2 + e];
        }
#pragma unroll
      for (int r = 0; r < 2; ++r) l_r[r] = l_r[r] * alpha[r] + rsum[r];
#pragma unroll
      for (int n = 0; n < DH / 8; ++n) {
        o[n][0] *= alpha[0];
        o[n][1] *= alpha[0];
        o[n][2] *= alpha[1];
        o[n][3] *= alpha[1];
      }

      // O += P·V: two n8 score tiles form one k16 A operand; V's B operands via ldmatrix.trans
#pragma unroll
      for (int ks16 = 0; ks16 < KB / 16; ++ks16) {
        const uint32_t a[4] = {pack_bf16(s[2 * ks16][0], s[2 * ks16][1]), pack_bf16(s[2 * ks16][2], s[2 * ks16][3]),
                               pack_bf16(s[2 * ks16 + 1][0], s[2 * ks16 + 1][1]),
                               pack_bf16(s[2 * ks16 + 1][2], s[2 * ks16 + 1][3])};
        const bf16* vrow = vs + (kb0 + ks16 * 16 + (lane & 15)) * RS + (lane >> 4) * 8;
#pragma unroll
        for (int n2 = 0; n2 < DH / 16; ++n2) {
          uint32_t b[4];
          ldmatrix_x4_trans(b, vrow + n2 * 16);
          mma_bf16_16816(o[2 * n2], a, b[0], b[1]);
          mma_bf16_16816(o[2 * n2 + 1], a, b[2], b[3]);
        }
      }
    }
    __syncthreads();  // the stage is refilled two tiles on
  }

  // merge the warps of each m-tile through shared memory (the stages are free now)
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l_r[r] += __shfl_xor_sync(0xffffffffu, l_r[r], 1);
    l_r[r] += __shfl_xor_sync(0xffffffffu, l_r[r], 2);
  }
  float* o_red = reinterpret_cast<float*>(smem);  // [4 warps][16][DH]
  float* ml_red = o_red + 4 * 16 * DH;            // [4 warps][16][2]
#pragma unroll
  for (int n = 0; n < DH / 8; ++n) {
    float* r0 = o_red + (warp * 16 + g) * DH + n * 8 + tq * 2;
    r0[0] = o[n][0];
    r0[1] = o[n][1];
    r0[8 * DH] = o[n][2];
    r0[8 * DH + 1] = o[n][3];
  }
  if (tq == 0) {
    ml_red[(warp * 16 + g) * 2] = m_r[0];
    ml_red[(warp * 16 + g) * 2 + 1] = l_r[0];
    ml_red[(warp * 16 + g + 8) * 2] = m_r[1];
    ml_red[(warp * 16 + g + 8) * 2 + 1] = l_r[1];
  }
  __syncthreads();
  for (int i = tid; i < ROWS * DH; i += kThreads) {
    const int row = i / DH, d = i % DH;
    if (row >= w.heads) continue;
    const int m_tile = row / 16, r = row % 16;
    float M = -INFINITY;
#pragma unroll
    for (int k = 0; k < WPM; ++k) M = fmaxf(M, ml_red[((m_tile * WPM + k) * 16 + r) * 2]);
    float L = 0.f, O = 0.f;
#pragma unroll
    for (int k = 0; k < WPM; ++k) {
      const int wk = m_tile * WPM + k;
      const float m = ml_red[(wk * 16 + r) * 2];
      const float sc = m == -INFINITY ? 0.f : exp2f(m - M);
      L += sc * ml_red[(wk * 16 + r) * 2 + 1];
      O += sc * o_red[(wk * 16 + r) * DH + d];
    }
    store_result<bf16>(p, w, row, d, O, M, L);
  }
}

// ---------------------------------------------------------------------------
// Split combine: one warp per (batch, query head).
// ---------------------------------------------------------------------------

template <typename T>
__global__ void __launch_bounds__(kThreads) combine_kernel(Params p, int64_t rows) {
  __shared__ float weights[kThreads / 32][kMaxSplits];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + warp;
  if (row >= rows) return;  // warp-uniform; only __syncwarp below
  const float* ml = p.part_ml + row * p.splits * 2;
  float M = -INFINITY;
  for (int s = lane; s < p.splits; s += 32) M = fmaxf(M, ml[2 * s]);
  M = cuda::warp_max(M);
  float L = 0.f;
  for (int s = lane; s < p.splits; s += 32) {
    const float m = ml[2 * s];
    const float wt = m == -INFINITY ? 0.f : exp2f(m - M);
    weights[warp][s] = wt;
    L += wt * ml[2 * s + 1];
  }
  L = cuda::warp_sum(L);
  __syncwarp();
  const float inv = 1.0f / L;
  const float* po = p.part_o + row * p.splits * p.head_dim;
  for (int d = lane; d < p.head_dim; d += 32) {
    float o = 0.f;
    for (int s = 0; s < p.splits; ++s) o = fmaf(weights[warp][s], po[s * p.head_dim + d], o);
    static_cast<T*>(p.out)[row * p.head_dim + d] = from_float<T>(o * inv);
  }
}

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------

using KernelFn = void (*)(Params);

// cudaFuncAttributeMaxDynamicSharedMemorySize belongs to the kernel, not to a workload:
// one SIMT kernel serves every head size, so a workload that set it to its own, smaller
// need would make a live workload with a larger head size fail its next launch. It is
// therefore only ever raised, to the largest need seen so far on the device, and a need
// past the device's opt-in limit is refused with both figures.
void allow_dynamic_smem(KernelFn kernel, size_t bytes) {
  static std::mutex mutex;
  static std::map<std::pair<int, KernelFn>, size_t> allowed;  // (device, kernel) -> bytes set
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  size_t& current = allowed[{device, kernel}];
  if (bytes <= current) return;
  int optin = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  const size_t limit = static_cast<size_t>(optin) - std::min(static_cast<size_t>(optin), attr.sharedSizeBytes);
  if (bytes > limit)
    throw std::invalid_argument("decode: the CUDA kernel needs " + std::to_string(bytes) +
                                " bytes of dynamic shared memory per block; this device allows " +
                                std::to_string(limit));
  CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  current = bytes;
}

struct Config {
  KernelFn kernel = nullptr;
  size_t smem = 0;
  int tile = 0;
  int heads_per_cta = 1;
  int ctas_per_kv = 1;
  bool tensor_cores = false;
};

template <typename T>
Config simt_config(int dh, int heads_per_cta) {
  Config c;
  c.heads_per_cta = heads_per_cta;
  const int elem = sizeof(T);
  const int rs = (dh + 7) / 8 * 8 + 16 / elem;
  // 64-key tiles while a K tile stays within ~17.5 KiB, else 32 keys
  c.tile = 64 * rs * elem <= 17920 ? 64 : 32;
  const bool one = heads_per_cta == 1;
  if (c.tile == 64)
    c.kernel = one ? decode_simt_kernel<T, 64, 1> : decode_simt_kernel<T, 64, kSimtMaxHeads>;
  else
    c.kernel = one ? decode_simt_kernel<T, 32, 1> : decode_simt_kernel<T, 32, kSimtMaxHeads>;
  c.smem = SimtLayout(dh, elem, c.tile, one ? 1 : kSimtMaxHeads).total;
  return c;
}

template <int DH>
KernelFn mma_kernel_for(int mpc) {
  if (mpc == 1) return decode_mma_kernel<DH, 1>;
  if (mpc == 2) return decode_mma_kernel<DH, 2>;
  return decode_mma_kernel<DH, 4>;
}

template <typename T>
Config choose_config(Impl impl, const Dims& d) {
  const int dh = static_cast<int>(d.head_dim), g = static_cast<int>(d.group());
  Config c;
  if (impl == Impl::naive) {
    c = simt_config<T>(dh, 1);
  } else if (std::is_same_v<T, bf16> && g >= 8 && (dh == 64 || dh == 96 || dh == 128 || dh == 256)) {
    const int m_tiles = (g + 15) / 16;
    const int mpc = m_tiles == 1 ? 1 : m_tiles == 2 ? 2 : 4;
    c.tensor_cores = true;
    c.tile = kMmaTile;
    c.heads_per_cta = 16 * mpc;
    c.smem = mma_smem_bytes(dh, mpc);
    c.kernel = dh == 64    ? mma_kernel_for<64>(mpc)
               : dh == 96  ? mma_kernel_for<96>(mpc)
               : dh == 128 ? mma_kernel_for<128>(mpc)
                           : mma_kernel_for<256>(mpc);
  } else {
    c = simt_config<T>(dh, std::min(g, kSimtMaxHeads));
  }
  c.ctas_per_kv = (g + c.heads_per_cta - 1) / c.heads_per_cta;
  return c;
}

template <typename T>
class CudaDecodeWorkload final : public cuda::CudaWorkload {
 public:
  explicit CudaDecodeWorkload(const RunSpec& spec)
      : impl_(parse_impl(spec.impl)),
        dtype_(spec.dtype),
        d_(dims_of(spec.shape)),
        q_(dtype_, d_.batch * d_.q_heads * d_.head_dim),
        k_(dtype_, d_.batch * d_.kv_heads * d_.context * d_.head_dim),
        v_(dtype_, k_.size()),
        out_(dtype_, q_.size()) {
    if (d_.head_dim > kMaxHeadDim)
      throw std::invalid_argument("decode on CUDA supports head_dim up to " + std::to_string(kMaxHeadDim) +
                                  " (got " + std::to_string(d_.head_dim) + ")");
    config_ = choose_config<T>(impl_, d_);
    allow_dynamic_smem(config_.kernel, config_.smem);

    // Split the context so that the B·Hkv·(head chunks)·splits CTAs fill every SM at the
    // kernel's occupancy: with equal CTAs the run takes waves(s) = ceil(items·s / slots)
    // rounds of L/s keys, so pick the split count s minimising waves(s)/s (the smallest
    // s within 2 % of the best, as every split adds partials and combine work), with
    // at least two tiles per split.
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, config_.kernel, kThreads, config_.smem));
    if (per_sm < 1) throw std::runtime_error("decode: the CUDA kernel does not fit on an SM");
    const int64_t items = d_.batch * d_.kv_heads * config_.ctas_per_kv;
    const int64_t slots = static_cast<int64_t>(sms) * per_sm;
    const int64_t most = std::max<int64_t>(1, std::min<int64_t>(kMaxSplits, d_.context / (2 * config_.tile)));
    int64_t splits = 1;
    double best = std::numeric_limits<double>::infinity();
    for (int64_t s = 1; s <= most; ++s) {
      const double time = static_cast<double>((items * s + slots - 1) / slots) / static_cast<double>(s);
      if (time < best * 0.98) {
        best = time;
        splits = s;
      }
    }
    int64_t chunk = (d_.context + splits - 1) / splits;
    chunk = (chunk + config_.tile - 1) / config_.tile * config_.tile;
    splits = (d_.context + chunk - 1) / chunk;  // no empty split

    params_.q = q_.data();
    params_.k = k_.data();
    params_.v = v_.data();
    params_.out = out_.data();
    params_.context = d_.context;
    params_.chunk = chunk;
    params_.q_heads = static_cast<int>(d_.q_heads);
    params_.kv_heads = static_cast<int>(d_.kv_heads);
    params_.group = static_cast<int>(d_.group());
    params_.head_dim = static_cast<int>(d_.head_dim);
    params_.splits = static_cast<int>(splits);
    params_.heads_per_cta = config_.heads_per_cta;
    params_.ctas_per_kv = config_.ctas_per_kv;
    params_.scale_log2 = kLog2e / std::sqrt(static_cast<float>(d_.head_dim));
    if (splits > 1) {
      part_o_ = cuda::DeviceBuffer<float>(static_cast<size_t>(d_.batch * d_.q_heads * splits * d_.head_dim));
      part_ml_ = cuda::DeviceBuffer<float>(static_cast<size_t>(d_.batch * d_.q_heads * splits * 2));
      params_.part_o = part_o_.data();
      params_.part_ml = part_ml_.data();
    }
    grid_ = dim3(static_cast<unsigned>(items), static_cast<unsigned>(splits));

    // benchmark inputs, generated on the device
    uint64_t seed = 0x5EED0000ull;
    for (cuda::DeviceTensor* t : {&q_, &k_, &v_}) {
      cuda::fill_uniform_on_device(t->template as<T>(), t->size(), ++seed, 1.0f, stream());
      CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaStreamSynchronize(stream()));
  }

  void run() override {
    config_.kernel<<<grid_, kThreads, config_.smem, stream()>>>(params_);
    CUDA_CHECK_LAUNCH();
    if (params_.splits > 1) {
      const int64_t rows = d_.batch * d_.q_heads;
      combine_kernel<T><<<cuda::blocks_for(rows, kThreads / 32), kThreads, 0, stream()>>>(params_, rows);
      CUDA_CHECK_LAUNCH();
    }
  }

  Validation validate(uint64_t seed) override {
    std::vector<float> q(q_.size()), k(k_.size()), v(v_.size());
    fill_inputs(seed, span_of(q), span_of(k), span_of(v));
    for (auto* x : {&q, &k, &v}) cuda::round_to_dtype(dtype_, span_of(*x));
    q_.upload(span_of(q), stream());
    k_.upload(span_of(k), stream());
    v_.upload(span_of(v), stream());
    if (params_.splits > 1) {  // the split partials too: a combine reading unwritten ones fails
      CUDA_CHECK(cudaMemsetAsync(part_o_.data(), 0xFF, part_o_.bytes(), stream()));
      CUDA_CHECK(cudaMemsetAsync(part_ml_.data(), 0xFF, part_ml_.bytes(), stream()));
    }
    return run_against_reference(out_, tolerance_for(dtype_), [&](std::span<double> ref) {
      reference(d_, span_of(q), span_of(k), span_of(v), ref);
    });
  }

 private:
  Impl impl_;
  DType dtype_;
  Dims d_;
  cuda::DeviceTensor q_, k_, v_, out_;
  cuda::DeviceBuffer<float> part_o_, part_ml_;
  Config config_;
  Params params_{};
  dim3 grid_;
};

}  // namespace

std::unique_ptr<Workload> make_cuda(const RunSpec& spec) {
  return cuda::with_storage_type(spec.dtype, [&]<typename T>() -> std::unique_ptr<Workload> {
    return std::make_unique<CudaDecodeWorkload<T>>(spec);
  });
}

}  // namespace lmroof::decode
