#include <string>

#ifdef LMROOF_WITH_CUDA
#include "profiler/cupti_status.h"

namespace lmroof::profiler {

std::string cupti_error(CUptiResult r) {
  const char* name = nullptr;
  const char* message = nullptr;
  if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name) name = "unknown CUPTI error";
  std::string s = name;
  // CUPTI's message is often the result's name again; only a different one adds anything.
  if (cuptiGetErrorMessage(r, &message) == CUPTI_SUCCESS && message && *message && s != message)
    s += std::string(" (") + message + ")";
  return s;
}

std::string cupti_failure(const char* call, CUptiResult r) {
  std::string s = std::string(call) + " failed: " + cupti_error(r);
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      s += "; reading GPU performance counters needs permission (ERR_NVGPUCTRPERM): run as root or load the "
           "driver with NVreg_RestrictProfilingToAdminUsers=0, see https://developer.nvidia.com/ERR_NVGPUCTRPERM";
      break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      s += "; this is a MIG instance, on which CUPTI cannot profile";
      break;
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      s += "; the GPU runs in confidential-computing mode, where counters are unavailable";
      break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      s += "; this virtual GPU does not expose counters";
      break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      s += "; another profiler (ncu, nsys, a CUPTI tool) already holds the device";
      break;
    default:
      break;
  }
  return s;
}

}  // namespace lmroof::profiler
#endif
