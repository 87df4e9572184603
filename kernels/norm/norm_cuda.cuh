#pragma once
// The fused CUDA norm kernel as a reusable launcher (the block's RMSNorm uses it).
// Include from .cu files only.
#include <cuda_runtime.h>

#include "norm/norm.h"

namespace lmroof::norm {

// y = norm(x) * gamma (+ beta for LayerNorm) over rows of d.d_model elements, one read
// of x and one write of y. T is float or __nv_bfloat16; statistics in fp32. beta may be
// null for RMSNorm. Enqueued on `stream`; throws on a launch error.
template <typename T>
void cuda_fused_norm(Kind kind, Dims d, const T* x, const T* gamma, const T* beta, T* y, cudaStream_t stream);

}  // namespace lmroof::norm
