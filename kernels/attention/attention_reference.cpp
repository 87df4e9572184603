// float64 reference of the attention layer (both phases) and its host data.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention/attention.h"
#include "common/host_data.h"

namespace lmroof::attention {

HostLayer::HostLayer(Phase phase, Dims d)
    : dims(d),
      w_qkv(d.qkv_dim() * d.d_model),
      w_o(d.d_model * d.q_dim()),
      x((phase == Phase::prefill ? d.batch * d.context : d.batch) * d.d_model) {
  if (phase == Phase::decode) {
    k_cache.resize(d.batch * d.kv_heads * d.context * d.head_dim);
    v_cache.resize(k_cache.size());
  }
}

void HostLayer::randomize(uint64_t seed) {
  fill_uniform(x, seed);
  fill_uniform(k_cache, seed + 3);
  fill_uniform(v_cache, seed + 4);
  const float a_in = 1.0f / std::sqrt(static_cast<float>(dims.d_model));
  const float a_o = 1.0f / std::sqrt(static_cast<float>(dims.q_dim()));
  fill_uniform(w_qkv, seed + 1, -a_in, a_in);
  fill_uniform(w_o, seed + 2, -a_o, a_o);
}

namespace {

// y[r, :] = a[r, :] · wᵀ for r < rows; w is [out, in].
void linear(int64_t rows, int64_t in, int64_t out, const double* a, const float* w, double* y) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double acc = 0;
      for (int64_t i = 0; i < in; ++i) acc += a[r * in + i] * w[o * in + i];
      y[r * out + o] = acc;
    }
}

// Softmax-weighted sum of `keys` value rows for one query row; k(j) and v(j) give row j.
template <typename KRow, typename VRow>
void attend(int64_t keys, int64_t dh, const double* q, KRow k, VRow v, double* o) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  std::vector<double> score(keys);
  double mx = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < keys; ++j) {
    double dot = 0;
    for (int64_t i = 0; i < dh; ++i) dot += q[i] * k(j, i);
    score[j] = dot * scale;
    mx = std::max(mx, score[j]);
  }
  double sum = 0;
  for (auto& sc : score) sum += (sc = std::exp(sc - mx));
  for (int64_t i = 0; i < dh; ++i) o[i] = 0;
  for (int64_t j = 0; j < keys; ++j)
    for (int64_t i = 0; i < dh; ++i) o[i] += score[j] * v(j, i);
  for (int64_t i = 0; i < dh; ++i) o[i] /= sum;
}

}  // namespace

void reference(Phase phase, Dims d, const HostLayer& in, std::span<double> y) {
  const int64_t B = d.batch, n = d.context, dh = d.head_dim, Hq = d.q_heads, Hkv = d.kv_heads;
  const int64_t g = Hq / Hkv, Dq = d.q_dim(), Dkv = d.kv_dim(), ld = d.qkv_dim();
  const int64_t T = phase == Phase::prefill ? B * n : B;  // rows of x
  const std::vector<double> x(in.x.begin(), in.x.end());
  std::vector<double> qkv(T * ld), o(T * Dq);
  linear(T, d.d_model, ld, x.data(), in.w_qkv.data(), qkv.data());
  if (phase == Phase::prefill) {
#pragma omp parallel for schedule(dynamic)
    for (int64_t bh = 0; bh < B * Hq; ++bh) {
      const int64_t b = bh / Hq, h = bh % Hq, kvh = h / g;
      const double* base = qkv.data() + b * n * ld;
      for (int64_t i = 0; i < n; ++i)
        attend(
            i + 1, dh, base + i * ld + h * dh, [&](int64_t j, int64_t e) { return base[j * ld + Dq + kvh * dh + e]; },
            [&](int64_t j, int64_t e) { return base[j * ld + Dq + Dkv + kvh * dh + e]; },
            o.data() + (b * n + i) * Dq + h * dh);
    }
  } else {
#pragma omp parallel for schedule(dynamic)
    for (int64_t bh = 0; bh < B * Hq; ++bh) {
      const int64_t b = bh / Hq, h = bh % Hq, kvh = h / g;
      const double* row = qkv.data() + b * ld;
      const float* kc = in.k_cache.data() + (b * Hkv + kvh) * n * dh;
      const float* vc = in.v_cache.data() + (b * Hkv + kvh) * n * dh;
      // positions 0 .. n-2 from the cache, position n-1 is the new token's k and v
      auto k = [&](int64_t j, int64_t e) {
        return j == n - 1 ? row[Dq + kvh * dh + e] : static_cast<double>(kc[j * dh + e]);
      };
      auto v = [&](int64_t j, int64_t e) {
        return j == n - 1 ? row[Dq + Dkv + kvh * dh + e] : static_cast<double>(vc[j * dh + e]);
      };
      attend(n, dh, row + h * dh, k, v, o.data() + b * Dq + h * dh);
    }
  }
  linear(T, Dq, d.d_model, o.data(), in.w_o.data(), y.data());
}

}  // namespace lmroof::attention
