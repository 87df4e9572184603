#pragma once
// The one operator-class vocabulary of lmroof: a pair's composite breakdown (the block's
// classes, kernels/run_names/cost.h), the profiler's kernel trace (profiler/kernel_trace.h)
// and a user's PyTorch trace (analysis/trace) all file time, FLOPs and bytes under these.
// The grouping is lmroof's: softmax is a reduction, apart from the normalization layers
// the lecture's claim is about. Ivanov et al.'s three classes (contractions, statistical
// normalizations incl. softmax, element-wise) are a view over these
// (analysis/trace/op_classes.h, reports' ivanov_category).
#include <optional>
#include <string_view>

namespace lmroof {

enum class OpClass { matmul, attention, normalization, elementwise, reduction, communication, memory, other };

inline constexpr OpClass kAllOpClasses[] = {OpClass::matmul,      OpClass::attention, OpClass::normalization,
                                            OpClass::elementwise, OpClass::reduction, OpClass::communication,
                                            OpClass::memory,      OpClass::other};

// The class's name in every output (results.json, trace.json, reports).
constexpr std::string_view to_string(OpClass c) {
  switch (c) {
    case OpClass::matmul: return "matmul";
    case OpClass::attention: return "attention";
    case OpClass::normalization: return "normalization";
    case OpClass::elementwise: return "elementwise";
    case OpClass::reduction: return "reduction";
    case OpClass::communication: return "communication";
    case OpClass::memory: return "memory";
    case OpClass::other: return "other";
  }
  return "other";
}

// The class a name stands for; nullopt for an unknown name. "matrix" is read as matmul:
// bench.json and results.json written before 2026-12-07 named the pairs' class so.
constexpr std::optional<OpClass> parse_op_class(std::string_view name) {
  if (name == "matrix") return OpClass::matmul;
  for (OpClass c : kAllOpClasses)
    if (to_string(c) == name) return c;
  return std::nullopt;
}

// Ivanov et al.'s grouping (MLSys 2021, "Data Movement Is All You Need"): tensor
// contractions (matmul and attention), statistical normalizations (normalization layers
// and every softmax: both compute statistics), element-wise (the rest of the elementwise
// work and plain reductions); lmroof keeps communication, memory and other apart.
enum class IvanovClass { tensor_contraction, statistical_normalization, elementwise, communication, memory, other };
inline constexpr IvanovClass kAllIvanovClasses[] = {IvanovClass::tensor_contraction, IvanovClass::statistical_normalization,
                                                    IvanovClass::elementwise,        IvanovClass::communication,
                                                    IvanovClass::memory,             IvanovClass::other};

constexpr std::string_view to_string(IvanovClass c) {
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

// softmax: the work is a softmax (lmroof files it under reduction, or under attention
// when it is a fused attention's).
constexpr IvanovClass ivanov_class(OpClass c, bool softmax) {
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

}  // namespace lmroof
