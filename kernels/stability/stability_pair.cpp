// Registers the stability pair: each trick beside its neighbouring pass, without it,
// as its own pass (unfused) and fused into the neighbour.
#include "registry.h"
#include "stability/stability.h"

namespace lmroof {

PairDef stability_pair() {
  PairDef p;
  p.name = "stability";
  p.title = "Stability pair: what QK-norm, z-loss and soft-capping cost";
  p.summary =
      "what the stability tricks cost (QK-norm before RoPE, z-loss and soft-capped logits in the cross-entropy, "
      "soft-capped attention scores in the softmax): the neighbouring pass without the trick, with it as its own "
      "pass (unfused), and fused into the neighbour";
  for (const char* trick : {"qknorm", "zloss", "logit_softcap", "attn_softcap"})
    for (const char* level : {"without", "unfused", "fused"}) p.combos.push_back({trick, level});
  // A shape is a model configuration; each variant keeps the dimensions of the tensor
  // its trick touches. Llama-2-70B's heads (64 q, 8 kv, head_dim 128) and vocabulary
  // (32000): at 1024 tokens q|k is 38 MB, the logits 131 MB, the scores (512 keys per
  // query) 134 MB in fp32, all beyond this CPU kind's 32 MB L3.
  p.default_shapes = {{{"tokens", 1024}, {"q_heads", 64}, {"kv_heads", 8}, {"head_dim", 128},
                       {"vocab", 32000}, {"context", 512}}};
  p.quick_shapes = {{{"tokens", 16}, {"q_heads", 4}, {"kv_heads", 2}, {"head_dim", 64}, {"vocab", 1000},
                     {"context", 100}}};
  // GPU: Llama-2-70B at 8192 tokens, and Gemma-2-27B (32 q / 16 kv heads of 128, vocab
  // 256000, soft-capped in the model itself) at 4096.
  p.cuda_shapes = {{{"tokens", 8192}, {"q_heads", 64}, {"kv_heads", 8}, {"head_dim", 128}, {"vocab", 32000},
                    {"context", 2048}},
                   {{"tokens", 4096}, {"q_heads", 32}, {"kv_heads", 16}, {"head_dim", 128}, {"vocab", 256000},
                    {"context", 4096}}};
  const std::pair<const char*, const char*> names[] = {{"qknorm", "QK-norm (neighbour: RoPE)"},
                                                        {"zloss", "z-loss (neighbour: cross-entropy)"},
                                                        {"logit_softcap", "logit soft-cap (neighbour: cross-entropy)"},
                                                        {"attn_softcap", "attention soft-cap (neighbour: softmax)"}};
  // Every comparison is a less-work control: `without` runs the neighbour's code alone,
  // which the other levels run too (analysis/claims/identity_controls.h).
  for (const auto& [trick, title] : names) {
    p.comparisons.push_back({{trick, "without"}, {trick, "unfused"}, std::string(title) + ": its own pass vs none", true});
    p.comparisons.push_back({{trick, "without"}, {trick, "fused"}, std::string(title) + ": fused vs none", true});
  }
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    return stability::complete_shape(stability::parse_trick(variant), s);
  };
  p.cost = [](const RunSpec& r) {
    const auto trick = stability::parse_trick(r.variant);
    return stability::cost(trick, stability::parse_level(r.impl), stability::dims_of(trick, r.shape),
                           dtype_bytes(r.dtype));
  };
  p.make_cpu = stability::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = stability::make_cuda;
  return p;
}

}  // namespace lmroof
