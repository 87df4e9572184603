// Registers the block pair: variants, implementation levels, suite shapes, comparisons.
#include <fmt/format.h>

#include "block/block.h"
#include "registry.h"

namespace lmroof {

PairDef block_pair() {
  PairDef p;
  p.name = "block";
  p.title = "Block pair: serial vs parallel transformer block";
  p.summary =
      "pre-norm decoder block (RMSNorm, RoPE, causal MHA, SwiGLU; options qk_norm and softcap): serial vs "
      "parallel (GPT-J/PaLM, one fused input GEMM and one fused output GEMM), fused or unfused (eager: every "
      "norm, RoPE, activation and softmax step its own pass)";
  p.combos = {{"serial", "fused"}, {"parallel", "fused"}, {"serial", "unfused"}, {"parallel", "unfused"}};
  // head_dim 64, d_ff = 8/3·d rounded up to 64 (2752 at d_model 1024); sized so that one
  // run stays well under 300 ms on two CPU cores (the unfused level about twice that).
  // The second shape turns on QK-norm and Gemma 2's attention soft-cap (50). (The
  // T = 1024 shape of the fused-only suite went to keep the default suite under its
  // time budget once the unfused level doubled the block's runs; T = 512 went to 256
  // for the 2.5-minute default run with paired rounds, issue #25: the block's nine
  // paired comparisons took about 25 s of a 2 min 43 s run on 2 cores, 2026-12-04. At
  // T = 256 the block is still compute-bound: 70-76 FLOP/B by the cost model against
  // a CPU ridge near 5.)
  p.default_shapes = {block::complete_shape({{"tokens", 256}, {"d_model", 1024}}),
                      block::complete_shape({{"tokens", 256}, {"d_model", 1024}, {"qk_norm", 1}, {"softcap", 50}})};
  p.quick_shapes = {block::complete_shape({{"tokens", 64}, {"d_model", 256}})};
  // GPU: head_dim 128 as in LLaMA-class models, sequences long enough for attention to matter.
  p.cuda_shapes = {block::complete_shape({{"tokens", 2048}, {"d_model", 2048}, {"head_dim", 128}}),
                   block::complete_shape({{"tokens", 4096}, {"d_model", 4096}, {"head_dim", 128}})};
  p.comparisons = {{{"serial", "fused"}, {"parallel", "fused"}, "parallel block vs serial block"},
                   {{"serial", "unfused"}, {"parallel", "unfused"}, "parallel block vs serial block, unfused (eager)"},
                   {{"serial", "unfused"}, {"serial", "fused"}, "serial block: fused vs unfused (eager)"},
                   {{"parallel", "unfused"}, {"parallel", "fused"}, "parallel block: fused vs unfused (eager)"}};
  p.cpu_only_impls = {"unfused"};
  // Before the library table, where "softmax" alone would make it normalization.
  p.kernel_classes = {
      {"causal_softmax", OpClass::attention, "the block's softmax over attention scores (cost model: attention class)"}};
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    block::parse_variant(variant);
    return block::complete_shape(s);
  };
  // A model: its hidden, d_ff, heads and head_dim. The block's kernels are RMSNorm,
  // SwiGLU and MHA with q_heads·head_dim = d_model; what of the model they cannot
  // represent is said, not silently changed.
  p.shapes_for_model = [](const std::string&, const ModelShapeInputs& in) {
    const ModelConfig& m = in.model;
    ModelShapes out;
    if (m.q_heads * m.head_dim != m.hidden) {
      out.notes.push_back(fmt::format("block: skipped for {}: its q_heads x head_dim = {} x {} = {} differs from hidden "
                                      "{}, and the block kernel projects d_model onto q_heads x head_dim = d_model",
                                      m.name, m.q_heads, m.head_dim, m.q_heads * m.head_dim, m.hidden));
      return out;
    }
    if (m.head_dim % 2 != 0) {
      out.notes.push_back(fmt::format("block: skipped for {}: its head_dim {} is odd, and RoPE rotates pairs", m.name,
                                      m.head_dim));
      return out;
    }
    out.shapes.push_back(
        {{"tokens", in.tokens}, {"d_model", m.hidden}, {"d_ff", m.d_ff}, {"q_heads", m.q_heads}, {"head_dim", m.head_dim}});
    out.notes.push_back(fmt::format("block: {}'s own block is {}; serial and parallel both run at its dimensions", m.name,
                                    m.parallel_block ? "parallel" : "serial"));
    if (m.norm != NormKind::rmsnorm)
      out.notes.push_back(fmt::format("block: {} uses LayerNorm; the block kernel runs RMSNorm", m.name));
    if (!m.gated_mlp)
      out.notes.push_back(fmt::format("block: {} has a plain {} MLP; the block kernel runs SwiGLU at its d_ff {} "
                                      "(1.5x the MLP parameters)", m.name, m.activation, m.d_ff));
    else if (m.activation != "silu" && m.activation != "swish")
      out.notes.push_back(fmt::format("block: {}'s gated MLP uses {}; the block kernel gates with SiLU", m.name, m.activation));
    if (m.kv_heads != m.q_heads)
      out.notes.push_back(fmt::format("block: {} has {} kv heads ({}); the block kernel's attention is MHA ({} kv heads)",
                                      m.name, m.kv_heads, m.attention_kind(), m.q_heads));
    return out;
  };
  p.cost = [](const RunSpec& r) {
    return block::cost(block::parse_variant(r.variant), block::dims_of(r.shape), dtype_bytes(r.dtype), r.backend,
                       r.impl == "unfused");
  };
  p.make_cpu = block::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = block::make_cuda;
  // `lmroof predict`'s view of a run: the whole pre-norm block it runs (RMSNorm, MHA
  // with RoPE, SwiGLU; serial or parallel), one sequence of `tokens`. Family "llama":
  // the predictor then counts RoPE and no post-norms, as the block runs them, whatever
  // the model's own family (GPT-2's learned positions, Gemma 2's post-norms).
  p.model_mapping = PairModelMapping{
      .dims = {{"hidden", "d_model"}, {"d_ff", "d_ff"}, {"q_heads", "q_heads"}, {"kv_heads", "q_heads"},
               {"head_dim", "head_dim"}},
      .tokens_dim = "tokens",
      .settings = {.family = "llama", .activation = "silu", .gated_mlp = true, .norm = NormKind::rmsnorm},
      .variant_settings = {{"parallel", {.parallel_block = true}}, {"serial", {.parallel_block = false}}}};
  return p;
}

}  // namespace lmroof
