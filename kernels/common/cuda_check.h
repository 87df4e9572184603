#pragma once
// Status checks for every CUDA runtime, cuBLAS and cuBLASLt call of the CUDA backend:
// a failure throws std::runtime_error naming the call, file:line and the error.
// Kernel launches are checked with CUDA_CHECK_LAUNCH() right after the <<<...>>>.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace lmroof::cuda {

[[noreturn]] inline void throw_error(const char* expr, const char* file, int line, const std::string& what) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + what);
}

inline void check(cudaError_t status, const char* expr, const char* file, int line) {
  if (status != cudaSuccess)
    throw_error(expr, file, line, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")");
}

inline void check(cublasStatus_t status, const char* expr, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_error(expr, file, line,
                std::string(cublasGetStatusName(status)) + " (" + cublasGetStatusString(status) + ")");
}

}  // namespace lmroof::cuda

#define CUDA_CHECK(expr) ::lmroof::cuda::check((expr), #expr, __FILE__, __LINE__)
#define CUBLAS_CHECK(expr) ::lmroof::cuda::check((expr), #expr, __FILE__, __LINE__)
// After a kernel launch: configuration errors (bad grid, too much shared memory)
// surface here; faults inside the kernel surface at the next synchronizing call.
#define CUDA_CHECK_LAUNCH() ::lmroof::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
