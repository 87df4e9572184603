// Registers the decode pair: variants, implementation levels, suite shapes, comparisons.
#include <fmt/format.h>

#include "decode/decode.h"
#include "registry.h"

namespace lmroof {

PairDef decode_pair() {
  PairDef p;
  p.name = "decode";
  p.title = "Decode pair: MHA vs GQA vs MQA attention at decode time";
  p.summary = "Decode attention over a KV cache: MHA vs GQA vs MQA, each query head streaming K/V (naive), "
              "one K/V read per kv-head group (grouped), or two OpenBLAS GEMMs per group (blas, CPU only)";
  p.combos = {{"mha", "naive"}, {"mha", "grouped"}, {"mha", "blas"},   {"gqa", "naive"},
              {"gqa", "grouped"}, {"gqa", "blas"},  {"mqa", "naive"}, {"mqa", "grouped"}, {"mqa", "blas"}};
  p.cpu_only_impls = {"blas"};
  p.kernel_classes = {
      {"lmroof::decode::", OpClass::attention, "every kernel of the decode pair (SIMT, MMA, split-K combine)"},
      {"decode_simt_kernel", OpClass::attention, "decode attention, CUDA cores"},
      {"decode_mma_kernel", OpClass::attention, "decode attention, tensor cores"},
  };
  // One batch/head configuration over a context sweep (1024 ... 4096), so "decode
  // time grows linearly with context" can be checked on the default suite. kv_heads
  // is filled per variant (mha 32, gqa 4, mqa 1). Batch 4 keeps the largest MHA
  // cache at 512 MiB (K + V), a few tens of ms per run on a small CPU. Context 8192
  // was dropped for the 2.5-minute default run (issue #25): its MHA cache (1 GiB,
  // two of them in a paired round) cost more to touch for the first time on a VM
  // than all of its timed rounds; --shape decode:context=8192 adds it back.
  for (int64_t context : {1024, 2048, 4096})
    p.default_shapes.push_back({{"batch", 4}, {"q_heads", 32}, {"head_dim", 128}, {"context", context}});
  // GPU: B·Hq = 256 query heads, contexts up to 16k (MHA streams 2.1 GB of bf16 K/V
  // at 16k); inputs are generated on the host, which bounds the suite's wall time.
  for (int64_t context : {4096, 8192, 16384})
    p.cuda_shapes.push_back({{"batch", 8}, {"q_heads", 32}, {"head_dim", 128}, {"context", context}});
  // Three contexts even in the quick suite, so the linear-in-context claim has points to fit;
  // 16 query heads so GQA (4 kv heads) differs from MQA.
  for (int64_t context : {128, 256, 512})
    p.quick_shapes.push_back({{"batch", 2}, {"q_heads", 16}, {"head_dim", 64}, {"context", context}});
  p.variant_dims = {"kv_heads"};
  p.comparisons = {
      {{"mha", "grouped"}, {"gqa", "grouped"}, "GQA vs MHA: a smaller KV cache to stream"},
      {{"mha", "grouped"}, {"mqa", "grouped"}, "MQA vs MHA: one kv head"},
      {{"gqa", "naive"}, {"gqa", "grouped"}, "GQA: K/V read once per group vs once per query head"},
      {{"mqa", "naive"}, {"mqa", "grouped"}, "MQA: K/V read once vs once per query head"},
      // the fused kernel against what a framework runs (CPU only)
      {{"mha", "blas"}, {"mha", "grouped"}, "MHA: fused grouped kernel vs two OpenBLAS GEMMs"},
      {{"gqa", "blas"}, {"gqa", "grouped"}, "GQA: fused grouped kernel vs two OpenBLAS GEMMs"},
      {{"mqa", "blas"}, {"mqa", "grouped"}, "MQA: fused grouped kernel vs two OpenBLAS GEMMs"},
  };
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    return decode::complete_shape(decode::parse_kind(variant), s);
  };
  // A model: its q_heads and head_dim over the context sweep. The variant decides
  // kv_heads: mha q_heads, mqa 1, gqa the model's own grouping (or, for an MHA or MQA
  // model, the default grouping), so the model's choice is compared with the others
  // at the same q_heads.
  p.shapes_for_model = [](const std::string& variant, const ModelShapeInputs& in) {
    const ModelConfig& m = in.model;
    const auto kind = decode::parse_kind(variant);
    const bool model_groups = m.kv_heads > 1 && m.kv_heads < m.q_heads;
    const int64_t kv = kind == decode::Kind::gqa && model_groups ? m.kv_heads : decode::default_kv_heads(kind, m.q_heads);
    ModelShapes out;
    for (int64_t context : in.contexts)
      out.shapes.push_back({{"batch", in.batch}, {"q_heads", m.q_heads}, {"kv_heads", kv}, {"head_dim", m.head_dim},
                            {"context", context}});
    out.notes.push_back(fmt::format("decode: {} is {} ({} q heads, {} kv heads, head_dim {})", m.name, m.attention_kind(),
                                    m.q_heads, m.kv_heads, m.head_dim));
    if (kind == decode::Kind::gqa && !model_groups)
      out.notes.push_back(fmt::format("decode: {} does not group its kv heads; gqa runs the default grouping, {} kv heads{}",
                                      m.name, kv, kv == m.q_heads ? " (no divisor of q_heads up to 8 but 1: the same as mha)" : ""));
    if (m.sliding_window)
      out.notes.push_back(fmt::format("decode: {} has a sliding window of {}: {} read at most that many cached tokens",
                                      m.name, *m.sliding_window,
                                      m.family == "gemma2" ? "its local (every other) layers" : "its layers"));
    if (m.attn_softcap)
      out.notes.push_back(fmt::format("decode: {} soft-caps attention logits at {:g}; the decode kernel does not (one "
                                      "tanh per score, no extra bytes)", m.name, *m.attn_softcap));
    if (m.max_context)
      for (int64_t context : in.contexts)
        if (context > *m.max_context) {
          out.notes.push_back(fmt::format("decode: context {} is beyond {}'s max_position_embeddings {}", context, m.name,
                                          *m.max_context));
          break;
        }
    return out;
  };
  p.cost = [](const RunSpec& r) {
    const auto impl = decode::parse_impl(r.impl);
    const auto dims = decode::dims_of(r.shape);
    return decode::cost(impl, dims, decode::context_splits(r.backend, impl, dims), dtype_bytes(r.dtype));
  };
  p.make_cpu = decode::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = decode::make_cuda;
  return p;
}

}  // namespace lmroof
