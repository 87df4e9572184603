#pragma once
// Which class a kernel's time belongs to when its op alone does not say: the rules of
// docs/trace.md, "Classes and modules", each simple enough to check by hand.
//  - an op with a specific class (matmul, attention, normalization, communication) keeps it;
//  - an op without a model (CompiledFunction, an unknown custom op) takes its kernel's
//    class when the kernel name is specific (a GEMM library, flash attention, a norm
//    kernel, a collective);
//  - else a generic op (elementwise, reduction, other) takes its innermost module's class
//    when the module type says more (a *Norm* module: normalization; *Attention*/*Attn*:
//    attention);
//  - else the op's own class, or for an op without a model, the kernel's.
// The grouping of Ivanov et al. (MLSys 2021) is derived from the class and a softmax flag.
#include <optional>
#include <string>
#include <string_view>

#include "analysis/trace/cost_models.h"

namespace lmroof::trace {

// The class of a kernel from its name alone (docs/trace.md lists the patterns).
OpClass class_of_kernel(std::string_view kernel_name);
bool is_specific(OpClass c);  // matmul, attention, normalization, communication
// softmax, log_softmax and their backwards, by op name (aten:: optional) or kernel name.
bool is_softmax_op(std::string_view op_name);
bool is_softmax_kernel(std::string_view kernel_name);

// "nn.Module: Qwen2RMSNorm_0" -> "Qwen2RMSNorm" (the instance suffix _N dropped).
std::string module_type_of_event(std::string_view event_name);
// A `Module Hierarchy` arg ("TOP(Model)::forward.norm(Qwen2RMSNorm)::forward") -> its
// innermost type, the last "(Type)"; "" when there is none.
std::string module_type_of_hierarchy(std::string_view hierarchy);
// A module type's class when it says more than its ops: *Norm* -> normalization,
// *Attention* / *Attn* -> attention (case-insensitive); nullopt for every other type.
std::optional<OpClass> class_of_module(std::string_view module_type);

struct ClassChoice {
  OpClass op_class = OpClass::other;
  const char* source = "op";  // op | kernel | module
};
// The rules above; op_has_model: the op's class came from a cost model (else "other").
ClassChoice choose_class(OpClass op_class, bool op_has_model, OpClass kernel_class, std::optional<OpClass> module_class);

// Ivanov et al.'s three classes (tensor contractions: matmul and attention; statistical
// normalizations: normalization and every softmax; element-wise: the rest of the
// elementwise work and plain reductions), and lmroof's communication, memory, other.
enum class IvanovClass { tensor_contraction, statistical_normalization, elementwise, communication, memory, other };
constexpr IvanovClass kAllIvanovClasses[] = {IvanovClass::tensor_contraction, IvanovClass::statistical_normalization,
                                             IvanovClass::elementwise,        IvanovClass::communication,
                                             IvanovClass::memory,             IvanovClass::other};
std::string_view to_string(IvanovClass c);
IvanovClass ivanov_class(OpClass c, bool softmax);

}  // namespace lmroof::trace
