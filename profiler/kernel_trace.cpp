// Kernel tracing through CUPTI's activity API (CUDA builds) and the name-based
// operator classes of kernels (every build).
#include "profiler/kernel_trace.h"

#include "registry.h"

#include <algorithm>
#include <cctype>
#include <string>

#ifdef LMROOF_WITH_CUDA
#include <cuda_runtime.h>
#include <cupti.h>
#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <mutex>

#include "profiler/cupti_status.h"
#include "profiler/device_query.h"
#endif

namespace lmroof::profiler {

double KernelTrace::total_kernel_seconds() const {
  double s = 0;
  for (const auto& k : kernels) s += k.duration_ns * 1e-9;
  return s;
}

std::map<std::string, double> KernelTrace::seconds_by_class() const {
  std::map<std::string, double> out;
  for (const auto& k : kernels) out[std::string(to_string(k.op_class))] += k.duration_ns * 1e-9;
  return out;
}

// --- Kernel classes -----------------------------------------------------------------

const std::vector<KernelNameRule>& kernel_class_rules() {
  // all_pairs() is complete after static initialization and never changes, so the
  // views into its strings stay valid.
  static const std::vector<KernelNameRule> rules = [] {
    std::vector<KernelNameRule> all;
    for (const PairDef& pair : all_pairs())
      for (const KernelClassName& k : pair.kernel_classes) all.push_back({k.pattern, k.op_class, k.why});
    const auto& library = kernel_name_rules();
    all.insert(all.end(), library.begin(), library.end());
    return all;
  }();
  return rules;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

OpClass classify_kernel(std::string_view name) {
  const std::string n = lower(name);
  for (const auto& rule : kernel_class_rules())
    if (matches(rule, n)) return rule.op_class;
  return OpClass::other;
}

void classify_trace(std::vector<KernelRecord>& kernels) {
  for (auto& k : kernels) k.op_class = classify_kernel(k.name);
  // Each stream's kernels in launch order (start time; correlation id breaks ties).
  std::map<uint32_t, std::vector<size_t>> by_stream;
  for (size_t i = 0; i < kernels.size(); ++i) by_stream[kernels[i].stream_id].push_back(i);
  for (auto& [stream, idx] : by_stream) {
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return kernels[a].start_ns != kernels[b].start_ns ? kernels[a].start_ns < kernels[b].start_ns
                                                        : kernels[a].correlation_id < kernels[b].correlation_id;
    });
    const auto is_attention_softmax = [&](size_t i) {
      return kernels[i].op_class == OpClass::attention && lower(kernels[i].name).find("softmax") != std::string::npos;
    };
    std::vector<OpClass> by_name(idx.size());
    for (size_t j = 0; j < idx.size(); ++j) by_name[j] = kernels[idx[j]].op_class;
    for (size_t j = 0; j < idx.size(); ++j) {
      KernelRecord& k = kernels[idx[j]];
      if (by_name[j] == OpClass::matmul &&
          ((j > 0 && is_attention_softmax(idx[j - 1])) || (j + 1 < idx.size() && is_attention_softmax(idx[j + 1]))))
        k.op_class = OpClass::attention;
      if (j > 0 && lower(k.name).find("splitkreduce") != std::string::npos) k.op_class = kernels[idx[j - 1]].op_class;
    }
  }
}

// --- Activity tracing -----------------------------------------------------------------

#ifdef LMROOF_WITH_CUDA

