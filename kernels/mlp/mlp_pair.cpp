// Registers the mlp pair: SwiGLU at d_ff = 8/3·d vs GeLU at d_ff = 4·d.
#include <fmt/format.h>

#include "mlp/mlp.h"
#include "registry.h"

namespace lmroof {

PairDef mlp_pair() {
  PairDef p;
  p.name = "mlp";
  p.title = "MLP pair: SwiGLU vs GeLU feed-forward";
  p.summary = "Transformer MLP: SwiGLU at d_ff = 8/3·d vs GeLU at d_ff = 4·d (same parameters)";
  p.combos = {{"gelu", "fused"}, {"swiglu", "fused"}};
  p.default_shapes = {{{"tokens", 1024}, {"d_model", 1024}}, {{"tokens", 256}, {"d_model", 2048}}};
  p.quick_shapes = {{{"tokens", 64}, {"d_model", 256}}};
  // GPU: large enough for the GEMMs to run near the tensor-core peak, and for pre and
  // hidden (T·d_ff, T·2·d_ff elements) to stream well past the 50-60 MB L2.
  p.cuda_shapes = {{{"tokens", 4096}, {"d_model", 4096}}, {{"tokens", 8192}, {"d_model", 2048}}};
  p.comparisons = {{{"gelu", "fused"}, {"swiglu", "fused"}, "SwiGLU (8/3·d) vs GeLU (4·d) MLP"}};
  p.variant_dims = {"d_ff"};
  // `lmroof predict`'s view of a run: the model's MLP at the run's sizes, SwiGLU (gated,
  // SiLU) or a plain GELU one, one sequence of `tokens`; its three ops only.
  p.model_mapping = PairModelMapping{
      .dims = {{"hidden", "d_model"}, {"d_ff", "d_ff"}},
      .tokens_dim = "tokens",
      .ops = {"mlp_up", "mlp_act", "mlp_down"},
      .variant_settings = {{"swiglu", {.activation = "silu", .gated_mlp = true}},
                           {"gelu", {.activation = "gelu", .gated_mlp = false}}}};
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    return mlp::complete_shape(mlp::parse_kind(variant), s);
  };
  // A model: its own MLP at its d_ff, and the other variant at matched parameters
  // (3·d·f gated = 2·d·f' plain: f' = 1.5·f, or f = 2/3·f' the other way round).
  p.shapes_for_model = [](const std::string& variant, const ModelShapeInputs& in) {
    const ModelConfig& m = in.model;
    const bool model_variant = (mlp::parse_kind(variant) == mlp::Kind::swiglu) == m.gated_mlp;
    const int64_t d_ff = model_variant ? m.d_ff : m.gated_mlp ? (3 * m.d_ff + 1) / 2 : (2 * m.d_ff + 1) / 3;
    ModelShapes out{{{{"tokens", in.tokens}, {"d_model", m.hidden}, {"d_ff", d_ff}}}, {}};
    out.notes.push_back(fmt::format("mlp: {}'s MLP is {} at d_ff {}; the alternative runs at d_ff {} (same parameters)",
                                    m.name, m.gated_mlp ? "gated (swiglu variant)" : "plain (gelu variant)", m.d_ff,
                                    m.gated_mlp ? (3 * m.d_ff + 1) / 2 : (2 * m.d_ff + 1) / 3));
    if (m.activation != "silu" && m.activation != "swish" && m.activation != "gelu")
      out.notes.push_back(fmt::format("mlp: {} uses {}; the kernels run {}", m.name, m.activation,
                                      m.gated_mlp ? "SiLU-gated (swiglu)" : "exact-erf GeLU"));
    return out;
  };
  p.cost = [](const RunSpec& r) {
    return mlp::cost(mlp::parse_kind(r.variant), mlp::dims_of(r.shape), dtype_bytes(r.dtype));
  };
  p.make_cpu = mlp::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = mlp::make_cuda;
  return p;
}

}  // namespace lmroof
