// Registers the norm pair: variants, implementation levels, suite shapes, comparisons.
#include <fmt/format.h>

#include "norm/norm.h"
#include "registry.h"

namespace lmroof {

PairDef norm_pair() {
  PairDef p;
  p.name = "norm";
  p.title = "Norm pair: LayerNorm vs RMSNorm";
  p.summary = "LayerNorm vs RMSNorm over d_model (RMSNorm drops the mean and beta)";
  p.combos = {{"layernorm", "unfused"}, {"layernorm", "fused"}, {"rmsnorm", "unfused"}, {"rmsnorm", "fused"}};
  p.default_shapes = {{{"tokens", 8192}, {"d_model", 4096}},
                      {{"tokens", 4096}, {"d_model", 1024}},
                      {{"tokens", 2048}, {"d_model", 8192}}};
  p.quick_shapes = {{{"tokens", 512}, {"d_model", 1024}}};
  // GPU: T·d ≥ 16M elements so the kernels stream far more than the 50-60 MB L2.
  p.cuda_shapes = {{{"tokens", 8192}, {"d_model", 4096}},
                   {{"tokens", 16384}, {"d_model", 4096}},
                   {{"tokens", 4096}, {"d_model", 8192}},
                   {{"tokens", 32768}, {"d_model", 1024}}};
  p.kernel_classes = {
      {"lmroof::norm::", OpClass::normalization, "every kernel of the norm pair (fused, streaming, unfused steps)"}};
  p.comparisons = {
      {{"layernorm", "unfused"}, {"rmsnorm", "unfused"}, "RMSNorm vs LayerNorm, unfused (eager)"},
      {{"layernorm", "fused"}, {"rmsnorm", "fused"}, "RMSNorm vs LayerNorm, fused"},
      {{"layernorm", "unfused"}, {"layernorm", "fused"}, "LayerNorm: fused vs unfused"},
      {{"rmsnorm", "unfused"}, {"rmsnorm", "fused"}, "RMSNorm: fused vs unfused"},
  };
  p.complete_shape = [](const std::string&, const Shape& s) {
    require_dims(s, {"tokens", "d_model"});
    // unfused keeps two full-size intermediates beside x and y
    require_elements(s, "x", static_cast<double>(s["tokens"]) * s["d_model"]);
    return Shape{{"tokens", s["tokens"]}, {"d_model", s["d_model"]}};
  };
  // A model: its tokens × hidden; both norms run, the note says which is the model's.
  p.shapes_for_model = [](const std::string&, const ModelShapeInputs& in) {
    const ModelConfig& m = in.model;
    return ModelShapes{{{{"tokens", in.tokens}, {"d_model", m.hidden}}},
                       {fmt::format("norm: {} uses {} (eps {:g}); the other norm is the alternative", m.name,
                                    m.norm == NormKind::rmsnorm ? "RMSNorm" : "LayerNorm", m.norm_eps)}};
  };
  p.cost = [](const RunSpec& r) {
    return norm::cost(norm::parse_kind(r.variant), r.impl == "fused", norm::dims_of(r.shape), dtype_bytes(r.dtype));
  };
  p.make_cpu = norm::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = norm::make_cuda;
  return p;
}

}  // namespace lmroof
