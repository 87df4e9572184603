// Registers the mlp pair: SwiGLU at d_ff = 8/3·d vs GeLU at d_ff = 4·d.
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
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    return mlp::complete_shape(mlp::parse_kind(variant), s);
  };
  p.cost = [](const RunSpec& r) {
    return mlp::cost(mlp::parse_kind(r.variant), mlp::dims_of(r.shape), dtype_bytes(r.dtype));
  };
  p.make_cpu = mlp::make_cpu;
#ifdef LMROOF_WITH_CUDA
  p.make_cuda = mlp::make_cuda;
#endif
  return p;
}

}  // namespace lmroof
