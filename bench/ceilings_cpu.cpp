// CPU ceiling micro-benchmarks: STREAM-style copy and triad over arrays far larger
// than the last-level cache, an FP32 FMA peak from independent vector FMA chains,
// and the SGEMM peak of OpenBLAS. All use every OpenMP thread. Bandwidth counts
// bytes read plus bytes written; stores are ordinary (not non-temporal) stores,
// the same kind the operator kernels use, so the roof is one they can reach.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <fmt/format.h>
#include <immintrin.h>
#include <omp.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "bench/machine_context.h"
#include "bench/suite.h"
#include "common/host_data.h"

namespace lmroof::bench {

namespace {

// 2^25 floats = 128 MiB per array: 4x a 32 MiB L3, so every pass goes to DRAM.
constexpr int64_t kStreamElements = int64_t{1} << 25;
constexpr int64_t kQuickStreamElements = int64_t{1} << 23;

// Element-wise copy written with explicit vector stores so the compiler cannot
// turn it into memcpy (whose non-temporal path would measure a different roof).
// kStreaming uses streaming (non-temporal) stores, which skip the read of each
// destination line that an ordinary store triggers (write-allocate): kernels that
// stream their output (the fused norms) can reach that roof, the higher one.
template <bool kStreaming>
void copy_kernel(const float* __restrict a, float* __restrict b, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i += 16) {
#ifdef __AVX512F__
    if constexpr (kStreaming)
      _mm512_stream_ps(b + i, _mm512_loadu_ps(a + i));
    else
      _mm512_storeu_ps(b + i, _mm512_loadu_ps(a + i));
#else
    for (int j = 0; j < 16; ++j) b[i + j] = a[i + j];
#endif
  }
#ifdef __AVX512F__
  if constexpr (kStreaming) _mm_sfence();
#endif
}

void triad_kernel(float* __restrict a, const float* __restrict b, const float* __restrict c, float s, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
std::unique_ptr<float[], FreeDeleter> aligned_floats(int64_t n) {
  return std::unique_ptr<float[], FreeDeleter>(static_cast<float*>(std::aligned_alloc(64, n * sizeof(float))));
}

void bm_copy(benchmark::State& state, int64_t n, bool streaming) {
  // 64-byte aligned so streaming stores are legal on every vector.
  auto a = aligned_floats(n), b = aligned_floats(n);
  fill_uniform({a.get(), static_cast<size_t>(n)}, 1);
  const auto kernel = streaming ? copy_kernel<true> : copy_kernel<false>;
  kernel(a.get(), b.get(), n);  // first touch
  for (auto _ : state) {
    kernel(a.get(), b.get(), n);
    benchmark::DoNotOptimize(b.get());
    benchmark::ClobberMemory();
  }
  state.counters[kCeilingBytesCounter] = 2.0 * n * sizeof(float);
  state.SetLabel(fmt::format("2 arrays x {} MiB, {} threads, {} stores", n * 4 >> 20, omp_get_max_threads(),
                             streaming ? "streaming (non-temporal)" : "vector"));
}

void bm_triad(benchmark::State& state, int64_t n) {
  std::vector<float> a(n), b(n), c(n);
  fill_uniform(b, 1);
  fill_uniform(c, 2);
  triad_kernel(a.data(), b.data(), c.data(), 0.5f, n);
  for (auto _ : state) {
    triad_kernel(a.data(), b.data(), c.data(), 0.5f, n);
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.counters[kCeilingBytesCounter] = 3.0 * n * sizeof(float);
  state.SetLabel(fmt::format("3 arrays x {} MiB, {} threads", n * 4 >> 20, omp_get_max_threads()));
}

// Twelve independent accumulators per thread hide the FMA latency on every
// current x86 core (latency 4 x 2-3 pipes); each FMA counts 2 FLOPs per lane.
constexpr int kChains = 12;

double fma_chains(int64_t iterations) {
  double sink = 0;
#pragma omp parallel reduction(+ : sink)
  {
#ifdef __AVX512F__
    using vec = __m512;
    constexpr int lanes = 16;
    vec acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * (c + omp_get_thread_num()));
    const vec mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-7f);
    for (int64_t i = 0; i < iterations; ++i)
      for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], mul, add);
    float total = 0;
    alignas(64) float lanes_out[lanes];
    for (int c = 0; c < kChains; ++c) {
      _mm512_store_ps(lanes_out, acc[c]);
      for (float v : lanes_out) total += v;
    }
#else
    constexpr int lanes = 8;
    float acc[kChains][lanes];
    for (int c = 0; c < kChains; ++c)
      for (int l = 0; l < lanes; ++l) acc[c][l] = 0.001f * (c + l);
    for (int64_t i = 0; i < iterations; ++i)
      for (int c = 0; c < kChains; ++c)
#pragma omp simd
        for (int l = 0; l < lanes; ++l) acc[c][l] = acc[c][l] * 0.999999f + 1e-7f;
    float total = 0;
    for (int c = 0; c < kChains; ++c)
      for (int l = 0; l < lanes; ++l) total += acc[c][l];
#endif
    (void)lanes;
    sink += total;
  }
  return sink;
}

