#include "analysis/predict/step_cost.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "kernels/run_names/op_formulas.h"

namespace lmroof::predict {

std::string_view to_string(StepBound bound) {
  switch (bound) {
    case StepBound::memory: return "memory";
    case StepBound::compute: return "compute";
    case StepBound::latency: return "latency";
  }
  return "?";
}

namespace {

// A norm over `rows` rows of the hidden size: the one formula the pairs and the trace
// use too (kernels/run_names/op_formulas.h), per-row terms and the rsqrt included.
double norm_flops(const ModelConfig& m, double rows) {
  const double d = static_cast<double>(m.hidden);
  return (m.norm == NormKind::rmsnorm ? formulas::rmsnorm_flops(rows, d) : formulas::layernorm_flops(rows, d)).total();
}
double norm_bytes(const ModelConfig& m, double rows, double e) {
  return formulas::norm_bytes(rows, static_cast<double>(m.hidden), m.norm == NormKind::layernorm ? 2 : 1, e);
}
// FLOPs per element of the activation (a transcendental counts as one): SiLU = x / (1 + exp(-x)): 4; tanh-GeLU: 8; a gate multiplies once more.
double activation_flops_per_element(const ModelConfig& m) {
  const double base = m.activation.find("gelu") != std::string::npos ? 8 : m.activation == "relu" ? 1 : 4;
  return m.gated_mlp ? base + 1 : base;
}
bool uses_rope(const ModelConfig& m) { return m.family != "gpt2" && m.family != "opt" && m.family != "bloom"; }

// Accumulates one kernel per call into its op, in first-seen order.
class StepBuilder {
 public:
  explicit StepBuilder(const Roof& roof) : roof_(roof) {}

  // `count` identical launches of F FLOPs and B bytes each (one per layer of a kind).
  void kernel(const std::string& name, double flops, double bytes, int64_t count = 1) {
    auto [it, added] = index_.try_emplace(name, ops_.size());
    if (added) {
      ops_.emplace_back();
      ops_.back().name = name;
    }
    OpCost& op = ops_[it->second];
    const double n = static_cast<double>(count);
    const double compute = roof_.peak_flops > 0 ? flops / roof_.peak_flops : 0;
    const double memory = bytes / roof_.bandwidth_bytes_per_s;
    op.flops += n * flops;
    op.bytes += n * bytes;
    op.launches += count;
    op.compute_s += n * compute;
    op.memory_s += n * memory;
    op.launch_s += n * roof_.launch_s;
    op.time_s += n * (std::max(compute, memory) + roof_.launch_s);
  }

  StepCost finish() { return sum_ops(std::move(ops_)); }

