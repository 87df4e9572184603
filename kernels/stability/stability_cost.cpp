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
  const double E = static_cast<double>(d.rows(trick)) * static_cast<double>(d.width(trick));  // elements touched
  switch (trick) {
    case Trick::qknorm: {
      const double tables = 4.0 * T * static_cast<double>(d.head_dim);  // cos + sin, fp32
      const double gammas = 2.0 * static_cast<double>(d.head_dim) * s;  // gamma_q, gamma_k
      if (level == Level::without) return {{"rope(q), rope(k)", E * s + tables, E * s}};
      if (level == Level::unfused)
        return {{"rmsnorm(q), rmsnorm(k)", E * s + gammas, E * s}, {"rope(q), rope(k)", E * s + tables, E * s}};
      return {{"rope(rmsnorm(q)), rope(rmsnorm(k))", E * s + gammas + tables, E * s}};
    }
    case Trick::zloss: {
      const Pass ce{"loss = cross_entropy(logits, targets)", E * s + 4 * T, 4 * T};
      if (level == Level::without) return {ce};
      if (level == Level::unfused)
        return {ce, {"z = logsumexp(logits)", E * s, 4 * T}, {"loss += coef * z^2", 8 * T, 4 * T}};
      return {{"loss = cross_entropy(logits, targets) + coef * lse^2", E * s + 4 * T, 4 * T}};
    }
    // The unfused levels keep the capped tensor in fp32 whatever the storage dtype: in
    // bf16, values near the cap (30, 50) would move by up to 0.125, far more than the
    // softmax tolerates (docs/cost-model.md#stability).
    case Trick::logit_softcap: {
      if (level == Level::without) return {{"loss = cross_entropy(logits, targets)", E * s + 4 * T, 4 * T}};
      if (level == Level::unfused)
        return {{"capped = cap * tanh(logits / cap)", E * s, E * 4},
                {"loss = cross_entropy(capped, targets)", E * 4 + 4 * T, 4 * T}};
      return {{"loss = cross_entropy(cap * tanh(logits / cap), targets)", E * s + 4 * T, 4 * T}};
    }
    case Trick::attn_softcap: {
      if (level == Level::without) return {{"p = softmax(scores)", E * s, E * s}};
      if (level == Level::unfused)
        return {{"capped = cap * tanh(scores / cap)", E * s, E * 4}, {"p = softmax(capped)", E * 4, E * s}};
      return {{"p = softmax(cap * tanh(scores / cap))", E * s, E * s}};
    }
  }
  return {};
}

Cost cost(Trick trick, Level level, Dims d, int element_bytes) {
  const double R = static_cast<double>(d.rows(trick));
  const double E = R * static_cast<double>(d.width(trick));
  Cost c;
  switch (trick) {
    case Trick::qknorm:
      c.flops.vector = 3 * E;  // RoPE: per rotated pair 4 mul + 2 add
      if (level != Level::without) {
        c.flops.vector += 4 * E + 2 * R;  // RMSNorm per head row: square, sum, ·rstd, ·gamma; /dh, +eps
        c.flops.special += R;             // rsqrt
      }
      break;
    case Trick::zloss:
    case Trick::logit_softcap:
      // cross-entropy: per logit max, subtract, sum (3) and exp; per row log (special),
      // + max and − the target's logit (2)
      c.flops.vector = 3 * E + 2 * R;
      c.flops.special = E + R;
      if (trick == Trick::zloss) {
        if (level != Level::without) c.flops.vector += 3 * R;  // lse², · coef, + loss
        if (level == Level::unfused) {                         // the separate logsumexp recomputes
          c.flops.vector += 3 * E + R;
          c.flops.special += E + R;
        }
      } else if (level != Level::without) {
        c.flops.vector += 2 * E;  // / cap, · cap
        c.flops.special += E;     // tanh
      }
      break;
    case Trick::attn_softcap:
      // softmax: per score max, subtract, sum, · 1/sum (4) and exp; per row 1/sum
      c.flops.vector = 4 * E + R;
      c.flops.special = E;
      if (level != Level::without) {
        c.flops.vector += 2 * E;
        c.flops.special += E;
      }
      break;
  }
  for (const auto& p : passes(trick, level, d, element_bytes)) {
    c.bytes_read += p.read_bytes;
    c.bytes_written += p.write_bytes;
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
