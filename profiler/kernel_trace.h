#pragma once
// Which kernels a callable launched and how long each ran on the GPU, from CUPTI's
// activity API (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: records every kernel without
// serializing them, unlike CUPTI_ACTIVITY_KIND_KERNEL), and the operator class of each
// kernel from its name (docs/metrics.md, "Kernel classes").
//
// Plain C++ header, usable from every build: without CUDA, trace_kernels() returns
// {available = false, reason = "built without CUDA ..."}; the classification is pure
// string matching and always available.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/run_names/kernel_names.h"
#include <vector>

namespace lmroof::profiler {

struct KernelRecord {
  std::string name;     // demangled (the mangled name when demangling fails)
  std::string mangled;  // as CUPTI reports it
  std::array<int, 3> grid{}, block{};
  uint64_t start_ns = 0, end_ns = 0;  // GPU timestamps (CUPTI's clock)
  double duration_ns = 0;             // end - start
  uint32_t stream_id = 0;             // CUPTI's stream id
  uint32_t correlation_id = 0;        // links the record to the launching API call
  OpClass op_class = OpClass::other;  // classify_trace()
};

struct KernelTrace {
  bool available = false;
  std::string reason;                 // why not, when !available
  std::vector<KernelRecord> kernels;  // in order of start time
  uint64_t dropped_records = 0;       // records CUPTI could not store (buffer full); >0 means kernels are missing
  std::string note;                   // anything the reader should know (dropped records, CUPTI version skew)

  double total_kernel_seconds() const;
  // Sum of kernel durations per op_class. Overlapping kernels (several streams) are
  // each counted in full.
  std::map<std::string, double> seconds_by_class() const;
};

// Enables activity tracing, runs `run` (which may enqueue work on any stream),
// synchronizes the device, flushes CUPTI's buffers and disables tracing again. The
// result's kernels are classified with classify_trace(). Never throws for CUPTI
// states (they come back as available = false with the CUPTI error string);
// exceptions thrown by `run` propagate after tracing was switched off.
KernelTrace trace_kernels(const std::function<void()>& run);

// --- Kernel classes -----------------------------------------------------------------
// lmroof's one operator-class vocabulary (kernels/run_names/op_class.h); "other" when no
// rule matches. The rules, first match wins: every pair's own kernel names
// (PairDef::kernel_classes, kernels/registry.h, in catalogue order; substrings, lower
// case), then the library table kernels/run_names/kernel_names.h that a user's PyTorch
// trace uses too, so specific names come before generic ones (the block's causal softmax
// is attention, not a reduction).
const std::vector<KernelNameRule>& kernel_class_rules();

// The class of one kernel from its name alone.
OpClass classify_kernel(std::string_view name);

// classify_kernel() for every kernel, then two rules that need the neighbours (each
// stream's kernels in start order):
//  - a matrix kernel launched right before or right after an attention softmax kernel
//    (the score GEMM S = QKᵀ and the P·V GEMM around it) is attention;
//  - a cuBLAS split-K reduction kernel takes the class of the kernel before it.
void classify_trace(std::vector<KernelRecord>& kernels);

}  // namespace lmroof::profiler
