// GPU ceiling micro-benchmarks (names "ceiling/cuda/<name>", manual time, one
// noise-targeted measurement per iteration, hot L2: every working set is far larger
// than L2 or is compute-bound):
//   dram_copy         cudaMemcpyAsync device to device of max(1 GiB, 4 x L2);
//                     bytes = read + written = 2 x size
//   dram_read         a read-only kernel over the same size: 16-byte loads, four in
//                     flight per thread, a per-block sum as the only write
//   l2_read           the read kernel over an L2-resident buffer (L2 / 4), many passes
//                     per launch, L1 bypassed (__ldcg): the L2 roof of the hierarchical
//                     roofline; bytes = size x passes
//   fp32_fma          independent FMA chains per thread at full occupancy; 2 FLOPs per
//                     FMA; also measures the SM clock (clock64 ticks over %globaltimer ns)
//   bf16_tensor_gemm  cuBLASLt 8192^3 GEMM, bf16 in and out, fp32 accumulation
//   launch            an empty kernel's launch + cudaStreamSynchronize, host clock: t0,
//                     the fixed cost a timed kernel pays (the latency bound's floor)
//   launch_throughput 64 empty kernels launched back to back, then one sync: the cost
//                     per launch when launches queue (the enqueue rate)
//   launch_graph      the same 64 launches captured in a CUDA graph, replayed + synced:
//                     the cost per kernel inside a graph
// The launch ceilings are medians of many calls (bench/launch_timing.h), not bests.
// Each skips with the device query's reason ("no CUDA device ...") without a GPU.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/cuda_read_sweep.h"
#include "bench/launch_timing.h"
#include "bench/suite.h"
#include "common/cublaslt_gemm.h"
#include "common/cuda_buffer.h"
#include "common/cuda_check.h"
#include "common/cuda_device.cuh"
#include "profiler/device_query.h"
#include "profiler/gpu_timer.h"

