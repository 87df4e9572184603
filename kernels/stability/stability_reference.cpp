// float64 reference of the stability pair and the host inputs both backends share.
#include <algorithm>
#include <cmath>
#include <random>

#include "block/block.h"
#include "common/host_data.h"
#include "norm/norm.h"
#include "stability/stability.h"

namespace lmroof::stability {

size_t output_size(Trick trick, Dims d) {
  if (trick == Trick::zloss || trick == Trick::logit_softcap) return static_cast<size_t>(d.tokens);
  return static_cast<size_t>(d.rows(trick) * d.width(trick));
}

void HostInputs::randomize(Trick trick, Dims d, uint64_t seed) {
  const auto elements = static_cast<size_t>(d.rows(trick) * d.width(trick));
  if (trick == Trick::qknorm) {
    a.resize(static_cast<size_t>(d.tokens * d.q_heads * d.head_dim));
    b.resize(static_cast<size_t>(d.tokens * d.kv_heads * d.head_dim));
    gamma_q.resize(static_cast<size_t>(d.head_dim));
    gamma_k.resize(static_cast<size_t>(d.head_dim));
    fill_uniform(a, seed, -2.f, 2.f);
    fill_uniform(b, seed + 1, -2.f, 2.f);
    fill_uniform(gamma_q, seed + 2, 0.5f, 1.5f);
    fill_uniform(gamma_k, seed + 3, 0.5f, 1.5f);
    // The block's RoPE tables (they depend on tokens and head_dim only).
    block::rope_tables({d.tokens, 0, 0, 0, d.head_dim}, cos_table, sin_table);
    return;
  }
  // Logits and scores reach past the cap, so that capping changes the result: a run
  // that forgot it fails validation.
  a.resize(elements);
  const float range = (trick == Trick::attn_softcap ? 1.2f * kAttnCap : 1.5f * kLogitCap);
  fill_uniform(a, seed, -range, range);
  if (trick == Trick::zloss || trick == Trick::logit_softcap) {
    targets.resize(static_cast<size_t>(d.tokens));
    std::mt19937_64 rng(seed + 1);
    std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(d.vocab - 1));
    for (auto& t : targets) t = pick(rng);
  }
}

namespace {

// rope(rmsnorm(x)·gamma) (or rope(x)) of `heads` heads of every token, angles in double.
void qk_rows(Dims d, int64_t heads, const float* x, const float* gamma, bool norm, double* out) {
  const int64_t dh = d.head_dim, half = dh / 2;
  std::vector<double> row(static_cast<size_t>(dh));
  for (int64_t t = 0; t < d.tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const float* in = x + (t * heads + h) * dh;
      double r = 1;
      if (norm) {
        double ms = 0;
        for (int64_t i = 0; i < dh; ++i) ms += static_cast<double>(in[i]) * in[i];
        r = 1.0 / std::sqrt(ms / static_cast<double>(dh) + norm::kEps);
      }
      for (int64_t i = 0; i < dh; ++i) row[i] = norm ? in[i] * r * gamma[i] : in[i];
      double* o = out + (t * heads + h) * dh;
      for (int64_t i = 0; i < half; ++i) {
        const double theta = std::pow(block::kRopeBase, -2.0 * static_cast<double>(i) / static_cast<double>(dh));
        const double c = std::cos(static_cast<double>(t) * theta), s = std::sin(static_cast<double>(t) * theta);
        o[i] = row[i] * c - row[i + half] * s;
        o[i + half] = row[i + half] * c + row[i] * s;
      }
    }
}

}  // namespace

std::vector<double> reference(Trick trick, bool with_trick, Dims d, const HostInputs& in) {
  std::vector<double> out(output_size(trick, d));
  if (trick == Trick::qknorm) {
    qk_rows(d, d.q_heads, in.a.data(), in.gamma_q.data(), with_trick, out.data());
    qk_rows(d, d.kv_heads, in.b.data(), in.gamma_k.data(), with_trick,
            out.data() + d.tokens * d.q_heads * d.head_dim);
    return out;
  }
  const double cap = with_trick ? cap_of(trick) : 0.0;
  const int64_t R = d.rows(trick), W = d.width(trick);
  std::vector<double> c(static_cast<size_t>(W));
#pragma omp parallel for schedule(static) firstprivate(c)
  for (int64_t r = 0; r < R; ++r) {
    const float* x = in.a.data() + r * W;
    double m = -INFINITY;
    for (int64_t j = 0; j < W; ++j) {
      c[j] = cap > 0 ? cap * std::tanh(x[j] / cap) : x[j];
      m = std::max(m, c[j]);
    }
    double sum = 0;
    for (int64_t j = 0; j < W; ++j) sum += std::exp(c[j] - m);
    if (trick == Trick::attn_softcap) {
      for (int64_t j = 0; j < W; ++j) out[r * W + j] = std::exp(c[j] - m) / sum;
    } else {
      const double lse = m + std::log(sum);
      out[r] = lse - c[in.targets[r]] + (trick == Trick::zloss && with_trick ? kZLossCoef * lse * lse : 0.0);
    }
  }
  return out;
}

}  // namespace lmroof::stability
