#pragma once
// CUPTI results as one-line reasons, shared by the activity tracer, the range profiler
// and the counter plan. CUDA builds only: include it inside #ifdef LMROOF_WITH_CUDA.
#include <cupti_result.h>

#include <cstddef>
#include <string>

namespace lmroof::profiler {

// A CUPTI parameter struct, zeroed (pPriv = NULL and every optional field unset) with
// its structSize set to the version this code was compiled against.
template <typename T>
T cupti_params(size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}

// "CUPTI_ERROR_X (CUPTI's message)".
std::string cupti_error(CUptiResult r);

// "<call> failed: <CUPTI error>", plus what to do about the states a user can fix
// (permission, MIG, confidential computing, vGPU, another profiler attached).
std::string cupti_failure(const char* call, CUptiResult r);

}  // namespace lmroof::profiler
