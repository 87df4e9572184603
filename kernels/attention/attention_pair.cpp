// Registers the attention pair: one layer with its projections, prefill vs decode.
#include <algorithm>

#include "attention/attention.h"
#include "registry.h"

namespace lmroof {

namespace {

Shape layer(int64_t batch, int64_t d_model, int64_t q_heads, int64_t context) {
  return {{"batch", batch}, {"d_model", d_model}, {"q_heads", q_heads}, {"context", context}};
}

// Prefill processes batch·context tokens, decode batch tokens: the two phases take
// different suite shapes (an MHA prefill at a decode shape of 64 × 2048 would be
// 131k tokens).
struct PhaseShapes {
  std::vector<Shape> prefill, decode;
  // Decode shapes that only the variants with few kv heads (gqa, mqa) run: MHA's
  // cache there would be large and its intensity stays below the ridge anyway.
  std::vector<Shape> decode_few_kv;
};

PhaseShapes cpu_shapes() {
  PhaseShapes s;
  // d = 2048 so that the weights (64 MiB in fp32 for MHA) exceed the L3 of a small
  // CPU: decode at small batch then streams them from memory, as on a GPU. Prefill
  // of 256 tokens is ~9 GFLOP for MHA at ~70 FLOP/byte, far right of any CPU ridge.
  s.prefill = {layer(1, 2048, 16, 256)};
  // n = 512: the weights dominate up to b ≈ 2d/n = 8, then the cache; n = 2048: the
  // cache dominates from b ≈ 2. MHA stops at b = 16: at b = 64, n = 512 it reaches
  // 4 FLOP/byte, too close to a 2-core CPU's ridge (~5-7) to be called memory-bound,
  // and never passes it (its intensity tends to d/n + 1/2 in fp32).
  for (int64_t n : {512, 2048})
    for (int64_t b : {1, 4, 16}) s.decode.push_back(layer(b, 2048, 16, n));
  // GQA and MQA also run b = 64 (8 to 19 FLOP/byte): their model intensity passes a
  // CPU's ridge between b = 4 and 64 (at b ≈ 15 for MQA at a ridge of 8), so that the
  // claim on the batch where decode turns compute-bound (decode-batch-turns-compute)
  // has runs on both sides of it. The largest cache is GQA's at n = 2048: 256 MiB.
  for (int64_t n : {512, 2048}) s.decode_few_kv.push_back(layer(64, 2048, 16, n));
  return s;
}

PhaseShapes gpu_shapes() {
  PhaseShapes s;
  // Decode at the CPU's contexts (the claims name them), d = 4096: the knee 2d/n is at
  // b = 16 (n = 512) and b = 4 (n = 2048). The largest MHA cache (b = 256, n = 512 and
  // b = 64, n = 2048) is 2 GiB in bf16. Prefill at n = 1024: the CUDA kernels
  // materialise the n × n scores, which at n = 2048 would pull a bf16 prefill down to
  // ~290 FLOP/byte, about an H200's ridge; at 1024 it is ~540.
  s.prefill = {layer(4, 4096, 32, 1024), layer(16, 4096, 32, 1024)};
  for (int64_t b : {1, 4, 16, 64, 256}) s.decode.push_back(layer(b, 4096, 32, 512));
  for (int64_t b : {1, 4, 16, 64}) s.decode.push_back(layer(b, 4096, 32, 2048));
  return s;
}

// Tiny layers (d = 128, 16 heads of 8, as many heads as the default suite so that
// GQA and MQA shrink the cache as much) at the suite's batch sizes and contexts, so
// that the claims, which name b and n, find their runs in a --quick smoke run too.
PhaseShapes quick_shapes() {
  PhaseShapes s;
  s.prefill = {layer(2, 128, 16, 64)};
  for (int64_t n : {512, 2048})
    for (int64_t b : {1, 4, 16}) s.decode.push_back(layer(b, 128, 16, n));
  for (int64_t n : {512, 2048}) s.decode_few_kv.push_back(layer(64, 128, 16, n));
  return s;
}

bool contains(const std::vector<Shape>& shapes, const Shape& s) {
  return std::find(shapes.begin(), shapes.end(), s) != shapes.end();
}

// Both phases' shapes, each once (a shape in both lists runs both phases).
std::vector<Shape> both(const PhaseShapes& s) {
  std::vector<Shape> out = s.prefill;
  for (const auto* list : {&s.decode, &s.decode_few_kv})
    for (const auto& shape : *list)
      if (!contains(out, shape)) out.push_back(shape);
  return out;
}

}  // namespace

PairDef attention_pair() {
  PairDef p;
  p.name = "attention";
  p.title = "Attention pair: one layer, prefill vs decode, MHA vs GQA vs MQA";
  p.summary = "One attention layer with its Q/K/V/O projections: prefill (all tokens, causal) vs incremental "
              "decode (one token per sequence over a KV cache), MHA vs GQA vs MQA";
  p.combos = {{"mha", "prefill"}, {"mha", "decode"}, {"gqa", "prefill"},
              {"gqa", "decode"},  {"mqa", "prefill"}, {"mqa", "decode"}};
  const PhaseShapes cpu = cpu_shapes(), gpu = gpu_shapes(), quick = quick_shapes();
  p.default_shapes = both(cpu);
  p.cuda_shapes = both(gpu);
  p.quick_shapes = both(quick);
  p.runs_shape = [cpu, gpu, quick](const VariantImpl& combo, const Shape& shape) {
    const bool prefill = combo.impl == "prefill", few_kv = combo.variant != "mha";
    for (const PhaseShapes* s : {&cpu, &gpu, &quick})
      if (contains(prefill ? s->prefill : s->decode, shape) || (!prefill && few_kv && contains(s->decode_few_kv, shape)))
        return true;
    return false;
  };
  p.variant_dims = {"kv_heads"};
  // `lmroof predict`'s view of a run: one attention layer with its projections and no
  // RoPE (attention.h), `batch` sequences of `context`, the decode level as one decode
  // step; its three ops only.
  p.model_mapping = PairModelMapping{
      .dims = {{"hidden", "d_model"}, {"q_heads", "q_heads"}, {"kv_heads", "kv_heads"}, {"head_dim", "head_dim"}},
      .tokens_dim = "context",
      .batch_dim = "batch",
      .decode_impls = {"decode"},
      .ops = {"qkv", "attention", "o_proj"}};
  p.comparisons = {
      {{"mha", "decode"}, {"gqa", "decode"}, "GQA vs MHA decode layer: a smaller KV cache and K/V projections"},
      {{"mha", "decode"}, {"mqa", "decode"}, "MQA vs MHA decode layer: one kv head"},
      {{"mha", "prefill"}, {"mqa", "prefill"}, "MQA vs MHA prefill: smaller K/V projections"},
  };
  // Shazeer's (2019) decode intensity, from the shape's batch, context, d_model,
  // q_heads, kv_heads and head_dim (analysis/roofs/attention_intensity.h).
  p.intensity_predictions = {{"decode", "shazeer-decode"}};
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    return attention::complete_shape(attention::parse_kind(variant), s);
  };
  p.cost = [](const RunSpec& r) {
    return attention::cost(attention::parse_phase(r.impl), attention::dims_of(r.shape), dtype_bytes(r.dtype),
                           r.backend);
  };
  p.make_cpu = attention::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = attention::make_cuda;
  return p;
}

}  // namespace lmroof
