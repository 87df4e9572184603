// Registers the block pair: variants, implementation levels, suite shapes, comparisons.
#include "block/block.h"
#include "registry.h"

namespace lmroof {

PairDef block_pair() {
  PairDef p;
  p.name = "block";
  p.title = "Block pair: serial vs parallel transformer block";
  p.summary =
      "pre-norm decoder block (RMSNorm, RoPE, causal MHA, SwiGLU): serial vs parallel (GPT-J/PaLM, "
      "one fused input GEMM and one fused output GEMM)";
  p.combos = {{"serial", "fused"}, {"parallel", "fused"}};
  // head_dim 64, d_ff = 8/3·d rounded up to 64 (2752 at d_model 1024); sized so that one
  // run stays well under 300 ms on two CPU cores.
  p.default_shapes = {block::complete_shape({{"tokens", 512}, {"d_model", 1024}}),
                      block::complete_shape({{"tokens", 1024}, {"d_model", 1024}})};
  p.quick_shapes = {block::complete_shape({{"tokens", 64}, {"d_model", 256}})};
  // GPU: head_dim 128 as in LLaMA-class models, sequences long enough for attention to matter.
  p.cuda_shapes = {block::complete_shape({{"tokens", 2048}, {"d_model", 2048}, {"head_dim", 128}}),
                   block::complete_shape({{"tokens", 4096}, {"d_model", 4096}, {"head_dim", 128}})};
  p.comparisons = {{{"serial", "fused"}, {"parallel", "fused"}, "parallel block vs serial block"}};
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    block::parse_variant(variant);
    return block::complete_shape(s);
  };
  p.cost = [](const RunSpec& r) {
    return block::cost(block::parse_variant(r.variant), block::dims_of(r.shape), dtype_bytes(r.dtype), r.backend);
  };
  p.make_cpu = block::make_cpu;
#ifdef LMROOF_WITH_CUDA
  p.make_cuda = block::make_cuda;
#endif
  return p;
}

}  // namespace lmroof
