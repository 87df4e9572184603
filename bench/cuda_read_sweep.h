#pragma once
// The GPU's read sweep (bench/ceilings_cuda.cu's read_kernel: 16-byte loads past L1,
// four in flight per thread, one wave of blocks), shared by the read ceilings and the
// CUDA bandwidth curve so both measure memory with the same kernel. CUDA builds only.
#include <benchmark/benchmark.h>

#include <cstddef>

namespace lmroof::bench {

// Reads `bytes` (a multiple of 16) of a fresh device buffer `passes` times per launch,
// one noise-targeted timing (the median of many launches, hot L2) per Google Benchmark
// iteration, set as the iteration's manual time; returns the blocks launched (of 256
// threads). Throws on a CUDA error. Sets no byte counter: the caller says what was read.
unsigned time_cuda_reads(benchmark::State& state, bool quick, size_t bytes, int passes);

inline constexpr int kCudaReadThreadsPerBlock = 256;

}  // namespace lmroof::bench
