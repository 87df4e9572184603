// The device query of a build without CUDA; the CUDA build compiles device_query.cu instead.
#ifndef LMROOF_WITH_CUDA
#include "profiler/device_query.h"

namespace lmroof {
DeviceInfo query_cuda_device() {
  DeviceInfo info;
  info.reason = "built without CUDA (nvcc was not found at configure time)";
  return info;
}
}  // namespace lmroof
#endif
