// Shapes and cost model of the window pair; formulas in docs/cost-model.md#window.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "window/window.h"

namespace lmroof::window {

Kind parse_kind(std::string_view variant) {
  if (variant == "full") return Kind::full;
  if (variant == "sliding") return Kind::sliding;
  if (variant == "interleave_1_1") return Kind::interleave_1_1;
  if (variant == "interleave_1_5") return Kind::interleave_1_5;
  throw std::invalid_argument(
      fmt::format("window has no variant '{}' (known: full, sliding, interleave_1_1, interleave_1_5)", variant));
}

namespace {
// Layers per global layer in the repeating pattern (0: no global layer).
int64_t period(Kind kind) {
  switch (kind) {
    case Kind::full:
      return 1;
    case Kind::sliding:
      return 0;
    case Kind::interleave_1_1:
      return 2;
    case Kind::interleave_1_5:
      return 6;
  }
  return 0;
}
}  // namespace

Dims dims_of(const Shape& s) {
  return {s["batch"], s["q_heads"], s["kv_heads"], s["head_dim"], s["context"], s["window"], s["layers"]};
}

int64_t global_layers(Kind kind, int64_t layers) {
  const int64_t p = period(kind);
  return p == 0 ? 0 : layers / p;
}

bool layer_is_global(Kind kind, int64_t layer) {
  const int64_t p = period(kind);
  return p != 0 && layer % p == 0;
}

decode::Dims layer_dims(Dims d, bool global) {
  return {d.batch, d.q_heads, d.kv_heads, d.head_dim, global ? d.context : std::min(d.context, d.window)};
}

Shape complete_shape(Kind kind, const Shape& s) {
  require_dims(s, {"batch", "q_heads", "head_dim", "context", "window"});
  const int64_t hq = s["q_heads"];
  int64_t hkv = decode::default_kv_heads(decode::Kind::gqa, hq);
  if (s.has("kv_heads")) {
    require_dims(s, {"kv_heads"});
    hkv = s["kv_heads"];
    if (hq % hkv != 0)
      throw std::invalid_argument(fmt::format("window: kv_heads={} does not divide q_heads={}", hkv, hq));
  }
  int64_t layers = kDefaultLayers;
  if (s.has("layers")) {
    require_dims(s, {"layers"});
    layers = s["layers"];
  }
  const int64_t p = period(kind);
  if (p > 1 && layers % p != 0)
    throw std::invalid_argument(fmt::format("window/{}: layers={} is not a multiple of {}",
                                            kind == Kind::interleave_1_1 ? "interleave_1_1" : "interleave_1_5",
                                            layers, p));
  const double B = static_cast<double>(s["batch"]), dh = static_cast<double>(s["head_dim"]),
               n = static_cast<double>(s["context"]);
  require_elements(s, "q", B * hq * dh);
  require_elements(s, "a layer's K cache", B * hkv * n * dh);
  require_elements(s, "the split partials", B * hq * (dh + 2) * decode::kTargetItems);
  return Shape{{"batch", s["batch"]},   {"q_heads", hq},         {"kv_heads", hkv}, {"head_dim", s["head_dim"]},
               {"context", s["context"]}, {"window", s["window"]}, {"layers", layers}};
}

Cost cost(Kind kind, Dims d, int element_bytes, Backend backend) {
  Cost total;
  // The stack's steps: its layers one after another, identical layers grouped (a group's
  // roof time, max(k·F/P, k·B/W), is the sum of its k layers' own), global layers first.
  struct Group {
    int64_t layers = 0;
    Cost layer;
  };
  Group groups[2];  // global, local
  for (int64_t layer = 0; layer < d.layers; ++layer) {
    const bool global = layer_is_global(kind, layer);
    const decode::Dims ld = layer_dims(d, global);
    const Cost c = decode::cost(decode::Impl::grouped, ld,
                                decode::context_splits(backend, decode::Impl::grouped, ld), element_bytes);
    total.flops += c.flops;
    total.bytes_minimum += c.bytes_minimum;
    total.bytes_model += c.bytes_model;
    total.bytes_read += c.bytes_read;
    total.bytes_written += c.bytes_written;
    Group& g = groups[global ? 0 : 1];
    ++g.layers;
    g.layer = c;
  }
  if (groups[0].layers > 0 && groups[1].layers > 0)
    for (int i = 0; i < 2; ++i) {
      const Group& g = groups[i];
      const double k = static_cast<double>(g.layers);
      const FlopCount& f = g.layer.flops;
      total.steps.push_back({fmt::format("{} {} layer{} ({} rows)", g.layers, i == 0 ? "global" : "local",
                                         g.layers == 1 ? "" : "s", layer_dims(d, i == 0).context),
                             FlopCount{k * f.matrix, k * f.vector, k * f.special}, k * g.layer.bytes_model});
    }
  return total;
}

}  // namespace lmroof::window
