// Registers the window pair: sliding-window vs full attention decode, and interleaved stacks.
#include "registry.h"
#include "window/window.h"

namespace lmroof {

namespace {
Shape stack(int64_t batch, int64_t q_heads, int64_t kv_heads, int64_t head_dim, int64_t context, int64_t window) {
  return {{"batch", batch},     {"q_heads", q_heads}, {"kv_heads", kv_heads}, {"head_dim", head_dim},
          {"context", context}, {"window", window},   {"layers", window::kDefaultLayers}};
}
}  // namespace

PairDef window_pair() {
  PairDef p;
  p.name = "window";
  p.title = "Window pair: sliding-window vs full attention decode";
  p.summary = "Sliding-window (W) vs full attention decode over a 6-layer stack, and interleaved local/global "
              "stacks (1:1, 1:5): KV bytes per token grow with min(n, W)";
  p.combos = {{"full", "grouped"}, {"sliding", "grouped"}, {"interleave_1_1", "grouped"}, {"interleave_1_5", "grouped"}};
  // W = 4096 (Mistral-7B, Gemma-2) on both backends, contexts W/2 ... 4W, so the claims
  // name the same contexts everywhere. CPU: one sequence, 32 query heads sharing 8 kv
  // heads of 64: 4 KiB of K/V per position and layer, so even the smallest stack's
  // caches (48 MiB at n = 2048) exceed a 32 MiB L3; the largest (full, n = 16384) is
  // 384 MiB. GPU: 8 sequences of head_dim 128 (bf16: the same 4 KiB per position and
  // sequence, 3 GiB for full at 16k).
  // The CPU suite skips 8192 to stay within its time budget: W/2, W and 4W still give
  // the claims their three points of full attention's growth.
  for (int64_t n : {2048, 4096, 16384}) p.default_shapes.push_back(stack(1, 32, 8, 64, n, 4096));
  for (int64_t n : {2048, 4096, 8192, 16384}) p.cuda_shapes.push_back(stack(8, 32, 8, 128, n, 4096));
  // --quick: the same W and contexts (the claims name them) with one kv head of 16
  // (128 bytes per position and layer)
  for (int64_t n : {2048, 4096, 16384}) p.quick_shapes.push_back(stack(1, 4, 1, 16, n, 4096));
  p.comparisons = {
      {{"full", "grouped"}, {"sliding", "grouped"}, "sliding window vs full attention: min(n, W) cache rows per layer"},
      {{"full", "grouped"}, {"interleave_1_1", "grouped"}, "1 global : 1 local vs all global"},
      {{"full", "grouped"}, {"interleave_1_5", "grouped"}, "1 global : 5 local vs all global"},
  };
  p.complete_shape = [](const std::string& variant, const Shape& s) {
    return window::complete_shape(window::parse_kind(variant), s);
  };
  p.cost = [](const RunSpec& r) {
    return window::cost(window::parse_kind(r.variant), window::dims_of(r.shape), dtype_bytes(r.dtype), r.backend);
  };
  p.make_cpu = window::make_cpu;
  if constexpr (built_with_cuda) p.make_cuda = window::make_cuda;
  return p;
}

}  // namespace lmroof
