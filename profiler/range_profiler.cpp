// CUPTI range profiler (CUDA 12.6+ API: cupti_range_profiler.h, cupti_profiler_host.h),
// after NVIDIA's range_profiling sample:
//   host:   cuptiProfilerInitialize -> cuptiProfilerDeviceSupported -> cuptiDeviceGetChipName
//           -> cuptiProfilerGetCounterAvailability -> cuptiProfilerHostInitialize(RANGE_PROFILER)
//           -> cuptiProfilerHostConfigAddMetrics -> cuptiProfilerHostGetConfigImage(Size)
//           -> cuptiProfilerHostGetNumOfPasses
//   target: cuptiRangeProfilerEnable -> GetCounterDataSize -> CounterDataImageInitialize
//           -> SetConfig(UserRange, UserReplay) -> { Start, (PushRange, work, PopRange)*, Stop }
//           until isAllPassSubmitted -> DecodeData -> per range GetRangeInfo +
//           cuptiProfilerHostEvaluateToGpuValues -> Disable.
// Every CUPTI status is checked; failures become a reason string (cupti_status.h),
// never an exception. The host-side configuration is counter_plan.cpp's.
#include "profiler/range_profiler.h"

#include <string>
#include <utility>

#ifdef LMROOF_WITH_CUDA
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <cstdint>
#include <exception>
#include <mutex>

#include "profiler/cupti_host_config.h"
#include "profiler/cupti_status.h"
#include "profiler/device_query.h"
#endif

namespace lmroof::profiler {

const RangeValues* RangeProfile::find(const std::string& range_name) const {
  for (const auto& r : ranges)
    if (r.name == range_name) return &r;
  return nullptr;
}

#ifdef LMROOF_WITH_CUDA

namespace {

const char* support_level(CUpti_Profiler_Support_Level level) {
  switch (level) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED:
      return "supported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED:
      return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED:
      return "unsupported";
    default:
      return "unknown";
  }
}

// Driver entry points through the runtime, so that nothing links libcuda directly (the
// binaries must start on machines without a driver, where the tests then skip).
using CtxGetCurrentFn = CUresult (*)(CUcontext*);
using DeviceGetFn = CUresult (*)(CUdevice*, int);

template <typename F>
bool driver_function(const char* symbol, F& out, std::string& error) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult query{};
  const cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &query);
  if (e != cudaSuccess || query != cudaDriverEntryPointSuccess || !p) {
    error = std::string("cannot resolve driver function ") + symbol + ": " +
            (e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
    return false;
  }
  out = reinterpret_cast<F>(p);
  return true;
}

// cuptiProfilerInitialize / DeInitialize are per process; several RangeProfiler objects
// share one initialization.
std::mutex profiler_init_mutex;
int profiler_init_count = 0;

CUptiResult acquire_profiler() {
  std::lock_guard<std::mutex> lock(profiler_init_mutex);
  if (profiler_init_count == 0) {
    auto p = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (const CUptiResult r = cuptiProfilerInitialize(&p); r != CUPTI_SUCCESS) return r;
  }
  ++profiler_init_count;
  return CUPTI_SUCCESS;
}

void release_profiler() {
  std::lock_guard<std::mutex> lock(profiler_init_mutex);
  if (profiler_init_count > 0 && --profiler_init_count == 0) {
    auto p = cupti_params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
    cuptiProfilerDeInitialize(&p);
  }
}

}  // namespace

struct RangeProfiler::Impl {
  std::vector<std::string> requested;
  bool status_done = false;
  RangeProfilerStatus status;
  bool profiler_initialized = false;
  CuptiHostConfig host;
  std::vector<uint8_t> availability;
  std::vector<const char*> metric_names;  // into status.metrics, fixed once built
  CtxGetCurrentFn ctx_get_current = nullptr;

  ~Impl() {
    host.reset();
    if (profiler_initialized) release_profiler();
  }

