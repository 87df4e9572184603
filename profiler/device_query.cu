// Device query through the CUDA runtime. Compiled whenever nvcc is present, so CI
// proves the CUDA toolchain works even on machines without a GPU.
#include <cuda_runtime.h>

#include <string>

#include "profiler/device_query.h"

namespace lmroof {

DeviceInfo query_cuda_device() {
  DeviceInfo info;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    info.reason = err == cudaSuccess ? "no CUDA device" : std::string("no CUDA device (") + cudaGetErrorString(err) + ")";
    return info;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    info.reason = "no CUDA device (cudaGetDeviceProperties failed)";
    return info;
  }
  info.available = true;
  info.name = prop.name;
  info.sm_major = prop.major;
  info.sm_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  info.l2_bytes = static_cast<double>(prop.l2CacheSize);
  int driver = 0;
  cudaDriverGetVersion(&driver);
  info.driver_version = std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
  return info;
}

}  // namespace lmroof