int fma_lanes() {
#ifdef __AVX512F__
  return 16;
#else
  return 8;
#endif
}

void bm_fp32_fma(benchmark::State& state, int64_t iterations) {
  for (auto _ : state) benchmark::DoNotOptimize(fma_chains(iterations));
  const int threads = omp_get_max_threads();
  state.counters[kCeilingFlopsCounter] = 2.0 * iterations * kChains * fma_lanes() * threads;
  state.SetLabel(fmt::format("{} threads x {} chains x {}-lane FMA", threads, kChains, fma_lanes()));
}

void bm_sgemm(benchmark::State& state, int n) {
  std::vector<float> a(size_t(n) * n), b(a.size()), c(a.size());
  fill_uniform(a, 1);
  fill_uniform(b, 2);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters[kCeilingFlopsCounter] = 2.0 * n * n * n;
  state.SetLabel(fmt::format("OpenBLAS sgemm {}^3, {} threads", n, omp_get_max_threads()));
}

}  // namespace

int register_ceiling_benchmarks(const SuiteOptions& options) {
  record_machine_context(options);
  if (options.backend == Backend::cuda) {
#ifdef LMROOF_WITH_CUDA
    return register_cuda_ceiling_benchmarks(options);
#else
    return 0;
#endif
  }
  int registered = 0;
  const int64_t n = options.quick ? kQuickStreamElements : kStreamElements;
  const int reps = options.quick ? 2 : options.repetitions;
  const double min_time = options.quick ? 0.02 : 0.1;
  auto tune = [&](benchmark::internal::Benchmark* b) {
    b->Repetitions(reps)->MinTime(min_time)->UseRealTime()->Unit(benchmark::kMillisecond);
    ++registered;
  };
  tune(benchmark::RegisterBenchmark("ceiling/cpu/copy", [n](benchmark::State& s) { bm_copy(s, n, false); }));
  tune(benchmark::RegisterBenchmark("ceiling/cpu/copy_nt", [n](benchmark::State& s) { bm_copy(s, n, true); }));
  tune(benchmark::RegisterBenchmark("ceiling/cpu/triad", [n](benchmark::State& s) { bm_triad(s, n); }));
  const int64_t fma_iters = options.quick ? 200'000 : 2'000'000;
  tune(benchmark::RegisterBenchmark("ceiling/cpu/fp32_fma", [fma_iters](benchmark::State& s) { bm_fp32_fma(s, fma_iters); }));
  const int gemm_n = options.quick ? 512 : 2048;
  tune(benchmark::RegisterBenchmark("ceiling/cpu/sgemm", [gemm_n](benchmark::State& s) { bm_sgemm(s, gemm_n); }));
  return registered;
}

}  // namespace lmroof::bench