  // Fills status; returns false with status.reason set on failure.
  bool initialize() {
    RangeProfilerStatus& st = status;
    const DeviceInfo device = query_cuda_device();
    if (!device.available) {
      st.reason = device.reason.empty() ? "no CUDA device" : device.reason;
      return false;
    }
    int ordinal = 0;
    if (const cudaError_t e = cudaGetDevice(&ordinal); e != cudaSuccess) {
      st.reason = std::string("cudaGetDevice failed: ") + cudaGetErrorString(e);
      return false;
    }
    if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {  // creates the primary context
      st.reason = std::string("creating the CUDA context failed: ") + cudaGetErrorString(e);
      return false;
    }
    DeviceGetFn device_get = nullptr;
    std::string error;
    if (!driver_function("cuCtxGetCurrent", ctx_get_current, error) ||
        !driver_function("cuDeviceGet", device_get, error)) {
      st.reason = error;
      return false;
    }
    CUdevice cu_device = 0;
    if (device_get(&cu_device, ordinal) != CUDA_SUCCESS) {
      st.reason = "cuDeviceGet failed";
      return false;
    }
    CUcontext ctx = nullptr;
    if (ctx_get_current(&ctx) != CUDA_SUCCESS || !ctx) {
      st.reason = "no current CUDA context (cuCtxGetCurrent)";
      return false;
    }

    if (const CUptiResult r = acquire_profiler(); r != CUPTI_SUCCESS) {
      st.reason = cupti_failure("cuptiProfilerInitialize", r);
      return false;
    }
    profiler_initialized = true;

    auto sup = cupti_params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
    sup.cuDevice = cu_device;
    sup.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (const CUptiResult r = cuptiProfilerDeviceSupported(&sup); r != CUPTI_SUCCESS) {
      st.reason = cupti_failure("cuptiProfilerDeviceSupported", r);
      return false;
    }
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
      std::string why;
      const auto add = [&](const char* what, CUpti_Profiler_Support_Level level) {
        if (level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
        why += std::string(why.empty() ? "" : ", ") + what + " " + support_level(level);
      };
      add("architecture", sup.architecture);
      add("SLI", sup.sli);
      add("vGPU", sup.vGpu);
      add("confidential compute", sup.confidentialCompute);
      add("CMP", sup.cmp);
      add("WSL", sup.wsl);
      st.reason = "CUPTI range profiling is not supported on " + device.name + " (" +
                  (why.empty() ? std::string("no detail") : why) + ")";
      return false;
    }

    auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = static_cast<size_t>(ordinal);
    if (const CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
      st.reason = cupti_failure("cuptiDeviceGetChipName", r);
      return false;
    }
    if (!chip.pChipName) {
      st.reason = "cuptiDeviceGetChipName returned no name";
      return false;
    }
    st.chip = chip.pChipName;

    auto avail = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = ctx;
    avail.pCounterAvailabilityImage = nullptr;
    if (const CUptiResult r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
      st.reason = cupti_failure("cuptiProfilerGetCounterAvailability", r);
      return false;
    }
    availability.assign(avail.counterAvailabilityImageSize, 0);
    avail.pCounterAvailabilityImage = availability.data();
    if (const CUptiResult r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
      st.reason = cupti_failure("cuptiProfilerGetCounterAvailability", r);
      return false;
    }

    if (!host.select_metrics(st.chip, availability, requested, st)) return false;
    if (!host.build_image(st)) return false;
    for (const auto& m : st.metrics) metric_names.push_back(m.c_str());
    st.available = true;
    return true;
  }
};

RangeProfiler::RangeProfiler(std::vector<std::string> metrics) : impl_(std::make_unique<Impl>()) {
  impl_->requested = std::move(metrics);
}

RangeProfiler::~RangeProfiler() = default;

const RangeProfilerStatus& RangeProfiler::status() {
  if (!impl_->status_done) {
    impl_->status_done = true;
    if (!impl_->initialize()) {
      impl_->status.available = false;
      impl_->host.reset();
    }
  }
  return impl_->status;
}

namespace {

// The range profiler object of one profile() call; disabled on every way out.
class EnabledProfiler {
 public:
  explicit EnabledProfiler(CUcontext ctx) {
    auto p = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    p.ctx = ctx;
    result_ = cuptiRangeProfilerEnable(&p);
    if (result_ == CUPTI_SUCCESS) object_ = p.pRangeProfilerObject;
  }
  ~EnabledProfiler() {
    if (started_) stop();
    if (!object_) return;
    auto p = cupti_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object_;
    cuptiRangeProfilerDisable(&p);
  }
  EnabledProfiler(const EnabledProfiler&) = delete;
  EnabledProfiler& operator=(const EnabledProfiler&) = delete;

