#pragma once
// Is there a CUDA device this process can use, and what is it? Answered without
// failing when the build has no CUDA or the machine has no GPU.
#include <string>

namespace lmroof {

struct DeviceInfo {
  bool available = false;
  std::string reason;  // why not, when !available ("no CUDA device", "built without CUDA")
  std::string name;    // e.g. "NVIDIA H200"
  int sm_major = 0, sm_minor = 0;
  int sm_count = 0;
  double memory_bytes = 0;
  double l2_bytes = 0;
  std::string driver_version;  // "13.0"
};

DeviceInfo query_cuda_device();

}  // namespace lmroof
