// CPU kernels for the decode pair. Both levels run the same flash-decoding loop
// (scores for a block of positions, online softmax with a running max and sum per
// query head, then P·V) on one work item: a kv head's K/V rows and some query
// heads. "naive" gives each work item one query head, so the g heads of a group
// each stream their kv head's K and V; "grouped" gives it the whole group, so each
// K and V row is loaded once and used by all g heads while it sits in L1.
// OpenMP runs the work items in parallel; when there are too few of them the
// context is split (context_splits) and the pieces combined at the end.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/host_data.h"
#include "decode/decode.h"

namespace lmroof::decode {

namespace {

constexpr int64_t kBlock = 64;  // positions scored before one softmax update
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
      for (int64_t j = 0; j < nb; ++j) mx = std::max(mx, si[j]);
      const float corr = std::exp(m[i] - mx);  // 0 on the first block (m = -inf)
      if (corr != 1.0f) {
        l[i] *= corr;
        float* __restrict ai = acc + i * dh;
#pragma omp simd
        for (int64_t x = 0; x < dh; ++x) ai[x] *= corr;
      }
      float sum = 0;
      for (int64_t j = 0; j < nb; ++j) {
        si[j] = std::exp(si[j] - mx);
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

}  // namespace

size_t cpu_partial_floats(Impl impl, Dims d) {
  const int64_t splits = context_splits(Backend::cpu, impl, d);
  return splits > 1 ? static_cast<size_t>(d.batch * d.q_heads * splits * (d.head_dim + 2)) : 0;
}

void cpu_decode(Impl impl, Dims d, const float* q, const float* k, const float* v, float* out, float* partials) {
  const int64_t Hq = d.q_heads, Hkv = d.kv_heads, dh = d.head_dim, L = d.context, g = d.group();
  const int64_t splits = context_splits(Backend::cpu, impl, d);
  const int64_t n = impl == Impl::naive ? 1 : g;  // query heads per work item
  const int64_t units = Hq / n;                   // work items per sequence before the split
  const int64_t items = d.batch * units * splits;
  const int64_t chunk = (L + splits - 1) / splits;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const int64_t pstride = dh + 2;  // one partial: unnormalised output, max, sum

#pragma omp parallel
  {
    Scratch w(n, dh);
#pragma omp for schedule(static)
    for (int64_t item = 0; item < items; ++item) {
      const int64_t piece = item % splits, u = (item / splits) % units, b = item / (splits * units);
      const int64_t h0 = u * n, kvh = h0 / g;
      const int64_t lo = std::min(L, piece * chunk), hi = std::min(L, lo + chunk);
      const float* kb = k + (b * Hkv + kvh) * L * dh;
      const float* vb = v + (b * Hkv + kvh) * L * dh;
      attend(n, dh, scale, q + (b * Hq + h0) * dh, kb, vb, lo, hi, w);
      for (int64_t i = 0; i < n; ++i) {
        const float* __restrict ai = w.acc.data() + i * dh;
        if (splits == 1) {
          float* __restrict o = out + (b * Hq + h0 + i) * dh;
          const float inv = 1.0f / w.l[i];
#pragma omp simd
          for (int64_t x = 0; x < dh; ++x) o[x] = ai[x] * inv;
        } else {
          float* __restrict p = partials + ((b * Hq + h0 + i) * splits + piece) * pstride;
          std::copy(ai, ai + dh, p);
          p[dh] = w.m[i];
          p[dh + 1] = w.l[i];
        }
      }
    }
    if (splits > 1) {
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
    randomize(1);
  }

  void run() override { cpu_decode(impl_, dims_, q_.data(), k_.data(), v_.data(), out_.data(), partials_.data()); }

  Validation validate(uint64_t seed) override {
    randomize(seed);
    poison(out_);
    poison(partials_);
    run();
    std::vector<double> ref(out_.size());
    reference(dims_, q_, k_, v_, ref);
    return {relative_error<float>(out_, ref), tolerance_for(DType::fp32)};
  }

 private:
  void randomize(uint64_t seed) {
    fill_uniform(q_, seed);
    fill_uniform(k_, seed + 1);
    fill_uniform(v_, seed + 2);
  }

  Impl impl_;
  Dims dims_;
  std::vector<float> q_, k_, v_, out_, partials_;
};

}  // namespace

std::unique_ptr<Workload> make_cpu(const RunSpec& spec) { return std::make_unique<CpuDecodeWorkload>(spec); }

}  // namespace lmroof::decode
