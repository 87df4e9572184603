#include "profiler/gpu_timer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "common/cuda_check.h"
#include "common/cuda_workload.h"
#include "profiler/device_query.h"

namespace lmroof::profiler {

namespace {

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Holds the stream until the host sets *release (host-mapped memory), or until the
// timeout, which it reports in *timed_out so a sample that might include launch
// latency is known.
__global__ void hold_stream_kernel(const volatile int* release, volatile int* timed_out,
                                   unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      break;
    }
    __nanosleep(256);
  }
}

// Reads every 16-byte word of the buffer; the sum is stored only if it equals a value
// it cannot take (the buffer holds zeros), which keeps the loads alive.
__global__ void __launch_bounds__(256) flush_read_kernel(const uint4* __restrict__ data, size_t n, float* sink) {
  uint32_t acc = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 v = __ldcg(data + i);  // cache in L2 only
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7F7F7F7Fu) *sink = static_cast<float>(acc);
}

double env_double(const char* name, double fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(x >= 0))
    throw std::invalid_argument(std::string(name) + "='" + v + "' is not a non-negative number");
  return x;
}

// Host-mapped flags for hold_stream_kernel, allocated once per process.
struct HoldFlags {
  volatile int* host = nullptr;  // [0] release, [1] timed out
  int* device = nullptr;
};

constexpr unsigned long long kHoldTimeoutNs = 2'000'000'000ull;  // 2 s
// The first hold's probe: the host releases right after the launch, so a GPU that
// sees host-mapped writes ends it within microseconds; one that does not waits this long.
constexpr unsigned long long kProbeTimeoutNs = 200'000'000ull;  // 0.2 s

// The launch-hiding hold, set up once per process, or why timing goes without it.
struct HoldState {
  HoldFlags flags;
  bool usable = false;
  std::string why_not;
};

// Allocates the flags and checks, with one short hold on `stream`, that the GPU sees
// the host's release. Either failure leaves the hold off for the whole process: a
// missing hold only lets launch latency into short samples, while a hold the GPU
// cannot see would cost every timing call its 2 s timeout.
HoldState make_hold_state(cudaStream_t stream) {
  HoldState st;
  void* p = nullptr;
  const cudaError_t alloc = cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped);
  if (alloc != cudaSuccess) {
    (void)cudaGetLastError();  // not a sticky error: clear it so later checks see only their own
    st.why_not = std::string("cudaHostAlloc(mapped) failed: ") + cudaGetErrorName(alloc);
    return st;
  }
  st.flags.host = static_cast<volatile int*>(p);
  st.flags.host[0] = 1;
  st.flags.host[1] = 0;
  const cudaError_t map = cudaHostGetDevicePointer(reinterpret_cast<void**>(&st.flags.device), p, 0);
  if (map != cudaSuccess) {
    (void)cudaGetLastError();
    st.why_not = std::string("cudaHostGetDevicePointer failed: ") + cudaGetErrorName(map);
    return st;
  }
  double probe_s = 0;
  try {
    // Load the kernel now: with lazy loading (the default) a first launch may need the
    // context idle, which it never is while the stream is held.
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, hold_stream_kernel));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    st.flags.host[0] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const auto launched = std::chrono::steady_clock::now();
    hold_stream_kernel<<<1, 1, 0, stream>>>(st.flags.device, st.flags.device + 1, kProbeTimeoutNs);
    CUDA_CHECK_LAUNCH();
    std::atomic_thread_fence(std::memory_order_seq_cst);
    st.flags.host[0] = 1;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    probe_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - launched).count();
  } catch (const std::exception& e) {
    st.flags.host[0] = 1;
    st.why_not = std::string("the hold's probe failed: ") + e.what();
    return st;
  }
  // The timed-out flag, or the wall time where the GPU's write to it is not visible either.
  if (st.flags.host[1] != 0 || probe_s >= 0.9 * static_cast<double>(kProbeTimeoutNs) * 1e-9) {
    st.flags.host[1] = 0;
    st.why_not = "the GPU did not see the host's release flag within 0.2 s (a probe hold took " +
                 std::to_string(static_cast<int>(probe_s * 1e3)) + " ms)";
    return st;
  }
  st.usable = true;
  return st;
}

// The process's hold, or nullptr; the first call decides and says once (stderr) when
// timing goes without it.
HoldFlags* hold_flags(cudaStream_t stream) {
  static const HoldState state = [stream] {
    HoldState st = make_hold_state(stream);  // never freed: the context may be gone at static destruction
    if (!st.usable)
      std::fprintf(stderr,
                   "lmroof: GPU timing without the launch-hiding stream hold (%s); samples of many short launches "
                   "may include launch latency\n",
                   st.why_not.c_str());
    return st;
  }();
  return state.usable ? const_cast<HoldFlags*>(&state.flags) : nullptr;
}

}  // namespace

