// Shapes and cost model of the attention pair; formulas in docs/cost-model.md#attention.
#include <fmt/format.h>

#include <stdexcept>

#include "attention/attention.h"

namespace lmroof::attention {

Phase parse_phase(std::string_view impl) {
  if (impl == "prefill") return Phase::prefill;
  if (impl == "decode") return Phase::decode;
  throw std::invalid_argument(fmt::format("attention has no implementation level '{}' (known: prefill, decode)", impl));
}

decode::Kind parse_kind(std::string_view variant) {
  if (variant == "mha") return decode::Kind::mha;
  if (variant == "gqa") return decode::Kind::gqa;
  if (variant == "mqa") return decode::Kind::mqa;
  throw std::invalid_argument(fmt::format("attention has no variant '{}' (known: mha, gqa, mqa)", variant));
}

Dims dims_of(const Shape& s) {
  return {s["batch"], s["d_model"], s["q_heads"], s["kv_heads"], s["head_dim"], s["context"]};
}

Shape complete_shape(decode::Kind kind, const Shape& s) {
  require_dims(s, {"batch", "d_model", "q_heads", "context"});
  const int64_t d = s["d_model"], hq = s["q_heads"];
  int64_t dh = 0;
  if (s.has("head_dim")) {
    require_dims(s, {"head_dim"});
    dh = s["head_dim"];
  } else {
    if (d % hq != 0)
      throw std::invalid_argument(
          fmt::format("attention: q_heads={} does not divide d_model={}; give head_dim", hq, d));
    dh = d / hq;
  }
  // kv_heads: decode's rules, with the error messages naming this pair
  Shape dec{{"batch", s["batch"]}, {"q_heads", hq}, {"head_dim", dh}, {"context", s["context"]}};
  if (s.has("kv_heads")) dec.set("kv_heads", s["kv_heads"]);
  Shape full;
  try {
    full = decode::complete_shape(kind, dec);
  } catch (const std::invalid_argument& e) {
    std::string why = e.what();
    if (why.starts_with("decode/")) why.replace(0, 6, "attention/");
    throw std::invalid_argument(why);
  }
  const double B = static_cast<double>(s["batch"]), n = static_cast<double>(s["context"]);
  const double dq = static_cast<double>(hq * dh), dkv = static_cast<double>(full["kv_heads"] * dh);
  require_elements(s, "w_qkv", (dq + 2 * dkv) * static_cast<double>(d));
  require_elements(s, "the prefill activations", B * n * (dq + 2 * dkv));
  require_elements(s, "x", B * n * static_cast<double>(d));
  return Shape{{"batch", s["batch"]}, {"d_model", d},           {"q_heads", hq},
               {"kv_heads", full["kv_heads"]}, {"head_dim", dh}, {"context", s["context"]}};
}

Cost cost(Phase phase, Dims dm, int element_bytes, Backend backend) {
  const double s = element_bytes;
  const double B = static_cast<double>(dm.batch), d = static_cast<double>(dm.d_model),
               Hq = static_cast<double>(dm.q_heads), dh = static_cast<double>(dm.head_dim),
               n = static_cast<double>(dm.context);
  const double Dq = static_cast<double>(dm.q_dim()), Dkv = static_cast<double>(dm.kv_dim());
  const double weights = (Dq + 2 * Dkv) * d + d * Dq;  // elements of w_qkv and w_o
  Cost c;
  if (phase == Phase::prefill) {
    const double T = B * n;              // tokens
    const double P = n * (n + 1) / 2;    // visible (query, key) pairs per sequence and query head
    c.flops.matrix = 2 * T * d * (Dq + 2 * Dkv) + 2 * T * Dq * d + 4 * B * Hq * P * dh;
    c.flops.vector = B * Hq * (3 * P + 2 * n * dh);
    c.flops.special = B * Hq * P;
    // weights once, x read, y written, K and V written into the cache
    c.bytes_minimum = (weights + 2 * T * d + 2 * T * Dkv) * s;
    // x read; q|k|v written; k, v read and written into the cache layout; the
    // attention reads q, each query head reads its kv head's K and V once (the
    // 64-query tiles' re-reads are taken to hit cache), writes o; o read, y written
    double model = weights + T * d + T * (Dq + 2 * Dkv) + 4 * T * Dkv + T * Dq + 2 * T * Dq + T * Dq + T * Dq + T * d;
    // of which written: q|k|v, k and v in the cache layout, o, y
    double written = T * (Dq + 2 * Dkv) + 2 * T * Dkv + T * Dq + T * d;
    // CUDA: the full n × n scores of every (sequence, query head) are written by QKᵀ,
    // read and written by the softmax, read by P·V
    if (backend == Backend::cuda) {
      model += 4 * B * Hq * n * n;
      written += 2 * B * Hq * n * n;
    }
    c.bytes_model = model * s;
    c.bytes_written = written * s;
    c.bytes_read = c.bytes_model - c.bytes_written;
    return c;
  }
  const decode::Dims dd = dm.decode_dims();
  const int64_t splits = decode::context_splits(backend, decode::Impl::grouped, dd);
  const Cost att = decode::cost(decode::Impl::grouped, dd, splits, element_bytes);
  c.flops = att.flops;
  c.flops.matrix += 2 * B * d * (Dq + 2 * Dkv) + 2 * B * Dq * d;
  // weights once, x read, y written; the cache's n − 1 old K and V rows read and the new one written
  c.bytes_minimum = (weights + 2 * B * d + 2 * B * n * Dkv) * s;
  // x read by the three projection GEMMs; q, k, v written; k, v copied into the cache
  // (read, write); the attention as decode's grouped level moves it (q read, every
  // kv head's n K and V rows read once, o written, split partials); o read, y written
  double model = weights + 3 * B * d + B * Dq + 2 * B * Dkv + 4 * B * Dkv + B * Dq + B * d;
  // of which written: q, k, v; k and v into the cache; y (and the attention's own)
  double written = B * Dq + 2 * B * Dkv + 2 * B * Dkv + B * d;
  // CUDA: the scores [B·Hq, n] written by QKᵀ, read and written by the softmax, read by P·V
  if (backend == Backend::cuda) {
    model += 4 * B * Hq * n;
    written += 2 * B * Hq * n;
  }
  c.bytes_model = model * s + att.bytes_model;
  // Decode mostly reads (the weights and the cache): which memory roof it can reach
  // depends on the split (analysis/roofs/roof_choice.h).
  c.bytes_written = written * s + att.bytes_written;
  c.bytes_read = c.bytes_model - c.bytes_written;
  return c;
}

}  // namespace lmroof::attention
