#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/host_data.h"
#include "decode/decode.h"

namespace lmroof::decode {

void reference(Dims d, std::span<const float> q, std::span<const float> k, std::span<const float> v,
               std::span<double> out) {
  const int64_t Hq = d.q_heads, Hkv = d.kv_heads, dh = d.head_dim, L = d.context, g = d.group();
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  // (batch, head) rows are independent; threads only make a large reference bearable.
#pragma omp parallel
  {
    std::vector<double> score(L);
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < d.batch * Hq; ++bh) {
      const int64_t b = bh / Hq, h = bh % Hq, kvh = h / g;
      const float* qr = q.data() + bh * dh;
      const float* kb = k.data() + (b * Hkv + kvh) * L * dh;
      const float* vb = v.data() + (b * Hkv + kvh) * L * dh;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < L; ++j) {
        double dot = 0;
        for (int64_t i = 0; i < dh; ++i) dot += static_cast<double>(qr[i]) * kb[j * dh + i];
        score[j] = dot * scale;
        mx = std::max(mx, score[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < L; ++j) {
        score[j] = std::exp(score[j] - mx);
        sum += score[j];
      }
      double* o = out.data() + bh * dh;
      for (int64_t i = 0; i < dh; ++i) o[i] = 0;
      for (int64_t j = 0; j < L; ++j)
        for (int64_t i = 0; i < dh; ++i) o[i] += score[j] * vb[j * dh + i];
      for (int64_t i = 0; i < dh; ++i) o[i] /= sum;
    }
  }
}

void fill_inputs(uint64_t seed, std::span<float> q, std::span<float> k, std::span<float> v) {
  fill_uniform(q, seed);
  fill_uniform(k, seed + 1);
  fill_uniform(v, seed + 2);
}

}  // namespace lmroof::decode