GpuTimingOptions GpuTimingOptions::from_env() {
  GpuTimingOptions o;
  if (const char* mode = std::getenv("LMROOF_CUDA_TIMING"); mode && *mode) {
    const std::string m = mode;
    if (m == "cold")
      o.cold = true;
    else if (m == "hot")
      o.cold = false;
    else
      throw std::invalid_argument("LMROOF_CUDA_TIMING='" + m + "' (expected cold or hot)");
  }
  o.min_time_s = env_double("LMROOF_CUDA_MIN_TIME", o.min_time_s);
  o.max_time_s = env_double("LMROOF_CUDA_MAX_TIME", o.max_time_s);
  o.target_cv = env_double("LMROOF_CUDA_TARGET_CV", o.target_cv);
  o.hide_launch = env_double("LMROOF_CUDA_HIDE_LAUNCH", 1) != 0;
  return o;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lo + hi);
}

double cv_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= static_cast<double>(v.size() - 1);
  return mean > 0 ? std::sqrt(var) / mean : 0;
}

L2Flusher& L2Flusher::instance() {
  static L2Flusher* flusher = new L2Flusher();  // the buffer lives as long as the process
  return *flusher;
}

L2Flusher::L2Flusher() {
  const DeviceInfo info = query_cuda_device();
  if (!info.available) throw std::runtime_error("L2 flush: " + info.reason);
  const size_t l2 = info.l2_bytes > 0 ? static_cast<size_t>(info.l2_bytes) : size_t{64} << 20;
  bytes_ = std::max<size_t>(2 * l2, size_t{32} << 20);
  bytes_ = (bytes_ + 15) / 16 * 16;
  CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  CUDA_CHECK(cudaMemset(buffer_, 0, bytes_));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&sink_), sizeof(float)));
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, flush_read_kernel));  // loaded before any stream hold
  CUDA_CHECK(cudaDeviceSynchronize());
}

void L2Flusher::flush(cudaStream_t stream) {
  int sms = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  flush_read_kernel<<<static_cast<unsigned>(sms) * 8, 256, 0, stream>>>(static_cast<const uint4*>(buffer_),
                                                                         bytes_ / 16, sink_);
  CUDA_CHECK_LAUNCH();
}

GpuTiming time_on_stream(cudaStream_t stream, const std::function<void()>& enqueue, const GpuTimingOptions& options,
                         const std::function<void()>& after_sample) {
  using clock = std::chrono::steady_clock;
  GpuTiming t;
  t.cold = options.cold;
  // Everything a held sample launches must be loaded before the first hold (lazy
  // module loading may wait for an idle context): the flush and hold kernels are
  // loaded when first created, the workload's kernels by the warm-up runs.
  L2Flusher* flusher = options.cold ? &L2Flusher::instance() : nullptr;
  HoldFlags* hold = options.hide_launch ? hold_flags(stream) : nullptr;
  t.launch_hidden = hold != nullptr;
  for (int i = 0; i < options.warmup_runs; ++i) {
    if (flusher) flusher->flush(stream);
    enqueue();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  const cuda::Event start, stop;
  const auto wall_start = clock::now();
  double sum = 0, sum_sq = 0;
  bool holding = hold != nullptr;
  // If enqueue() throws while the stream is held, let the GPU go on at once.
  struct Release {
    HoldFlags* hold;
    ~Release() {
      if (hold) hold->host[0] = 1;
    }
  } release{hold};
  while (true) {
    if (holding) {
      hold->host[0] = 0;
      hold->host[1] = 0;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      hold_stream_kernel<<<1, 1, 0, stream>>>(hold->device, hold->device + 1, kHoldTimeoutNs);
      CUDA_CHECK_LAUNCH();
    }
    if (flusher) flusher->flush(stream);
    start.record(stream);
    enqueue();
    stop.record(stream);
    if (holding) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      hold->host[0] = 1;
    }
    const double s = cuda::elapsed_ms(start, stop) * 1e-3;
    if (holding && hold->host[1] != 0) {
      // the hold expired while the host was still enqueueing: the sample may include
      // launch latency, and holding evidently does not work for this workload
      ++t.hold_timeouts;
      holding = false;
    }
    if (after_sample) after_sample();
    t.samples.push_back(s);
    sum += s;
    sum_sq += s * s;

    const auto n = static_cast<double>(t.samples.size());
    const double mean = sum / n;
    const double var = n > 1 ? std::max(0.0, (sum_sq - n * mean * mean) / (n - 1)) : 0;
    const double cv = mean > 0 ? std::sqrt(var) / mean : 0;
    if (static_cast<int>(t.samples.size()) >= options.min_samples && sum >= options.min_time_s &&
        cv <= options.target_cv) {
      t.converged = true;
      break;
    }
    if (static_cast<int>(t.samples.size()) >= options.max_samples) break;
    if (std::chrono::duration<double>(clock::now() - wall_start).count() >= options.max_time_s) break;
  }
  t.median = median_of(t.samples);
  t.mean = sum / static_cast<double>(t.samples.size());
  t.min = *std::min_element(t.samples.begin(), t.samples.end());
  t.max = *std::max_element(t.samples.begin(), t.samples.end());
  t.cv = cv_of(t.samples);
  return t;
}

}  // namespace lmroof::profiler
