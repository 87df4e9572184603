// Registers the bias pair: variants, implementation levels, suite shapes, comparisons.
#include <fmt/format.h>

#include "bias/bias.h"
#include "registry.h"

namespace lmroof {

PairDef bias_pair() {
  PairDef p;
  p.name = "bias";
  p.title = "Bias pair: linear layer with vs without bias";
  p.summary = "Linear layer y = x·Wᵀ with and without bias; the bias add fused into the GEMM or as its own pass";
  p.combos = {{"nobias", "fused"}, {"bias", "fused"}, {"bias", "unfused"}};
  // Sized for a small CPU: each GEMM is 2.1 GFLOP (2^31), 10-20 ms on two cores.
  // The shapes span a square GEMM, a wide weight with few tokens (W dominates the
  // bytes), and many tokens through a narrow layer, where y is large next to x and W
  // and the unfused extra pass over y weighs most.
  p.default_shapes = {{{"tokens", 1024}, {"in_features", 1024}, {"out_features", 1024}},
                      {{"tokens", 256}, {"in_features", 4096}, {"out_features", 1024}},
                      {{"tokens", 8192}, {"in_features", 128}, {"out_features", 1024}}};
  // GPU: GEMMs large enough to reach tensor-core throughput, plus a skinny one
  // where the bias pass is a visible share.
  p.cuda_shapes = {{{"tokens", 4096}, {"in_features", 4096}, {"out_features", 4096}},
                   {{"tokens", 8192}, {"in_features", 1024}, {"out_features", 4096}},
                   {{"tokens", 16384}, {"in_features", 256}, {"out_features", 4096}}};
  p.quick_shapes = {{{"tokens", 64}, {"in_features", 256}, {"out_features", 256}}};
  p.comparisons = {
      {{"nobias", "fused"}, {"bias", "unfused"}, "bias add, unfused: cost of the extra pass"},
      {{"nobias", "fused"}, {"bias", "fused"}, "bias add, fused into the GEMM's output"},
  };
  p.complete_shape = [](const std::string&, const Shape& s) { return bias::complete_shape(s); };
  // A model: its up projection, hidden -> intermediate, over `tokens` rows.
  p.shapes_for_model = [](const std::string&, const ModelShapeInputs& in) {
    const ModelConfig& m = in.model;
    return ModelShapes{{{{"tokens", in.tokens}, {"in_features", m.hidden}, {"out_features", m.d_ff}}},
                       {fmt::format("bias: {}'s MLP up projection, {} -> {}", m.name, m.hidden, m.d_ff)}};
  };
  p.cost = [](const RunSpec& r) {
    return bias::cost(bias::parse_kind(r.variant), r.impl == "fused", bias::dims_of(r.shape), dtype_bytes(r.dtype));
  };
  p.make_cpu = bias::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = bias::make_cuda;
  return p;
}

}  // namespace lmroof
