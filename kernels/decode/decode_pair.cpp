// Registers the decode pair: variants, implementation levels, suite shapes, comparisons.
#include "decode/decode.h"
#include "registry.h"

namespace lmroof {

PairDef decode_pair() {
  PairDef p;
  p.name = "decode";
  p.title = "Decode pair: MHA vs GQA vs MQA attention at decode time";
  p.summary = "Decode attention over a KV cache: MHA vs GQA vs MQA, each query head streaming K/V (naive) or "
              "one K/V read per kv-head group (grouped)";
  p.combos = {{"mha", "naive"}, {"mha", "grouped"}, {"gqa", "naive"},
              {"gqa", "grouped"}, {"mqa", "naive"}, {"mqa", "grouped"}};
  // One batch/head configuration over a context sweep (1024 ... 8192), so "decode
  // time grows linearly with context" can be checked on the default suite. kv_heads
  // is filled per variant (mha 32, gqa 4, mqa 1). Batch 4 keeps the largest MHA
  // cache at 1 GiB (K + V), a few tens of ms per run on a small CPU.
  for (int64_t context : {1024, 2048, 4096, 8192})
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
  };
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    return decode::complete_shape(decode::parse_kind(variant), s);
  };
  p.cost = [](const RunSpec& r) {
    const auto impl = decode::parse_impl(r.impl);
    const auto dims = decode::dims_of(r.shape);
    return decode::cost(impl, dims, decode::context_splits(r.backend, impl, dims), dtype_bytes(r.dtype));
  };
  p.make_cpu = decode::make_cpu;
#ifdef LMROOF_WITH_CUDA
  p.make_cuda = decode::make_cuda;
#endif
  return p;
}

}  // namespace lmroof
