// float64 reference of both block variants, and the host-side data both backends
// share: weight storage and initialisation, RoPE tables.
//
// The reference follows the logical definition in block.h, one primitive at a time,
// reading the weights through WeightsView: it knows nothing of the fused layouts, so
// validating against it also checks that the kernels pack and slice them correctly.
#include <algorithm>
#include <cmath>
#include <vector>

#include "block/block.h"
#include "common/host_data.h"
#include "norm/norm.h"

namespace lmroof::block {

HostWeights::HostWeights(Variant v, Dims d) : variant(v), dims(d) {
  const int64_t D = d.d_model, F = d.d_ff;
  gamma1.resize(D);
  if (v == Variant::serial) gamma2.resize(D);
  gamma_q.resize(d.head_dim);
  gamma_k.resize(d.head_dim);
  w_in.resize((3 * D + 2 * F) * D);
  if (v == Variant::serial) {
    w_out.resize(D * D);
    w_down.resize(D * F);
  } else {
    w_out.resize(D * (D + F));
  }
}

void HostWeights::randomize(uint64_t seed) {
  const int64_t D = dims.d_model, F = dims.d_ff;
  const float sd = 1.0f / std::sqrt(static_cast<float>(D)), sf = 1.0f / std::sqrt(static_cast<float>(F));
  fill_uniform(gamma1, seed, 0.5f, 1.5f);
  fill_uniform(gamma2, seed + 1, 0.5f, 1.5f);
  fill_uniform(gamma_q, seed + 5, 0.5f, 1.5f);
  fill_uniform(gamma_k, seed + 6, 0.5f, 1.5f);
  fill_uniform(w_in, seed + 2, -sd, sd);
  if (variant == Variant::serial) {
    fill_uniform(w_out, seed + 3, -sd, sd);
    fill_uniform(w_down, seed + 4, -sf, sf);
  } else {
    // [Wo | Wdown]: columns 0..d have fan-in d, columns d..d+d_ff fan-in d_ff.
    fill_uniform(w_out, seed + 3, -1.f, 1.f);
    for (int64_t r = 0; r < D; ++r) {
      float* row = w_out.data() + r * (D + F);
      for (int64_t i = 0; i < D; ++i) row[i] *= sd;
      for (int64_t i = D; i < D + F; ++i) row[i] *= sf;
    }
  }
}

WeightsView HostWeights::view() const {
  const int64_t D = dims.d_model, F = dims.d_ff;
  WeightsView v;
  v.gamma1 = gamma1.data();
  v.gamma2 = variant == Variant::serial ? gamma2.data() : nullptr;
  v.gamma_q = gamma_q.data();
  v.gamma_k = gamma_k.data();
  v.wqkv = {w_in.data(), D};
  v.wgate = {w_in.data() + 3 * D * D, D};
  v.wup = {w_in.data() + (3 * D + F) * D, D};
  if (variant == Variant::serial) {
    v.wo = {w_out.data(), D};
    v.wdown = {w_down.data(), F};
  } else {
    v.wo = {w_out.data(), D + F};
    v.wdown = {w_out.data() + D, D + F};
  }
  return v;
}

void rope_tables(Dims d, std::vector<float>& cos_table, std::vector<float>& sin_table) {
  const int64_t half = d.head_dim / 2;
  cos_table.resize(d.tokens * half);
  sin_table.resize(d.tokens * half);
  for (int64_t i = 0; i < half; ++i) {
    const double theta = std::pow(kRopeBase, -2.0 * static_cast<double>(i) / static_cast<double>(d.head_dim));
    for (int64_t t = 0; t < d.tokens; ++t) {
      cos_table[t * half + i] = static_cast<float>(std::cos(static_cast<double>(t) * theta));
      sin_table[t * half + i] = static_cast<float>(std::sin(static_cast<double>(t) * theta));
    }
  }
}

namespace {

using Buf = std::vector<double>;

void rmsnorm(int64_t T, int64_t D, const double* x, const float* gamma, double* y) {
  for (int64_t t = 0; t < T; ++t) {
    const double* row = x + t * D;
    double ms = 0;
    for (int64_t i = 0; i < D; ++i) ms += row[i] * row[i];
    const double rstd = 1.0 / std::sqrt(ms / static_cast<double>(D) + norm::kEps);
    for (int64_t i = 0; i < D; ++i) y[t * D + i] = row[i] * rstd * gamma[i];
  }
}

// c[T, out] (+)= a[T, in] · wᵀ. Blocked over 16 weight rows (converted to double once)
// and parallel over them, so that the reference stays usable at suite shapes.
void linear(int64_t T, int64_t in, int64_t out, const double* a, Linear w, double* c, bool accumulate) {
  constexpr int64_t kRows = 16;
#pragma omp parallel
  {
    std::vector<double> wd(kRows * in);
#pragma omp for schedule(static)
    for (int64_t o0 = 0; o0 < out; o0 += kRows) {
      const int64_t rows = std::min(kRows, out - o0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t i = 0; i < in; ++i) wd[r * in + i] = w.w[(o0 + r) * w.ld + i];
      for (int64_t t = 0; t < T; ++t) {
        const double* ar = a + t * in;
        for (int64_t r = 0; r < rows; ++r) {
          const double* wr = wd.data() + r * in;
          double acc = 0;
#pragma omp simd reduction(+ : acc)
          for (int64_t i = 0; i < in; ++i) acc += ar[i] * wr[i];
          double& dst = c[t * out + o0 + r];
          dst = accumulate ? dst + acc : acc;
        }
      }
    }
  }
}

// Rotate-half RoPE in place on the heads of a [T, D] tensor, angles computed in double.
void rope(const Dims& d, double* x) {
  const int64_t half = d.head_dim / 2;
  for (int64_t t = 0; t < d.tokens; ++t)
    for (int64_t h = 0; h < d.q_heads; ++h) {
      double* p = x + t * d.d_model + h * d.head_dim;
      for (int64_t i = 0; i < half; ++i) {
        const double theta = std::pow(kRopeBase, -2.0 * static_cast<double>(i) / static_cast<double>(d.head_dim));
        const double c = std::cos(static_cast<double>(t) * theta), s = std::sin(static_cast<double>(t) * theta);
        const double x1 = p[i], x2 = p[i + half];
        p[i] = x1 * c - x2 * s;
        p[i + half] = x2 * c + x1 * s;
      }
    }
}

// Causal softmax(q kᵀ / sqrt(dh)) v per head, the scores soft-capped when d.softcap > 0;
// q, k, v, out are [T, D].
void attention(const Dims& d, const double* q, const double* k, const double* v, double* out) {
  const double cap = static_cast<double>(d.softcap);
  const int64_t T = d.tokens, D = d.d_model, dh = d.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
#pragma omp parallel
  {
    std::vector<double> p(T);
#pragma omp for collapse(2) schedule(dynamic, 16)
    for (int64_t h = 0; h < d.q_heads; ++h)
      for (int64_t i = 0; i < T; ++i) {
        const double* qi = q + i * D + h * dh;
        double m = -INFINITY;
        for (int64_t j = 0; j <= i; ++j) {
          const double* kj = k + j * D + h * dh;
          double s = 0;
          for (int64_t e = 0; e < dh; ++e) s += qi[e] * kj[e];
          p[j] = s * scale;
          if (cap > 0) p[j] = cap * std::tanh(p[j] / cap);
          m = std::max(m, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j <= i; ++j) sum += (p[j] = std::exp(p[j] - m));
        double* o = out + i * D + h * dh;
        for (int64_t e = 0; e < dh; ++e) o[e] = 0;
        for (int64_t j = 0; j <= i; ++j) {
          const double* vj = v + j * D + h * dh;
          for (int64_t e = 0; e < dh; ++e) o[e] += p[j] * vj[e];
        }
        for (int64_t e = 0; e < dh; ++e) o[e] /= sum;
      }
  }
}

// a = silu(g) ⊙ u
void swiglu(size_t n, const double* g, const double* u, double* a) {
  for (size_t i = 0; i < n; ++i) a[i] = g[i] / (1.0 + std::exp(-g[i])) * u[i];
}

}  // namespace

void reference(Variant variant, Dims d, const WeightsView& w, std::span<const float> x, std::span<double> y) {
  const int64_t T = d.tokens, D = d.d_model, F = d.d_ff;
  const size_t TD = static_cast<size_t>(T * D), TF = static_cast<size_t>(T * F);
  const Linear wq{w.wqkv.w, w.wqkv.ld}, wk{w.wqkv.w + D * w.wqkv.ld, w.wqkv.ld},
      wv{w.wqkv.w + 2 * D * w.wqkv.ld, w.wqkv.ld};
  const Buf xd = to_double(x);
  Buf n(TD), q(TD), k(TD), v(TD), att(TD), o(TD), g(TF), u(TF), act(TF);

  rmsnorm(T, D, xd.data(), w.gamma1, n.data());
  linear(T, D, D, n.data(), wq, q.data(), false);
  linear(T, D, D, n.data(), wk, k.data(), false);
  linear(T, D, D, n.data(), wv, v.data(), false);
  if (d.qk_norm) {  // per head: [T, D] is [T·H, dh]
    rmsnorm(T * d.q_heads, d.head_dim, q.data(), w.gamma_q, q.data());
    rmsnorm(T * d.q_heads, d.head_dim, k.data(), w.gamma_k, k.data());
  }
  rope(d, q.data());
  rope(d, k.data());
  attention(d, q.data(), k.data(), v.data(), att.data());
  linear(T, D, D, att.data(), w.wo, o.data(), false);

  if (variant == Variant::serial) {
    Buf h(TD), m(TD);
    for (size_t i = 0; i < TD; ++i) h[i] = xd[i] + o[i];
    rmsnorm(T, D, h.data(), w.gamma2, n.data());
    linear(T, D, F, n.data(), w.wgate, g.data(), false);
    linear(T, D, F, n.data(), w.wup, u.data(), false);
    swiglu(TF, g.data(), u.data(), act.data());
    linear(T, F, D, act.data(), w.wdown, m.data(), false);
    for (size_t i = 0; i < TD; ++i) y[i] = h[i] + m[i];
  } else {
    // Both branches read the same n; their projections are summed before one residual.
    linear(T, D, F, n.data(), w.wgate, g.data(), false);
    linear(T, D, F, n.data(), w.wup, u.data(), false);
    swiglu(TF, g.data(), u.data(), act.data());
    linear(T, F, D, act.data(), w.wdown, o.data(), /*accumulate=*/true);
    for (size_t i = 0; i < TD; ++i) y[i] = xd[i] + o[i];
  }
}

}  // namespace lmroof::block
