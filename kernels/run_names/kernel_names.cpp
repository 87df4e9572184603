#include "kernels/run_names/kernel_names.h"

#include <cctype>
#include <string>

namespace lmroof {

const std::vector<KernelNameRule>& kernel_name_rules() {
  using M = KernelNameRule::Match;
  static const std::vector<KernelNameRule> rules = {
      // Communication: NCCL/RCCL, symmetric-memory and custom all-reduce kernels.
      {"nccl", OpClass::communication, "NCCL kernels (ncclDevKernel_AllGather_RING_LL, ...)"},
      {"rccl", OpClass::communication, "RCCL kernels"},
      {"multimem", OpClass::communication, "NVLink SHARP multimem collectives"},
      {"symm_mem", OpClass::communication, "PyTorch symmetric-memory collectives"},
      {"symmetric_memory", OpClass::communication, "PyTorch symmetric-memory collectives"},
      {"allreduce", OpClass::communication, "all-reduce kernels"},
      {"all_reduce", OpClass::communication, "all-reduce kernels"},
      {"allgather", OpClass::communication, "all-gather kernels"},
      {"all_gather", OpClass::communication, "all-gather kernels"},
      {"reducescatter", OpClass::communication, "reduce-scatter kernels"},
      {"reduce_scatter", OpClass::communication, "reduce-scatter kernels"},
      {"cross_device_reduce", OpClass::communication, "vLLM's custom all-reduce"},
      // Copies and fills.
      {"memcpy", OpClass::memory, "memory copies", M::prefix},
      {"memset", OpClass::memory, "memory fills", M::prefix},
      // Attention before GEMMs: its softmax and tiles would otherwise be other classes.
      {"flash", OpClass::attention, "FlashAttention / FlashInfer kernels"},
      {"fmha", OpClass::attention, "fused multi-head attention (cuDNN, CUTLASS, xFormers)"},
      {"paged_attention", OpClass::attention, "vLLM's paged attention"},
      {"attention", OpClass::attention, "kernels named after attention"},
      {"attn", OpClass::attention, "kernels named after attention"},
      // Normalization layers, by their names only ("norm" alone would take normal_kernel,
      // the random-number fill).
      {"rms_norm", OpClass::normalization, "RMSNorm kernels (vllm::rms_norm_kernel, ...)"},
      {"rmsnorm", OpClass::normalization, "RMSNorm kernels (aiter, apex)"},
      {"layer_norm", OpClass::normalization, "LayerNorm kernels (vectorized_layer_norm_kernel, ...)"},
      {"layernorm", OpClass::normalization, "LayerNorm kernels"},
      {"group_norm", OpClass::normalization, "GroupNorm kernels"},
      {"batch_norm", OpClass::normalization, "BatchNorm kernels"},
      {"batchnorm", OpClass::normalization, "BatchNorm kernels (cuDNN)"},
      // Matmul: BLAS, tensor-core GEMM libraries and Triton's templates.
      {"gemm", OpClass::matmul, "GEMM kernels (cuBLAS sm90_xmma_gemm_*, CUTLASS, lmroof GEMMs)"},
      {"gemv", OpClass::matmul, "matrix-vector kernels (cuBLAS gemv*)"},
      {"nvjet", OpClass::matmul, "cuBLAS's nvJet GEMM kernels (CUDA 12.8+ on Hopper)"},
      {"cutlass", OpClass::matmul, "CUTLASS kernels"},
      {"xmma", OpClass::matmul, "cuBLAS/cuDNN xmma kernels"},
      {"cublas", OpClass::matmul, "kernels in cuBLAS's namespaces"},
      {"splitkreduce", OpClass::matmul, "cuBLAS's split-K reduction"},
      {"wgmma", OpClass::matmul, "kernels named after Hopper's warpgroup MMA"},
      {"matmul", OpClass::matmul, "kernels named after matmul"},
      {"cijk", OpClass::matmul, "rocBLAS/hipBLASLt Tensile GEMMs (Cijk_Ailk_Bljk_...)", M::prefix},
      {"_mm_", OpClass::matmul, "Triton matmul templates (triton_tem_fused_mm_0)", M::substring, "triton"},
      {"_mm", OpClass::matmul, "Triton matmul templates", M::suffix, "triton"},
      {"bmm", OpClass::matmul, "Triton batched matmul templates", M::substring, "triton"},
      {"addmm", OpClass::matmul, "Triton addmm templates", M::substring, "triton"},
      // Reductions, softmax among them (Ivanov's grouping counts a softmax as a
      // statistical normalization: kernels/run_names/op_class.h).
      {"softmax", OpClass::reduction, "softmax kernels outside attention (cunn_SoftMaxForward, ...)"},
      {"reduce_kernel", OpClass::reduction, "PyTorch's reduce_kernel"},
      {"triton_red_", OpClass::reduction, "Triton reductions"},
      {"triton_per_", OpClass::reduction, "Triton persistent reductions"},
      {"cub::device", OpClass::reduction, "CUB's scans, sorts and reductions (DeviceScanKernel, DeviceRadixSort...)"},
      {"scan", OpClass::reduction, "scan kernels (cumsum)"},
      // Convolutions: cuDNN's and MIOpen's kernels (their layout transforms run for the
      // convolution), after the softmax and GEMM rules and beside cuDNN's batch norms.
      {"bn_fw", OpClass::normalization, "cuDNN's batch-norm kernels (cudnn::bn_fw_tr_1C11_kernel_NCHW)"},
      {"bn_bw", OpClass::normalization, "cuDNN's batch-norm backward kernels"},
      {"cudnn", OpClass::matmul, "cuDNN kernels (scudnn_*, cudnn::ops::nchwToNhwcKernel, ...): convolutions"},
      {"cask_", OpClass::matmul, "cuDNN's CASK convolution kernels (cask_cudnn_infer::*)", M::prefix},
      {"convolve", OpClass::matmul, "convolution kernels (implicit_convolve_sgemm, ...)"},
      {"wgrad", OpClass::matmul, "convolution weight-gradient kernels"},
      {"dgrad", OpClass::matmul, "convolution data-gradient kernels"},
      {"miopen", OpClass::matmul, "MIOpen kernels: convolutions"},
      {"conv2d", OpClass::matmul, "kernels named after 2-d convolutions"},
      {"_pool", OpClass::reduction, "pooling kernels (max_pool_forward_nchw, adaptive_average_pool)"},
      // Element-wise.
      {"elementwise", OpClass::elementwise, "PyTorch's element-wise kernels (vectorized_elementwise_kernel, ...)"},
      {"multi_tensor_apply", OpClass::elementwise, "PyTorch's foreach and fused optimizer kernels"},
      {"triton_poi_", OpClass::elementwise, "Triton pointwise kernels"},
      {"bias", OpClass::elementwise, "bias additions (add_bias_kernel)"},
      {"rope", OpClass::elementwise, "rotary position embedding (rope_kernel)"},
      {"rotary", OpClass::elementwise, "rotary position embedding"},
      {"swiglu", OpClass::elementwise, "SwiGLU activation"},
      {"silu", OpClass::elementwise, "SiLU activation"},
      {"gelu", OpClass::elementwise, "GELU activation"},
      {"add_kernel", OpClass::elementwise, "residual additions (add_kernel)"},
      {"copy", OpClass::elementwise, "copy kernels (CatArrayBatchedCopy, recat_copy_async_kernel)"},
      {"permute", OpClass::elementwise, "permutation kernels"},
      {"distribution", OpClass::elementwise, "random fills (distribution_elementwise_grid_stride_kernel)"},
      // Embedding lookups (FBGEMM, PyTorch's embedding_bag): gathers, a reduction as the
      // embedding op's model counts them; last, so that rotary_embedding kernels stay element-wise.
      {"embedding", OpClass::reduction, "embedding lookups (split_embedding_codegen_*, embedding_bag_*)"},
  };
  return rules;
}

bool matches(const KernelNameRule& rule, std::string_view name) {
  if (!rule.also.empty() && name.find(rule.also) == std::string_view::npos) return false;
  switch (rule.match) {
    case KernelNameRule::Match::prefix: return name.starts_with(rule.pattern);
    case KernelNameRule::Match::suffix: return name.ends_with(rule.pattern);
    case KernelNameRule::Match::substring: break;
  }
  return name.find(rule.pattern) != std::string_view::npos;
}

OpClass class_of_kernel_name(std::string_view kernel_name) {
  std::string name(kernel_name);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& rule : kernel_name_rules())
    if (matches(rule, name)) return rule.op_class;
  return OpClass::other;
}

}  // namespace lmroof