  CUptiResult enable_result() const { return result_; }
  CUpti_RangeProfiler_Object* get() const { return object_; }

  CUptiResult start() {
    auto p = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object_;
    const CUptiResult r = cuptiRangeProfilerStart(&p);
    started_ = r == CUPTI_SUCCESS;
    return r;
  }
  CUptiResult stop(bool* all_passes_submitted = nullptr) {
    auto p = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object_;
    const CUptiResult r = cuptiRangeProfilerStop(&p);
    started_ = false;
    if (all_passes_submitted) *all_passes_submitted = r == CUPTI_SUCCESS && p.isAllPassSubmitted != 0;
    return r;
  }
  CUptiResult push(const char* name) const {
    auto p = cupti_params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object_;
    p.pRangeName = name;
    return cuptiRangeProfilerPushRange(&p);
  }
  CUptiResult pop() const {
    auto p = cupti_params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object_;
    return cuptiRangeProfilerPopRange(&p);
  }

 private:
  CUptiResult result_ = CUPTI_ERROR_UNKNOWN;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  bool started_ = false;
};

}  // namespace

RangeProfile RangeProfiler::profile(const std::function<void()>& before_pass, const std::vector<RangeStep>& ranges) {
  RangeProfile out;
  const RangeProfilerStatus& st = status();
  out.chip = st.chip;
  out.metrics = st.metrics;
  out.dropped = st.dropped;
  if (!st.available) {
    out.reason = st.reason;
    return out;
  }
  if (ranges.empty()) {
    out.reason = "no ranges to profile";
    return out;
  }
  CUcontext ctx = nullptr;
  if (impl_->ctx_get_current(&ctx) != CUDA_SUCCESS || !ctx) {
    out.reason = "no current CUDA context (cuCtxGetCurrent)";
    return out;
  }
  const auto sync = [](const char* where) -> std::string {
    const cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? std::string()
                            : std::string("cudaDeviceSynchronize ") + where + " failed: " + cudaGetErrorString(e);
  };
  if (std::string e = sync("before profiling"); !e.empty()) {
    out.reason = e;
    return out;
  }

  EnabledProfiler profiler(ctx);
  if (profiler.enable_result() != CUPTI_SUCCESS) {
    out.reason = cupti_failure("cuptiRangeProfilerEnable", profiler.enable_result());
    return out;
  }

  std::vector<uint8_t> counter_data;
  {
    auto p = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = profiler.get();
    p.pMetricNames = impl_->metric_names.data();
    p.numMetrics = impl_->metric_names.size();
    p.maxNumOfRanges = ranges.size();
    p.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges.size());
    if (const CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&p); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerGetCounterDataSize", r);
      return out;
    }
    counter_data.assign(p.counterDataSize, 0);
  }
  {
    auto p = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = profiler.get();
    p.counterDataSize = counter_data.size();
    p.pCounterData = counter_data.data();
    if (const CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&p); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerCounterDataImageInitialize", r);
      return out;
    }
  }
  {
    auto p = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = profiler.get();
    p.configSize = impl_->host.image().size();
    p.pConfig = impl_->host.image().data();
    p.counterDataImageSize = counter_data.size();
    p.pCounterDataImage = counter_data.data();
    p.range = CUPTI_UserRange;
    p.replayMode = CUPTI_UserReplay;
    p.maxRangesPerPass = ranges.size();
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    if (const CUptiResult r = cuptiRangeProfilerSetConfig(&p); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerSetConfig", r);
      return out;
    }
  }

  // Replay until CUPTI has every pass; the cap only guards against a CUPTI that never
  // reports completion.
  const size_t max_passes = st.passes + 16;
  bool all_submitted = false;
  while (!all_submitted) {
    if (out.passes >= max_passes) {
      out.reason = "CUPTI still wanted passes after " + std::to_string(out.passes) + " (expected " +
                   std::to_string(st.passes) + ")";
      return out;
    }
    if (before_pass) before_pass();  // exceptions propagate; `profiler` switches itself off
    if (std::string e = sync("before a pass"); !e.empty()) {
      out.reason = e;
      return out;
    }
    if (const CUptiResult r = profiler.start(); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerStart", r);
      return out;
    }
    for (const RangeStep& step : ranges) {
      if (const CUptiResult r = profiler.push(step.name.c_str()); r != CUPTI_SUCCESS) {
        out.reason = cupti_failure("cuptiRangeProfilerPushRange", r);
        return out;
      }
      if (step.run) step.run();
      if (std::string e = sync(("in range '" + step.name + "'").c_str()); !e.empty()) {
        out.reason = e;
        return out;
      }
      if (const CUptiResult r = profiler.pop(); r != CUPTI_SUCCESS) {
        out.reason = cupti_failure("cuptiRangeProfilerPopRange", r);
        return out;
      }
    }
    if (const CUptiResult r = profiler.stop(&all_submitted); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerStop", r);
      return out;
    }
    ++out.passes;
  }

  {
    auto p = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = profiler.get();
    if (const CUptiResult r = cuptiRangeProfilerDecodeData(&p); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerDecodeData", r);
      return out;
    }
    out.ranges_dropped = p.numOfRangeDropped;
  }
  size_t num_ranges = 0;
  {
    auto p = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    p.pCounterDataImage = counter_data.data();
    p.counterDataImageSize = counter_data.size();
    if (const CUptiResult r = cuptiRangeProfilerGetCounterDataInfo(&p); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerGetCounterDataInfo", r);
      return out;
    }
    num_ranges = p.numTotalRanges;
  }
  std::map<std::string, CounterValues> by_name;
  std::vector<double> values(impl_->metric_names.size());
  for (size_t i = 0; i < num_ranges; ++i) {
    auto info = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    info.rangeIndex = i;
    info.rangeDelimiter = "/";
    if (const CUptiResult r = cuptiRangeProfilerCounterDataGetRangeInfo(&info); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiRangeProfilerCounterDataGetRangeInfo", r);
      return out;
    }
    const std::string name = info.rangeName ? info.rangeName : "range " + std::to_string(i);

    auto eval = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    eval.pHostObject = impl_->host.host();
    eval.pCounterDataImage = counter_data.data();
    eval.counterDataImageSize = counter_data.size();
    eval.rangeIndex = i;
    eval.ppMetricNames = impl_->metric_names.data();
    eval.numMetrics = impl_->metric_names.size();
    eval.pMetricValues = values.data();
    if (const CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS) {
      out.reason = cupti_failure("cuptiProfilerHostEvaluateToGpuValues", r);
      return out;
    }
    CounterValues& cv = by_name[name];
    for (size_t m = 0; m < impl_->metric_names.size(); ++m) cv[impl_->metric_names[m]] = values[m];
  }
  for (const RangeStep& step : ranges) {
    const auto it = by_name.find(step.name);
    if (it == by_name.end()) {
      out.reason = "CUPTI returned no counters for range '" + step.name + "'" +
                   (out.ranges_dropped ? " (" + std::to_string(out.ranges_dropped) + " ranges dropped)" : "");
      out.ranges.clear();
      return out;
    }
    out.ranges.push_back({step.name, it->second});
  }
  out.available = true;
  return out;
}

#else  // !LMROOF_WITH_CUDA

struct RangeProfiler::Impl {
  RangeProfilerStatus status;
};

RangeProfiler::RangeProfiler(std::vector<std::string>) : impl_(std::make_unique<Impl>()) {
  impl_->status.reason = "built without CUDA (nvcc was not found at configure time)";
}

RangeProfiler::~RangeProfiler() = default;

const RangeProfilerStatus& RangeProfiler::status() { return impl_->status; }

RangeProfile RangeProfiler::profile(const std::function<void()>&, const std::vector<RangeStep>&) {
  RangeProfile out;
  out.reason = impl_->status.reason;
  return out;
}

#endif

}  // namespace lmroof::profiler
