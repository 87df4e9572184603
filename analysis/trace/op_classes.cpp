#include "analysis/trace/op_classes.h"

#include <cctype>

namespace lmroof::trace {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

bool is_specific(OpClass c) {
  return c == OpClass::matmul || c == OpClass::attention || c == OpClass::normalization || c == OpClass::communication;
}

bool is_softmax_op(std::string_view name) {
  if (name.starts_with("aten::")) name.remove_prefix(6);
  return name == "softmax" || name == "_softmax" || name == "log_softmax" || name == "_log_softmax" ||
         name == "_safe_softmax" || name == "_softmax_backward_data" || name == "_log_softmax_backward_data";
}

bool is_softmax_kernel(std::string_view kernel_name) { return has(lower(kernel_name), "softmax"); }

OpClass class_of_kernel(std::string_view kernel_name) {
  const std::string k = lower(kernel_name);
  // Order matters: a collective or attention kernel may also name a GEMM tile.
  if (has(k, "nccl") || has(k, "rccl") || has(k, "multimem") || has(k, "symm_mem") || has(k, "symmetric_memory") ||
      has(k, "allreduce") || has(k, "all_reduce") || has(k, "allgather") || has(k, "all_gather") ||
      has(k, "reducescatter") || has(k, "reduce_scatter") || has(k, "cross_device_reduce"))
    return OpClass::communication;
  if (k.starts_with("memcpy") || k.starts_with("memset")) return OpClass::memory;
  if (has(k, "flash") || has(k, "fmha") || has(k, "paged_attention") || has(k, "attention") || has(k, "attn"))
    return OpClass::attention;
  if (has(k, "rms_norm") || has(k, "rmsnorm") || has(k, "layer_norm") || has(k, "layernorm") || has(k, "group_norm") ||
      has(k, "batch_norm") || has(k, "batchnorm"))
    return OpClass::normalization;
  const bool triton = has(k, "triton");
  if (has(k, "gemm") || has(k, "cutlass") || has(k, "nvjet") || has(k, "xmma") || has(k, "cublas") || k.starts_with("cijk") ||
      (triton && (has(k, "_mm_") || k.ends_with("_mm") || has(k, "bmm") || has(k, "addmm"))))
    return OpClass::matmul;
  if (has(k, "softmax") || has(k, "reduce_kernel") || (triton && (has(k, "triton_red_") || has(k, "triton_per_"))))
    return OpClass::reduction;
  if (has(k, "elementwise_kernel") || has(k, "multi_tensor_apply") || (triton && has(k, "triton_poi_")))
    return OpClass::elementwise;
  return OpClass::other;
}

std::string module_type_of_event(std::string_view name) {
  constexpr std::string_view kPrefix = "nn.Module: ";
  if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
  const size_t underscore = name.rfind('_');
  if (underscore != std::string_view::npos && underscore + 1 < name.size()) {
    bool digits = true;
    for (char c : name.substr(underscore + 1)) digits = digits && c >= '0' && c <= '9';
    if (digits) name = name.substr(0, underscore);
  }
  return std::string(name);
}

std::string module_type_of_hierarchy(std::string_view hierarchy) {
  const size_t close = hierarchy.rfind(')');
  if (close == std::string_view::npos) return "";
  const size_t open = hierarchy.rfind('(', close);
  if (open == std::string_view::npos) return "";
  return std::string(hierarchy.substr(open + 1, close - open - 1));
}

std::optional<OpClass> class_of_module(std::string_view module_type) {
  const std::string m = lower(module_type);
  if (has(m, "norm")) return OpClass::normalization;
  if (has(m, "attention") || has(m, "attn")) return OpClass::attention;
  return std::nullopt;
}

ClassChoice choose_class(OpClass op_class, bool op_has_model, OpClass kernel_class, std::optional<OpClass> module_class) {
  if (is_specific(op_class)) return {op_class, "op"};
  if (!op_has_model && is_specific(kernel_class)) return {kernel_class, "kernel"};
  if (module_class) return {*module_class, "module"};
  if (!op_has_model && kernel_class != OpClass::other) return {kernel_class, "kernel"};
  return {op_class, "op"};
}

std::string_view to_string(IvanovClass c) {
  switch (c) {
    case IvanovClass::tensor_contraction: return "tensor_contraction";
    case IvanovClass::statistical_normalization: return "statistical_normalization";
    case IvanovClass::elementwise: return "elementwise";
    case IvanovClass::communication: return "communication";
    case IvanovClass::memory: return "memory";
    case IvanovClass::other: return "other";
  }
  return "other";
}

IvanovClass ivanov_class(OpClass c, bool softmax) {
  if (softmax) return IvanovClass::statistical_normalization;
  switch (c) {
    case OpClass::matmul:
    case OpClass::attention: return IvanovClass::tensor_contraction;
    case OpClass::normalization: return IvanovClass::statistical_normalization;
    case OpClass::elementwise:
    case OpClass::reduction: return IvanovClass::elementwise;
    case OpClass::communication: return IvanovClass::communication;
    case OpClass::memory: return IvanovClass::memory;
    case OpClass::other: return IvanovClass::other;
  }
  return IvanovClass::other;
}

}  // namespace lmroof::trace
