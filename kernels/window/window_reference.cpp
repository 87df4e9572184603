// float64 reference of a sliding-window decode layer, and the rolling buffer.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "window/window.h"

namespace lmroof::window {

void reference(decode::Dims h, int64_t window, std::span<const float> q, std::span<const float> k,
               std::span<const float> v, std::span<double> out) {
  const int64_t Hq = h.q_heads, Hkv = h.kv_heads, dh = h.head_dim, n = h.context, g = h.group();
  const int64_t lo = std::max<int64_t>(0, n - window);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
#pragma omp parallel
  {
    std::vector<double> score(n - lo);
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < h.batch * Hq; ++bh) {
      const int64_t b = bh / Hq, kvh = (bh % Hq) / g;
      const float* qr = q.data() + bh * dh;
      const float* kb = k.data() + (b * Hkv + kvh) * n * dh;
      const float* vb = v.data() + (b * Hkv + kvh) * n * dh;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = lo; j < n; ++j) {
        double dot = 0;
        for (int64_t i = 0; i < dh; ++i) dot += static_cast<double>(qr[i]) * kb[j * dh + i];
        score[j - lo] = dot * scale;
        mx = std::max(mx, score[j - lo]);
      }
      double sum = 0;
      for (auto& s : score) sum += (s = std::exp(s - mx));
      double* o = out.data() + bh * dh;
      std::fill(o, o + dh, 0.0);
      for (int64_t j = lo; j < n; ++j)
        for (int64_t i = 0; i < dh; ++i) o[i] += score[j - lo] * vb[j * dh + i];
      for (int64_t i = 0; i < dh; ++i) o[i] /= sum;
    }
  }
}

void to_rolling_buffer(decode::Dims h, int64_t window, std::span<const float> full, std::span<float> ring) {
  const int64_t n = h.context, dh = h.head_dim, rows = std::min(n, window);
  for (int64_t r = 0; r < h.batch * h.kv_heads; ++r)
    for (int64_t p = n - rows; p < n; ++p)
      std::memcpy(ring.data() + (r * rows + p % window) * dh, full.data() + (r * n + p) * dh, dh * sizeof(float));
}

}  // namespace lmroof::window