namespace lmroof::bench {

namespace {

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Hot timing (no flush: nothing here fits in L2 or depends on it), a few warm-ups.
profiler::GpuTimingOptions ceiling_timing(bool quick) {
  profiler::GpuTimingOptions o = profiler::GpuTimingOptions::from_env();
  o.cold = false;
  o.warmup_runs = 2;
  o.min_samples = 10;
  o.min_time_s = quick ? 0.02 : 0.1;
  o.max_time_s = quick ? 0.3 : 1.0;
  return o;
}

// Runs the body with the device check and error handling every ceiling needs.
template <typename F>
void guarded(benchmark::State& state, F&& body) {
  const DeviceInfo info = query_cuda_device();
  if (!info.available) {
    state.SkipWithError(info.reason.c_str());
    return;
  }
  try {
    body(info);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void report(benchmark::State& state, const profiler::GpuTiming& t) {
  state.SetIterationTime(t.median);
  state.counters["samples"] = benchmark::Counter(static_cast<double>(t.samples.size()));
  state.counters["cv"] = benchmark::Counter(t.cv);
}

// One noise-targeted measurement of `enqueue` per Google Benchmark iteration.
template <typename Enqueue>
void time_iterations(benchmark::State& state, bool quick, cudaStream_t stream, Enqueue&& enqueue) {
  const auto timing = ceiling_timing(quick);
  for (auto _ : state) report(state, profiler::time_on_stream(stream, enqueue, timing));
}

// max(1 GiB, 4 x L2), a multiple of 16 bytes.
size_t stream_bytes(const DeviceInfo& info) {
  const size_t l2x4 = static_cast<size_t>(4 * info.l2_bytes);
  return (std::max<size_t>(size_t{1} << 30, l2x4) + 15) / 16 * 16;
}

__global__ void fill_pattern_kernel(uint32_t* data, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    data[i] = static_cast<uint32_t>(i * 2654435761u) | 1u;
}

// ---------------------------------------------------------------------------

void bm_dram_copy(benchmark::State& state, bool quick) {
  guarded(state, [&](const DeviceInfo& info) {
    const size_t bytes = stream_bytes(info);
    cuda::DeviceBuffer<uint32_t> src(bytes / 4), dst(bytes / 4);
    Stream stream;
    fill_pattern_kernel<<<1024, 256, 0, stream.get()>>>(src.data(), src.size());
    CUDA_CHECK_LAUNCH();
    time_iterations(state, quick, stream.get(), [&] {
      CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    });
    state.counters[kCeilingBytesCounter] = benchmark::Counter(2.0 * static_cast<double>(bytes));
    state.SetLabel("cudaMemcpyAsync D2D " + std::to_string(bytes >> 20) + " MiB (L2 " +
                   std::to_string(static_cast<size_t>(info.l2_bytes) >> 20) + " MiB), bytes = read + written");
  });
}

// ---------------------------------------------------------------------------

constexpr int kReadThreads = kCudaReadThreadsPerBlock;
constexpr int kReadUnroll = 4;

// Reads n 16-byte vectors `passes` times; a per-block sum is the only write. Loads
// bypass L1 (__ldcg) and each pass hands every block a different slice, so re-reads
// (the L2 ceiling's passes) come from L2, never from an SM's L1. One pass over a
// buffer far larger than L2 is the DRAM read ceiling.
// Min blocks per SM = 2048 / kReadThreads: the grid is exactly that many blocks per SM in
// one wave, so ptxas must keep to 32 registers; at 33 only 7 blocks would fit and the
// 8th would run as a second, mostly idle wave.
__global__ void __launch_bounds__(kReadThreads, 2048 / kReadThreads)
    read_kernel(const uint4* __restrict__ data, size_t n, int passes, uint32_t* __restrict__ block_out) {
  uint32_t acc[kReadUnroll] = {};
  const size_t stride = static_cast<size_t>(gridDim.x) * kReadThreads;
  for (int pass = 0; pass < passes; ++pass) {
    const size_t block = (blockIdx.x + static_cast<size_t>(pass) * 131) % gridDim.x;
    size_t i = block * kReadThreads + threadIdx.x;
    // kReadUnroll independent 16-byte loads in flight per thread
    for (; i + (kReadUnroll - 1) * stride < n; i += kReadUnroll * stride) {
      uint4 v[kReadUnroll];
#pragma unroll
      for (int u = 0; u < kReadUnroll; ++u) v[u] = __ldcg(data + i + u * stride);
#pragma unroll
      for (int u = 0; u < kReadUnroll; ++u) acc[u] += v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n; i += stride) {
      const uint4 v = __ldcg(data + i);
      acc[0] += v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  uint32_t total = acc[0] + acc[1] + acc[2] + acc[3];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) total += __shfl_xor_sync(0xffffffffu, total, o);
  __shared__ uint32_t warp_totals[kReadThreads / 32];
  if (threadIdx.x % 32 == 0) warp_totals[threadIdx.x / 32] = total;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t sum = 0;
    for (int w = 0; w < kReadThreads / 32; ++w) sum += warp_totals[w];
    block_out[blockIdx.x] = sum;  // keeps the loads alive: 4 bytes per block
  }
}

// Times read_kernel over `bytes` (a multiple of 16), `passes` times per launch, and
// publishes the bytes read; returns the grid size for the label.
unsigned time_reads(benchmark::State& state, bool quick, size_t bytes, int passes) {
  const unsigned blocks = time_cuda_reads(state, quick, bytes, passes);
  state.counters[kCeilingBytesCounter] = benchmark::Counter(static_cast<double>(bytes) * passes);
  return blocks;
}

void bm_dram_read(benchmark::State& state, bool quick) {
  guarded(state, [&](const DeviceInfo& info) {
    const size_t bytes = stream_bytes(info);
    const unsigned blocks = time_reads(state, quick, bytes, 1);
    state.SetLabel("read-only kernel over " + std::to_string(bytes >> 20) + " MiB: " + std::to_string(blocks) +
                   " blocks x " + std::to_string(kReadThreads) + " threads, " + std::to_string(kReadUnroll) +
                   " 16-byte loads in flight per thread");
  });
}

void bm_l2_read(benchmark::State& state, bool quick) {
  guarded(state, [&](const DeviceInfo& info) {
    if (info.l2_bytes <= 0) throw std::runtime_error("the device reports no L2 size");
    // A quarter of L2 stays resident however the chip splits L2 into partitions.
    const size_t bytes = std::clamp<size_t>(static_cast<size_t>(info.l2_bytes) / 4, size_t{1} << 20, size_t{64} << 20) / 16 * 16;
    // About 1 GiB of L2 traffic per launch: far past launch overhead.
    const int passes = static_cast<int>(std::max<size_t>(8, (size_t{1} << 30) / bytes));
    time_reads(state, quick, bytes, passes);
    state.SetLabel("L2-resident read kernel: " + std::to_string(bytes >> 20) + " MiB (L2 " +
                   std::to_string(static_cast<size_t>(info.l2_bytes) >> 20) + " MiB) read " + std::to_string(passes) +
                   " times per launch, L1 bypassed (__ldcg)");
  });
}

// ---------------------------------------------------------------------------

constexpr int kFmaThreads = 256;
constexpr int kFmaChains = 8;

// kFmaChains independent dependency chains per thread: with 64 warps per SM every
// scheduler has far more independent FMAs ready than the 4-cycle latency needs.
// Thread 0 of each block records SM clock ticks and global-timer nanoseconds.
__global__ void __launch_bounds__(kFmaThreads, 2048 / kFmaThreads)
    fp32_fma_kernel(int iterations, float mul, float add, float* out, long long* ticks, unsigned long long* nanos) {
  unsigned long long t0 = 0;
  long long c0 = 0;
  if (threadIdx.x == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    c0 = clock64();
  }
  float acc[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) acc[c] = 1e-3f * static_cast<float>(threadIdx.x + c);
  // Unrolled 32 deep (256 FFMAs per trip): the loop's own add, compare and branch take
  // issue slots that FFMAs would otherwise use (one warp instruction per scheduler per
  // cycle); at 4 deep (32 FFMAs per 3 loop instructions, checked in the PTX) that cost
  // ~9% of the peak this kernel exists to measure, at 32 deep ~1%. `iterations` is a
  // power of two >= 2^14, so the remainder loop never runs.
#pragma unroll 32
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) acc[c] = fmaf(acc[c], mul, add);
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += acc[c];
  if (sum == 1234.5678f) out[blockIdx.x] = sum;  // never true; keeps the chains alive
  if (threadIdx.x == 0) {
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    ticks[blockIdx.x] = clock64() - c0;
    nanos[blockIdx.x] = t1 - t0;
  }
}

void bm_fp32_fma(benchmark::State& state, bool quick) {
  guarded(state, [&](const DeviceInfo&) {
    const int sms = sm_count();
    const unsigned blocks = static_cast<unsigned>(sms) * (2048 / kFmaThreads);
    const int iterations = quick ? (1 << 14) : (1 << 17);
    cuda::DeviceBuffer<float> out(blocks);
    cuda::DeviceBuffer<long long> ticks(blocks);
    cuda::DeviceBuffer<unsigned long long> nanos(blocks);
    Stream stream;
    const auto timing = ceiling_timing(quick);
    double mhz = 0;
    for (auto _ : state) {
      const auto t = profiler::time_on_stream(
          stream.get(),
          [&] {
            fp32_fma_kernel<<<blocks, kFmaThreads, 0, stream.get()>>>(iterations, 0.999f, 1e-3f, out.data(),
                                                                       ticks.data(), nanos.data());
            CUDA_CHECK_LAUNCH();
          },
          timing);
      report(state, t);
      // SM clock during the last sample: median over blocks of ticks per nanosecond
      std::vector<long long> tk(blocks);
      std::vector<unsigned long long> ns(blocks);
      CUDA_CHECK(cudaMemcpy(tk.data(), ticks.data(), ticks.bytes(), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(ns.data(), nanos.data(), nanos.bytes(), cudaMemcpyDeviceToHost));
      std::vector<double> rates;
      for (unsigned b = 0; b < blocks; ++b)
        if (ns[b] > 0) rates.push_back(1e3 * static_cast<double>(tk[b]) / static_cast<double>(ns[b]));
      mhz = profiler::median_of(rates);
    }
    state.counters[kCeilingFlopsCounter] =
        benchmark::Counter(2.0 * kFmaChains * static_cast<double>(iterations) * blocks * kFmaThreads);
    char label[160];
    std::snprintf(label, sizeof(label), "sm_clock_mhz=%.0f %u blocks x %d threads x %d FMA chains x %d iterations", mhz,
                  blocks, kFmaThreads, kFmaChains, iterations);
    state.SetLabel(label);
  });
}

// ---------------------------------------------------------------------------

__global__ void fill_bf16_kernel(cuda::bf16* data, size_t n, uint32_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    data[i] = __float2bfloat16_rn(static_cast<float>(h & 0xFFFF) / 32768.0f - 1.0f);  // uniform in [-1, 1)
  }
}

void bm_bf16_gemm(benchmark::State& state, bool quick) {
  guarded(state, [&](const DeviceInfo&) {
    constexpr int64_t n = 8192;
    const size_t count = static_cast<size_t>(n) * n;
    cuda::DeviceBuffer<cuda::bf16> a(count), b(count), c(count);
    Stream stream;
    fill_bf16_kernel<<<1024, 256, 0, stream.get()>>>(a.data(), count, 1);
    CUDA_CHECK_LAUNCH();
    fill_bf16_kernel<<<1024, 256, 0, stream.get()>>>(b.data(), count, 2);
    CUDA_CHECK_LAUNCH();
    cuda::BlasContext blas;
    cuda::GemmSpec spec;
    spec.M = spec.N = spec.K = n;
    spec.lda = spec.ldb = spec.ldc = n;
    spec.b_transposed = true;
    spec.dtype = DType::bf16;
    const cuda::GemmPlan gemm(blas, spec, a.data(), b.data(), c.data());
    time_iterations(state, quick, stream.get(), [&] { gemm.run(stream.get()); });
    state.counters[kCeilingFlopsCounter] = benchmark::Counter(2.0 * n * n * n);
    state.SetLabel("cuBLASLt " + std::to_string(n) + "^3 bf16 x bf16 -> bf16, fp32 accumulate" +
                   (gemm.uses_cublaslt() ? "" : " (cuBLAS fallback)"));
  });
}

// ---------------------------------------------------------------------------

__global__ void empty_kernel() {}

constexpr int kLaunchBatch = 64;  // launches per back-to-back batch and per graph

void bm_launch(benchmark::State& state, int calls) {
  guarded(state, [&](const DeviceInfo&) {
    Stream stream;
    launch_ceiling(state, [&] {
      empty_kernel<<<1, 1, 0, stream.get()>>>();
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }, calls);
    state.SetLabel("empty kernel <<<1, 1>>> launch + cudaStreamSynchronize, host steady clock");
  });
}

void bm_launch_throughput(benchmark::State& state, int calls) {
  guarded(state, [&](const DeviceInfo&) {
    Stream stream;
    launch_ceiling(state, [&] {
      for (int i = 0; i < kLaunchBatch; ++i) empty_kernel<<<1, 1, 0, stream.get()>>>();
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }, calls, kLaunchBatch);
    state.SetLabel("empty kernels launched back to back, " + std::to_string(kLaunchBatch) +
                   " then one cudaStreamSynchronize: per launch");
  });
}

void bm_launch_graph(benchmark::State& state, int calls) {
  guarded(state, [&](const DeviceInfo&) {
    Stream stream;
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kLaunchBatch; ++i) empty_kernel<<<1, 1, 0, stream.get()>>>();
    CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    CUDA_CHECK(made);
    struct Release {
      cudaGraphExec_t e;
      ~Release() { cudaGraphExecDestroy(e); }
    } release{exec};
    launch_ceiling(state, [&] {
      CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
      CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }, calls, kLaunchBatch);
    state.SetLabel("a CUDA graph of " + std::to_string(kLaunchBatch) +
                   " empty kernels, cudaGraphLaunch + cudaStreamSynchronize: per kernel");
  });
}

}  // namespace

unsigned time_cuda_reads(benchmark::State& state, bool quick, size_t bytes, int passes) {
  cuda::DeviceBuffer<uint32_t> data(bytes / 4);
  const unsigned blocks = static_cast<unsigned>(sm_count()) * (2048 / kReadThreads);
  cuda::DeviceBuffer<uint32_t> out(blocks);
  Stream stream;
  fill_pattern_kernel<<<1024, 256, 0, stream.get()>>>(data.data(), data.size());
  CUDA_CHECK_LAUNCH();
  time_iterations(state, quick, stream.get(), [&] {
    read_kernel<<<blocks, kReadThreads, 0, stream.get()>>>(reinterpret_cast<const uint4*>(data.data()), bytes / 16,
                                                            passes, out.data());
    CUDA_CHECK_LAUNCH();
  });
  return blocks;
}

int register_cuda_ceiling_benchmarks(const SuiteOptions& options) {
  const int reps = options.quick ? 2 : options.repetitions;
  const bool quick = options.quick;
  int registered = 0;
  auto tune = [&](benchmark::internal::Benchmark* b) {
    b->UseManualTime()->Iterations(1)->Repetitions(reps)->Unit(benchmark::kMillisecond);
    ++registered;
  };
  tune(benchmark::RegisterBenchmark("ceiling/cuda/dram_copy", [quick](benchmark::State& s) { bm_dram_copy(s, quick); }));
  tune(benchmark::RegisterBenchmark("ceiling/cuda/dram_read", [quick](benchmark::State& s) { bm_dram_read(s, quick); }));
  tune(benchmark::RegisterBenchmark("ceiling/cuda/l2_read", [quick](benchmark::State& s) { bm_l2_read(s, quick); }));
  tune(benchmark::RegisterBenchmark("ceiling/cuda/fp32_fma", [quick](benchmark::State& s) { bm_fp32_fma(s, quick); }));
  tune(benchmark::RegisterBenchmark("ceiling/cuda/bf16_tensor_gemm",
                                    [quick](benchmark::State& s) { bm_bf16_gemm(s, quick); }));
  const int calls = quick ? 2'000 : 20'000, batches = quick ? 200 : 2'000;
  tune(benchmark::RegisterBenchmark("ceiling/cuda/launch", [calls](benchmark::State& s) { bm_launch(s, calls); }));
  tune(benchmark::RegisterBenchmark("ceiling/cuda/launch_throughput",
                                    [batches](benchmark::State& s) { bm_launch_throughput(s, batches); }));
  tune(benchmark::RegisterBenchmark("ceiling/cuda/launch_graph",
                                    [batches](benchmark::State& s) { bm_launch_graph(s, batches); }));
  return registered;
}

}  // namespace lmroof::bench
