#include "profiler/metrics.h"

#include <exception>
#include <string>
#include <utility>

#include "profiler/device_query.h"
#include "profiler/range_profiler.h"

#ifdef LMROOF_WITH_CUDA
#include <cuda_runtime.h>

#include "common/cuda_workload.h"
#include "profiler/gpu_timer.h"
#endif

namespace lmroof::profiler {

const char* to_string(MetricsState s) {
  switch (s) {
    case MetricsState::available:
      return "available";
    case MetricsState::built_without_cuda:
      return "built without CUDA";
    case MetricsState::no_device:
      return "no CUDA device";
    case MetricsState::unsupported_device:
      return "unsupported device";
    case MetricsState::insufficient_privileges:
      return "insufficient privileges";
    case MetricsState::error:
      return "error";
  }
  return "error";
}

#ifdef LMROOF_WITH_CUDA
namespace {

MetricsState state_of(const std::string& reason) {
  const auto has = [&](const char* s) { return reason.find(s) != std::string::npos; };
  if (has("INSUFFICIENT_PRIVILEGES")) return MetricsState::insufficient_privileges;
  if (has("not supported") || has("NOT_SUPPORTED") || has("MIG")) return MetricsState::unsupported_device;
  return MetricsState::error;
}

}  // namespace
#endif

struct MetricsCollector::Impl {
  RangeProfiler profiler;
  bool probed = false;
  MetricsAvailability availability;
};

MetricsCollector::MetricsCollector() : impl_(std::make_unique<Impl>()) {}
MetricsCollector::~MetricsCollector() = default;

MetricsCollector& MetricsCollector::instance() {
  static MetricsCollector* collector = new MetricsCollector;  // deliberately never destroyed
  return *collector;
}

MetricsAvailability MetricsCollector::probe() {
  if (impl_->probed) return impl_->availability;
  impl_->probed = true;
  MetricsAvailability& a = impl_->availability;
  const DeviceInfo device = query_cuda_device();
#ifndef LMROOF_WITH_CUDA
  a.state = MetricsState::built_without_cuda;
  a.reason = device.reason.empty() ? "built without CUDA" : device.reason;
  a.tracing_reason = a.reason;
  return a;
#else
  if (!device.available) {
    a.state = MetricsState::no_device;
    a.reason = device.reason.empty() ? "no CUDA device" : device.reason;
    a.tracing_reason = a.reason;
    return a;
  }
  a.device = device.name;
  try {
    const KernelTrace t = trace_kernels([] {});
    a.tracing = t.available;
    a.tracing_reason = t.reason;

    const RangeProfilerStatus& st = impl_->profiler.status();
    a.chip = st.chip;
    a.metrics = st.metrics;
    a.dropped_metrics = st.dropped;
    a.passes = st.passes;
    if (!st.available) {
      a.state = state_of(st.reason);
      a.reason = st.reason;
      return a;
    }
    // One empty pass through the whole target-side sequence: permission problems
    // (ERR_NVGPUCTRPERM) surface at enable/set-config/start, not on the host side.
    // The range holds one small kernel (an L2 flush, which measure() needs anyway) so
    // that CUPTI has work to attribute to it.
    const RangeProfile p = impl_->profiler.profile(nullptr, {{"probe", [] { L2Flusher::instance().flush(nullptr); }}});
    if (!p.available) {
      a.state = state_of(p.reason);
      a.reason = p.reason;
      return a;
    }
    a.state = MetricsState::available;
  } catch (const std::exception& e) {
    a.state = MetricsState::error;
    a.reason = std::string("probing CUPTI failed: ") + e.what();
  }
  return a;
#endif
}

MeasuredCounters MetricsCollector::measure(Workload& workload) {
  MeasuredCounters m;
#ifndef LMROOF_WITH_CUDA
  (void)workload;
  m.reason = probe().reason;
  return m;
#else
  cuda::CudaWorkload* cw = cuda::as_cuda(workload);
  if (!cw) {
    m.reason = "not a CUDA workload: the CPU backend reads no hardware counters";
    return m;
  }
  const MetricsAvailability a = probe();
  m.chip = a.chip;
  m.dropped_metrics = a.dropped_metrics;
  if (!a.available()) {
    m.reason = a.reason;
    return m;
  }
  try {
    const cudaStream_t stream = cw->stream();
    workload.run();  // warm-up outside any range: lazy module loading, cuBLASLt's first call
    if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
      m.reason = std::string("the workload failed before profiling: ") + cudaGetErrorString(e);
      return m;
    }
    L2Flusher& flusher = L2Flusher::instance();
    const RangeProfile p =
        impl_->profiler.profile([&] { flusher.flush(stream); }, {{"workload", [&] { workload.run(); }},
                                                                 {"writeback", [&] { flusher.flush(stream); }},
                                                                 {"baseline", [&] { flusher.flush(stream); }}});
    m.passes = p.passes;
    if (!p.available) {
      m.reason = p.reason;
      return m;
    }
    m.workload_raw = p.find("workload")->values;
    m.writeback_raw = p.find("writeback")->values;
    m.baseline_raw = p.find("baseline")->values;
  } catch (const std::exception& e) {
    m.reason = std::string("measuring the workload failed: ") + e.what();
    return m;
  }
  m.workload = derive(m.workload_raw);
  m.writeback_bytes = writeback_bytes(m.writeback_raw, m.baseline_raw);
  m.dram_read_bytes = m.workload.dram_read_bytes;
  if (m.workload.dram_write_bytes && m.writeback_bytes)
    m.dram_write_bytes = *m.workload.dram_write_bytes + *m.writeback_bytes;
  if (m.dram_read_bytes && m.dram_write_bytes) m.dram_bytes = *m.dram_read_bytes + *m.dram_write_bytes;
  if (!m.workload.missing.empty()) {
    m.note = "counters missing on " + m.chip + ":";
    for (const auto& name : m.workload.missing) m.note += " " + name;
  }
  m.available = true;
  return m;
#endif
}

KernelTrace MetricsCollector::trace(Workload& workload) {
#ifndef LMROOF_WITH_CUDA
  (void)workload;
  return trace_kernels([] {});
#else
  KernelTrace t;
  cuda::CudaWorkload* cw = cuda::as_cuda(workload);
  if (!cw) {
    t.reason = "not a CUDA workload: kernel tracing is for the CUDA backend";
    return t;
  }
  const DeviceInfo device = query_cuda_device();
  if (!device.available) {
    t.reason = device.reason.empty() ? "no CUDA device" : device.reason;
    return t;
  }
  try {
    const cudaStream_t stream = cw->stream();
    workload.run();                       // warm-up, untraced
    L2Flusher::instance().flush(stream);  // cold, like the timing
    if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
      t.reason = std::string("the workload failed before tracing: ") + cudaGetErrorString(e);
      return t;
    }
    return trace_kernels([&] { workload.run(); });
  } catch (const std::exception& e) {
    t.kernels.clear();
    t.available = false;
    t.reason = std::string("tracing the workload failed: ") + e.what();
    return t;
  }
#endif
}

}  // namespace lmroof::profiler