 private:
  const Roof& roof_;
  std::vector<OpCost> ops_;
  std::map<std::string, size_t> index_;
};

// The ops of every layer for `tokens` rows of activations, once per kind of layer
// (windowed or not) with as many launches as there are layers of that kind;
// `attention(window, count)` adds that kind's attention kernels (its cost depends on
// the phase and on the window: nullopt for full attention).
template <typename Attention>
void layers(StepBuilder& b, const ModelConfig& m, double tokens, double e, Attention attention) {
  const double d = static_cast<double>(m.hidden), f = static_cast<double>(m.d_ff);
  const double q = static_cast<double>(m.q_heads * m.head_dim), kv = static_cast<double>(m.kv_heads * m.head_dim);
  const int64_t windowed = m.sliding_window ? std::count(m.sliding_layers.begin(), m.sliding_layers.end(), true) : 0;
  const std::pair<std::optional<int64_t>, int64_t> kinds[] = {{std::nullopt, m.layers - windowed}, {m.sliding_window, windowed}};
  const bool post_norms = m.family == "gemma2";
  const double up_width = m.gated_mlp ? 2 * f : f;
  for (const auto& [window, count] : kinds) {
    if (count == 0) continue;
    auto norm = [&](const std::string& name) {
      b.kernel(name, norm_flops(m, tokens), norm_bytes(m, tokens, e), count);
    };
    // A GEMM reads its weights once and its activations once, and writes its output.
    auto gemm = [&](const std::string& name, double in, double out) {
      b.kernel(name, formulas::matmul_flops(1, tokens, out, in), formulas::matmul_bytes(1, tokens, out, in, e, e, e), count);
    };
    norm("attn_norm");
    gemm("qkv", d, q + 2 * kv);
    if (uses_rope(m)) b.kernel("rope", 3 * tokens * (q + kv), 2 * tokens * (q + kv) * e, count);
    attention(window, count);
    gemm("o_proj", q, d);
    if (post_norms) norm("attn_post_norm");
    if (!m.parallel_block) {
      b.kernel("residual", tokens * d, 3 * tokens * d * e, count);
      norm("mlp_norm");
    }
    gemm("mlp_up", d, up_width);
    b.kernel("mlp_act", activation_flops_per_element(m) * tokens * f, (up_width + f) * tokens * e, count);
    gemm("mlp_down", f, d);
    if (post_norms) norm("mlp_post_norm");
    // A parallel block adds attention and MLP outputs to the input in one pass.
    if (m.parallel_block) b.kernel("residual", 2 * tokens * d, 4 * tokens * d * e, count);
    else b.kernel("residual", tokens * d, 3 * tokens * d * e, count);
  }
}

// Positions a query at `position` (1-based) attends to through `window`.
double attended(const std::optional<int64_t>& window, double position) {
  return window ? std::min(position, static_cast<double>(*window)) : position;
}

// The embedding gather, the final norm over `tokens` rows, and the LM head for the
// `logits_rows` rows whose next token is sampled (logits written in fp32).
void ends(StepBuilder& b, const ModelConfig& m, double tokens, double logits_rows, double e) {
  const double d = static_cast<double>(m.hidden), v = static_cast<double>(m.vocab);
  b.kernel("final_norm", norm_flops(m, tokens), norm_bytes(m, tokens, e));
  b.kernel("lm_head", 2 * logits_rows * d * v, d * v * e + logits_rows * (d * e + v * 4));
}

// The layers of a prefill of `batch` sequences of n tokens each.
void prefill_layers(StepBuilder& b, const ModelConfig& m, double batch, double n, double e) {
  const double hd = static_cast<double>(m.head_dim), hq = static_cast<double>(m.q_heads), hkv = static_cast<double>(m.kv_heads);
  layers(b, m, batch * n, e, [&](const std::optional<int64_t>& window, int64_t count) {
    // Causal: query i attends min(i, W) positions, summed in closed form.
    const double w = attended(window, n);
    const double pairs = w * (w + 1) / 2 + (n - w) * w;
    // A fused (flash) kernel: QK^T and PV (4·hd per pair) plus the softmax (~5 per
    // pair); Q, K, V read once, O written, K and V stored into the cache.
    b.kernel("attention",
             batch * hq * pairs * (4 * hd + 5),
             batch * (n * (hq + 2 * hkv) * hd * e + n * hq * hd * e + n * 2 * hkv * hd * e), count);
  });
}

// The layers of one decode step of `rows` sequences at `context`.
void decode_layers(StepBuilder& b, const ModelConfig& m, double rows, int64_t context, double e) {
  const double hd = static_cast<double>(m.head_dim), hq = static_cast<double>(m.q_heads), hkv = static_cast<double>(m.kv_heads);
  layers(b, m, rows, e, [&](const std::optional<int64_t>& window, int64_t count) {
    // Each sequence's new token attends to `positions` cached K and V (its own included).
    const double positions = attended(window, static_cast<double>(context));
    b.kernel("attention", rows * hq * positions * (4 * hd + 5),
             rows * (2 * hkv * hd * positions * e + 2 * hkv * hd * e + 2 * hq * hd * e), count);
  });
}

}  // namespace

StepCost sum_ops(std::vector<OpCost> ops) {
  StepCost step;
  for (auto& op : ops) {
    const double roofline = std::max(op.compute_s, op.memory_s);
    op.bound = op.launch_s > roofline ? StepBound::latency
               : op.compute_s > op.memory_s ? StepBound::compute : StepBound::memory;
    step.flops += op.flops;
    step.bytes += op.bytes;
    step.time_s += op.time_s;
    // Each op's time goes to the term that bounds it (the launch overhead always to latency).
    step.launch_s += op.launch_s;
    (op.compute_s > op.memory_s ? step.compute_s : step.memory_s) += roofline;
  }
  step.bound = step.launch_s > std::max(step.compute_s, step.memory_s) ? StepBound::latency
               : step.compute_s > step.memory_s ? StepBound::compute : StepBound::memory;
  step.ops = std::move(ops);
  return step;
}

StepCost prefill_step(const ModelConfig& m, int64_t tokens_in, Dtype dtype, const Roof& roof) {
  StepBuilder b(roof);
  const double e = static_cast<double>(bytes_per_element(dtype)), n = static_cast<double>(tokens_in);
  b.kernel("embedding", 0, 2 * n * static_cast<double>(m.hidden) * e);
  prefill_layers(b, m, 1, n, e);
  ends(b, m, n, 1, e);
  return b.finish();
}

StepCost decode_step(const ModelConfig& m, int64_t batch, int64_t context, Dtype dtype, const Roof& roof) {
  StepBuilder b(roof);
  const double e = static_cast<double>(bytes_per_element(dtype)), rows = static_cast<double>(batch);
  b.kernel("embedding", 0, 2 * rows * static_cast<double>(m.hidden) * e);
  decode_layers(b, m, rows, context, e);
  ends(b, m, rows, rows, e);
  return b.finish();
}

std::vector<OpCost> prefill_layer_ops(const ModelConfig& m, int64_t batch, int64_t tokens, Dtype dtype, const Roof& roof) {
  StepBuilder b(roof);
  prefill_layers(b, m, static_cast<double>(batch), static_cast<double>(tokens), static_cast<double>(bytes_per_element(dtype)));
  return b.finish().ops;
}

std::vector<OpCost> decode_layer_ops(const ModelConfig& m, int64_t batch, int64_t context, Dtype dtype, const Roof& roof) {
  StepBuilder b(roof);
  decode_layers(b, m, static_cast<double>(batch), context, static_cast<double>(bytes_per_element(dtype)));
  return b.finish().ops;
}

}  // namespace lmroof::predict
