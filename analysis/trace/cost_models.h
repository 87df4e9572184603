#pragma once
// One table of cost models for the ops of a PyTorch trace: FLOPs and bytes per call
// from the op's `Input Dims`, `Input type` and `Concrete Inputs`. Each model states
// what it counts (docs/trace.md, "Cost models", with a worked example each). An op
// without a model, or whose inputs the model cannot read, has no cost: nullopt,
// never a guess. An unknown dtype leaves the bytes unknown.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lmroof::trace {

// After Ivanov et al., "Data Movement Is All You Need" (MLSys 2021).
enum class OpClass { matmul, attention, normalization, elementwise, reduction, communication, memory, other };
constexpr OpClass kAllClasses[] = {OpClass::matmul,    OpClass::attention,     OpClass::normalization,
                                   OpClass::elementwise, OpClass::reduction, OpClass::communication,
                                   OpClass::memory,    OpClass::other};
std::string_view to_string(OpClass c);
std::optional<OpClass> parse_class(std::string_view text);

// Which peak an op is judged against.
enum class Unit { tensor, vector, network, none };

// One input of an op as the trace records it.
struct OpInput {
  bool is_tensor = false;               // dims given (a [] entry with a scalar type is not)
  std::vector<int64_t> dims;            // of a tensor
  std::vector<std::vector<int64_t>> list;  // of a TensorList
  std::string type;                     // "c10::BFloat16", "float", "Scalar", ""
  std::string concrete;                 // the Concrete Inputs value, "" when absent
};

// What a collective's op or kernel args say (record_param_comms, NCCL kernels): the
// message sizes in elements, their dtype ("BFloat16") and the group size.
struct CollectiveArgs {
  std::optional<int64_t> in_nelems, out_nelems, group_size;
  std::string dtype;
};

struct OpInputs {
  std::vector<OpInput> inputs;
  bool dims_parsed = true;  // false: Input Dims present but not readable
  CollectiveArgs collective;
};

// Parses the raw JSON arrays of one op's args (any may be empty: absent).
OpInputs parse_inputs(std::string_view input_dims, std::string_view input_types, std::string_view concrete_inputs);

// Bytes per element of a dtype string; nullopt for an unknown one (never assumed).
std::optional<int> dtype_bytes(std::string_view type);
// "bf16", "fp16", "fp8", "fp32", "fp64", "int", or "" (unknown): the peak to judge against.
std::string compute_dtype(std::string_view type);

struct OpCost {
  OpClass op_class = OpClass::other;
  std::string model;  // which model, e.g. "matmul: addmm"; "" = none
  Unit unit = Unit::none;
  std::string dtype;  // compute dtype for the peak
  std::optional<double> flops, bytes;  // per call
  std::string why_unknown;  // when flops or bytes are nullopt
  std::string assumption;   // e.g. "fp32 matmul on TF32 tensor cores"
  // Collectives (nccl-tests' definitions): the message size S and the bus factor.
  std::string collective;  // "all_reduce", "all_gather", "reduce_scatter", ...
  std::optional<double> message_bytes;
  std::optional<double> bus_factor;  // busbw = algbw · factor
};

// `name` with or without the "aten::" prefix, with or without an overload (".out": the
// last tensor input is the output). `kernel_names` are the names of the
// kernels the op launched (used to recognise collectives); world_size for busbw.
OpCost cost_of(std::string_view name, const OpInputs& inputs, const std::vector<std::string_view>& kernel_names,
               std::optional<int64_t> world_size);

bool is_collective_kernel(std::string_view kernel_name);

}  // namespace lmroof::trace
