// Cost model for the bias pair; formulas in docs/cost-model.md#bias.
#include <fmt/format.h>

#include <stdexcept>

#include "bias/bias.h"
#include "run_names/op_formulas.h"

namespace lmroof::bias {

Kind parse_kind(std::string_view variant) {
  if (variant == "nobias") return Kind::nobias;
  if (variant == "bias") return Kind::bias;
  throw std::invalid_argument(fmt::format("bias has no variant '{}'", variant));
}

Dims dims_of(const Shape& shape) { return {shape["tokens"], shape["in_features"], shape["out_features"]}; }

Shape complete_shape(const Shape& s) {
  require_dims(s, {"tokens", "in_features", "out_features"});
  const double T = static_cast<double>(s["tokens"]), I = static_cast<double>(s["in_features"]),
               O = static_cast<double>(s["out_features"]);
  require_elements(s, "x", T * I);
  require_elements(s, "W", O * I);
  require_elements(s, "y", T * O);
  return Shape{{"tokens", s["tokens"]}, {"in_features", s["in_features"]}, {"out_features", s["out_features"]}};
}

Cost cost(Kind kind, bool fused, Dims d, int element_bytes) {
  const double T = static_cast<double>(d.tokens), I = static_cast<double>(d.in_features),
               O = static_cast<double>(d.out_features);
  const double s = element_bytes;
  const bool has_bias = kind == Kind::bias;
  Cost c;
  // one multiply-add per (token, output, input): the one matmul formula (run_names/op_formulas.h)
  c.flops.matrix = formulas::matmul_flops(1, T, O, I);
  // one add per output element
  c.flops.vector = has_bias ? T * O : 0;
  // x, W (and b) read once, y written once
  c.bytes_minimum = formulas::matmul_bytes(1, T, O, I, s, s, s) + (has_bias ? O * s : 0);
  // The GEMM is modelled as ideal (each operand once) at every level. fused: the bias
  // broadcast takes the place of the C initialisation the GEMM does anyway (see
  // bias_cpu.cpp), so nothing is added. unfused: the separate pass y += b reads y back
  // and writes it again.
  c.bytes_model = c.bytes_minimum + (has_bias && !fused ? 2 * T * O * s : 0);
  c.bytes_written = T * O * s * (has_bias && !fused ? 2 : 1);
  c.bytes_read = c.bytes_model - c.bytes_written;
  return c;
}

}  // namespace lmroof::bias
