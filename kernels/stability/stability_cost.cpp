// Shape completion and cost model for the stability pair; formulas in
// docs/cost-model.md#stability.
#include <fmt/format.h>

#include <stdexcept>

#include "stability/stability.h"

namespace lmroof::stability {

Trick parse_trick(std::string_view variant) {
  if (variant == "qknorm") return Trick::qknorm;
  if (variant == "zloss") return Trick::zloss;
  if (variant == "logit_softcap") return Trick::logit_softcap;
  if (variant == "attn_softcap") return Trick::attn_softcap;
  throw std::invalid_argument(
      fmt::format("stability has no variant '{}' (known: qknorm, zloss, logit_softcap, attn_softcap)", variant));
}

Level parse_level(std::string_view impl) {
  if (impl == "without") return Level::without;
  if (impl == "unfused") return Level::unfused;
  if (impl == "fused") return Level::fused;
  throw std::invalid_argument(
      fmt::format("stability has no implementation level '{}' (known: without, unfused, fused)", impl));
}

float cap_of(Trick trick) {
  if (trick == Trick::logit_softcap) return kLogitCap;
  if (trick == Trick::attn_softcap) return kAttnCap;
  return 0.f;
}

int64_t Dims::rows(Trick trick) const {
  switch (trick) {
    case Trick::qknorm: return tokens * (q_heads + kv_heads);
    case Trick::zloss:
    case Trick::logit_softcap: return tokens;
    case Trick::attn_softcap: return q_heads * tokens;
  }
  return 0;
}

int64_t Dims::width(Trick trick) const {
  switch (trick) {
    case Trick::qknorm: return head_dim;
    case Trick::zloss:
    case Trick::logit_softcap: return vocab;
    case Trick::attn_softcap: return context;
  }
  return 0;
}

namespace {
std::vector<std::string_view> dims_for(Trick trick) {
  switch (trick) {
    case Trick::qknorm: return {"tokens", "q_heads", "kv_heads", "head_dim"};
    case Trick::zloss:
    case Trick::logit_softcap: return {"tokens", "vocab"};
    case Trick::attn_softcap: return {"tokens", "q_heads", "context"};
  }
  return {};
}
}  // namespace

Shape complete_shape(Trick trick, const Shape& s) {
  Shape out;
  for (auto name : dims_for(trick)) {
    require_dims(s, {name});
    out.set(std::string(name), s[name]);
  }
  const Dims d = dims_of(trick, out);
  if (trick == Trick::qknorm && d.head_dim % 2 != 0)
    throw std::invalid_argument(fmt::format("stability: head_dim={} must be even (RoPE rotates pairs)", d.head_dim));
  // the unfused levels keep one more tensor of this size beside input and output
  require_elements(out, trick == Trick::qknorm ? "q|k" : trick == Trick::attn_softcap ? "scores" : "logits",
                   static_cast<double>(d.rows(trick)) * static_cast<double>(d.width(trick)));
  return out;
}

Dims dims_of(Trick trick, const Shape& s) {
  Dims d;
  d.tokens = s["tokens"];
  if (trick == Trick::qknorm) {
    d.q_heads = s["q_heads"], d.kv_heads = s["kv_heads"], d.head_dim = s["head_dim"];
  } else if (trick == Trick::attn_softcap) {
    d.q_heads = s["q_heads"], d.context = s["context"];
  } else {
    d.vocab = s["vocab"];
  }
  return d;
}

std::vector<Pass> passes(Trick trick, Level level, Dims d, int element_bytes) {
  const double s = element_bytes, T = static_cast<double>(d.tokens);
  const double R = static_cast<double>(d.rows(trick));
  const double E = R * static_cast<double>(d.width(trick));  // elements touched
  switch (trick) {
    case Trick::qknorm: {
      const double tables = 4.0 * T * static_cast<double>(d.head_dim);  // cos + sin, fp32
      const double gammas = 2.0 * static_cast<double>(d.head_dim) * s;  // gamma_q, gamma_k
      const FlopCount rope{0, 3 * E, 0};  // per rotated pair 4 mul + 2 add
      // RMSNorm per head row: square, sum, ·rstd, ·gamma per element; /dh, +eps and an rsqrt per row
      const FlopCount rms{0, 4 * E + 2 * R, R};
      if (level == Level::without) return {{"rope(q), rope(k)", E * s + tables, E * s, rope}};
      if (level == Level::unfused)
        return {{"rmsnorm(q), rmsnorm(k)", E * s + gammas, E * s, rms}, {"rope(q), rope(k)", E * s + tables, E * s, rope}};
      FlopCount both = rms;
      both += rope;
      return {{"rope(rmsnorm(q)), rope(rmsnorm(k))", E * s + gammas + tables, E * s, both}};
    }
    // cross-entropy: per logit max, subtract, sum (3) and exp; per row log (special),
    // + max and − the target's logit (2)
    case Trick::zloss: {
      const FlopCount ce_flops{0, 3 * E + 2 * R, E + R};
      const FlopCount square{0, 3 * R, 0};  // lse², · coef, + loss
      const Pass ce{"loss = cross_entropy(logits, targets)", E * s + 4 * T, 4 * T, ce_flops};
      if (level == Level::without) return {ce};
      if (level == Level::unfused)  // the separate logsumexp recomputes max, subtract, sum, exp, log
        return {ce, {"z = logsumexp(logits)", E * s, 4 * T, FlopCount{0, 3 * E + R, E + R}},
                {"loss += coef * z^2", 8 * T, 4 * T, square}};
      FlopCount both = ce_flops;
      both += square;
      return {{"loss = cross_entropy(logits, targets) + coef * lse^2", E * s + 4 * T, 4 * T, both}};
    }
    // The unfused levels keep the capped tensor in fp32 whatever the storage dtype: in
    // bf16, values near the cap (30, 50) would move by up to 0.125, far more than the
    // softmax tolerates (docs/cost-model.md#stability).
    case Trick::logit_softcap: {
      const FlopCount ce_flops{0, 3 * E + 2 * R, E + R};
      const FlopCount cap{0, 2 * E, E};  // / cap, · cap and one tanh per logit
      if (level == Level::without) return {{"loss = cross_entropy(logits, targets)", E * s + 4 * T, 4 * T, ce_flops}};
      if (level == Level::unfused)
        return {{"capped = cap * tanh(logits / cap)", E * s, E * 4, cap},
                {"loss = cross_entropy(capped, targets)", E * 4 + 4 * T, 4 * T, ce_flops}};
      FlopCount both = ce_flops;
      both += cap;
      return {{"loss = cross_entropy(cap * tanh(logits / cap), targets)", E * s + 4 * T, 4 * T, both}};
    }
    case Trick::attn_softcap: {
      // softmax: per score max, subtract, sum, · 1/sum (4) and exp; per row 1/sum
      const FlopCount softmax{0, 4 * E + R, E};
      const FlopCount cap{0, 2 * E, E};  // / cap, · cap and one tanh per score
      if (level == Level::without) return {{"p = softmax(scores)", E * s, E * s, softmax}};
      if (level == Level::unfused)
        return {{"capped = cap * tanh(scores / cap)", E * s, E * 4, cap}, {"p = softmax(capped)", E * 4, E * s, softmax}};
      FlopCount both = softmax;
      both += cap;
      return {{"p = softmax(cap * tanh(scores / cap))", E * s, E * s, both}};
    }
  }
  return {};
}

Cost cost(Trick trick, Level level, Dims d, int element_bytes) {
  const double E = static_cast<double>(d.rows(trick)) * static_cast<double>(d.width(trick));
  Cost c;
  const std::vector<Pass> list = passes(trick, level, d, element_bytes);
  for (const auto& p : list) {
    c.flops += p.flops;
    c.bytes_read += p.read_bytes;
    c.bytes_written += p.write_bytes;
    // Two or more passes: each runs on its own and is held by its own roof.
    if (list.size() > 1) c.steps.push_back({p.what, p.flops, p.read_bytes + p.write_bytes});
  }
  c.bytes_model = c.bytes_read + c.bytes_written;
  // qknorm's output, the rotated q and k, leaves every level with streaming stores
  // (rope_heads, AVX-512 when half a head is a multiple of 16)
  if (trick == Trick::qknorm) c.bytes_streamed_out = E * element_bytes;
  // Minimum: the fused level's single pass (inputs once, outputs once).
  for (const auto& p : passes(trick, level == Level::without ? Level::without : Level::fused, d, element_bytes))
    c.bytes_minimum += p.read_bytes + p.write_bytes;
  return c;
}

}  // namespace lmroof::stability
