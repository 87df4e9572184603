// Cost model of the mlp pair; formulas in docs/cost-model.md#mlp.
#include <fmt/format.h>

#include <stdexcept>

#include "mlp/mlp.h"

namespace lmroof::mlp {

Kind parse_kind(std::string_view variant) {
  if (variant == "gelu") return Kind::gelu;
  if (variant == "swiglu") return Kind::swiglu;
  throw std::invalid_argument(fmt::format("mlp has no variant '{}'", variant));
}

Dims dims_of(const Shape& s) { return {s["tokens"], s["d_model"], s["d_ff"]}; }

int64_t default_d_ff(Kind kind, int64_t d_model) {
  if (kind == Kind::gelu) return 4 * d_model;
  const int64_t raw = (8 * d_model + 2) / 3;  // ceil(8d/3)
  return (raw + 63) / 64 * 64;
}

Shape complete_shape(Kind kind, const Shape& s) {
  require_dims(s, {"tokens", "d_model"});
  // The variant sets d_ff (4·d, 8/3·d) unless the shape names one: a model's own width
  // and its matched-parameter alternative (shapes_for_model), or a user's --shape.
  if (s.has("d_ff")) require_dims(s, {"d_ff"});
  const int64_t d_ff = s.has("d_ff") ? s["d_ff"] : default_d_ff(kind, s["d_model"]);
  Shape out{{"tokens", s["tokens"]}, {"d_model", s["d_model"]}, {"d_ff", d_ff}};
  const double matrices = kind == Kind::gelu ? 2 : 3;
  require_elements(out, "the weights", matrices * d_ff * s["d_model"]);
  require_elements(out, "the hidden activations", 2.0 * s["tokens"] * d_ff);
  return out;
}

int64_t parameter_count(Kind kind, Dims d) { return (kind == Kind::gelu ? 2 : 3) * d.d_model * d.d_ff; }

Cost cost(Kind kind, Dims d, int element_bytes) {
  const double T = static_cast<double>(d.tokens), D = static_cast<double>(d.d_model),
               F = static_cast<double>(d.d_ff), s = element_bytes;
  Cost c;
  const double params = static_cast<double>(parameter_count(kind, d));
  c.flops.matrix = 2 * T * params;  // every weight is one multiply-add per token
  if (kind == Kind::gelu) {
    // gelu(h) = 0.5·h·(1 + erf(h/√2)): scale, add, two multiplies = 4 vector; erf special
    c.flops.vector = 4 * T * F;
    c.flops.special = T * F;
  } else {
    // silu(g)·u = g·sigmoid(g)·u: two multiplies; sigmoid special
    c.flops.vector = 2 * T * F;
    c.flops.special = T * F;
  }
  c.bytes_minimum = (2 * T * D + params) * s;
  // The hidden activations make a round trip through memory: GEMM output written,
  // read by the activation pass, its result written, read by the second GEMM.
  const double hidden_in = kind == Kind::gelu ? T * F : 2 * T * F;
  c.bytes_model = c.bytes_minimum + (hidden_in /*write*/ + hidden_in /*read*/ + T * F /*write*/ + T * F /*read*/) * s;
  c.bytes_written = (T * D + hidden_in + T * F) * s;  // y, the GEMM's hidden output, the activation's
  c.bytes_read = c.bytes_model - c.bytes_written;
  c.working_set_bytes = c.bytes_minimum + (hidden_in + T * F) * s;
  return c;
}

}  // namespace lmroof::mlp