namespace {

constexpr size_t kBufferBytes = size_t{8} << 20;
constexpr size_t kBufferAlign = 8;  // ACTIVITY_RECORD_ALIGNMENT

std::string demangle(const char* mangled) {
  if (!mangled) return "<unnamed kernel>";
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string s = status == 0 && out ? std::string(out) : std::string(mangled);
  std::free(out);
  return s;
}

// Records delivered by CUPTI's buffer-completed callback (a CUPTI thread, or the
// thread calling cuptiActivityFlushAll). Never destroyed: CUPTI may call back while
// the process exits.
struct Sink {
  std::mutex mutex;
  std::vector<KernelRecord> records;
  uint64_t dropped = 0;
};
Sink& sink() {
  static Sink* s = new Sink;
  return *s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // a null buffer makes CUPTI drop records, which are counted
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  std::vector<KernelRecord> local;
  CUpti_Activity* record = nullptr;
  while (buffer && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    // CUDA 13.0's kernel record; tests/test_cupti_gpu.cpp checks the fields come back sane.
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    KernelRecord r;
    r.mangled = k->name ? k->name : "";
    r.name = demangle(k->name);
    r.grid = {k->gridX, k->gridY, k->gridZ};
    r.block = {k->blockX, k->blockY, k->blockZ};
    r.start_ns = k->start;
    r.end_ns = k->end;
    r.duration_ns = k->end > k->start ? static_cast<double>(k->end - k->start) : 0.0;
    r.stream_id = k->streamId;
    r.correlation_id = k->correlationId;
    local.push_back(std::move(r));
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
  std::free(buffer);
  std::lock_guard<std::mutex> lock(sink().mutex);
  for (auto& r : local) sink().records.push_back(std::move(r));
  sink().dropped += dropped;
}

// Registers the buffer callbacks once per process; empty on success, else why not.
const std::string& register_callbacks() {
  static const std::string error = [] {
    const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    return r == CUPTI_SUCCESS ? std::string() : "cuptiActivityRegisterCallbacks failed: " + cupti_error(r);
  }();
  return error;
}

}  // namespace

KernelTrace trace_kernels(const std::function<void()>& run) {
  KernelTrace t;
  const DeviceInfo device = query_cuda_device();
  if (!device.available) {
    t.reason = device.reason.empty() ? "no CUDA device" : device.reason;
    return t;
  }
  if (const std::string& error = register_callbacks(); !error.empty()) {
    t.reason = error;
    return t;
  }
  uint32_t version = 0;
  if (cuptiGetVersion(&version) == CUPTI_SUCCESS && version != CUPTI_API_VERSION)
    t.note = "CUPTI API version " + std::to_string(version) + " at run time, " + std::to_string(CUPTI_API_VERSION) +
             " at build time; kernel records are read as CUpti_ActivityKernel10";

  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    t.reason = std::string("cudaDeviceSynchronize before tracing failed: ") + cudaGetErrorString(e);
    return t;
  }
  {
    // Deliver and forget whatever an earlier trace left behind.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(sink().mutex);
    sink().records.clear();
    sink().dropped = 0;
  }
  if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    t.reason = "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) failed: " + cupti_error(r);
    return t;
  }
  const auto stop = [] {
    const CUptiResult d = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    const CUptiResult f = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (d != CUPTI_SUCCESS) return "cuptiActivityDisable failed: " + cupti_error(d);
    if (f != CUPTI_SUCCESS) return "cuptiActivityFlushAll failed: " + cupti_error(f);
    return std::string();
  };

  cudaError_t sync = cudaSuccess;
  try {
    run();
    sync = cudaDeviceSynchronize();
  } catch (...) {
    stop();
    throw;
  }
  const std::string stop_error = stop();
  size_t dropped_global = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped_global) != CUPTI_SUCCESS) dropped_global = 0;
  {
    std::lock_guard<std::mutex> lock(sink().mutex);
    t.kernels = std::move(sink().records);
    sink().records.clear();
    t.dropped_records = sink().dropped + dropped_global;
    sink().dropped = 0;
  }
  if (sync != cudaSuccess) {
    t.kernels.clear();
    t.reason = std::string("the traced work failed: ") + cudaGetErrorString(sync);
    return t;
  }
  if (!stop_error.empty()) {
    t.reason = stop_error;
    return t;
  }
  std::sort(t.kernels.begin(), t.kernels.end(), [](const KernelRecord& a, const KernelRecord& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.correlation_id < b.correlation_id;
  });
  classify_trace(t.kernels);
  t.available = true;
  if (t.dropped_records > 0) {
    if (!t.note.empty()) t.note += "; ";
    t.note += std::to_string(t.dropped_records) + " activity records were dropped: the kernel list is incomplete";
  }
  return t;
}

#else  // !LMROOF_WITH_CUDA

KernelTrace trace_kernels(const std::function<void()>&) {
  KernelTrace t;
  t.reason = "built without CUDA (nvcc was not found at configure time)";
  return t;
}

#endif

}  // namespace lmroof::profiler
