#pragma once
// Device memory for the CUDA backend: an owning typed buffer, and a tensor whose
// element type is the run's DType (bf16 or fp32) with float-in / float-out copies.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/bf16_host.h"
#include "common/cuda_check.h"
#include "kernels/run_names/workload.h"

namespace lmroof::cuda {

// cudaMalloc'ed, so every buffer starts 256-byte aligned. Move-only.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void reset() noexcept {
    if (ptr_) cudaFree(ptr_);  // synchronizes with work still using it; errors cannot be thrown here
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// nvcc's front end does not take libstdc++'s range constructor of std::span (vector ->
// span conversions fail to compile in .cu files): spell the conversion out.
template <typename T, typename A>
std::span<T> span_of(std::vector<T, A>& v) {
  return {v.data(), v.size()};
}
template <typename T, typename A>
std::span<const T> span_of(const std::vector<T, A>& v) {
  return {v.data(), v.size()};
}

// Rounds host data to what a tensor of `dtype` will hold on the device.
inline void round_to_dtype(DType dtype, std::span<float> data) {
  if (dtype == DType::bf16) round_to_bf16(data);
}

// `count` elements of `dtype` (2 bytes for bf16, 4 for fp32).
class DeviceTensor {
 public:
  DeviceTensor() = default;
  DeviceTensor(DType dtype, size_t count) : dtype_(dtype), count_(count), buf_(count * dtype_bytes(dtype)) {}

  DType dtype() const { return dtype_; }
  size_t size() const { return count_; }
  size_t bytes() const { return buf_.size(); }
  void* data() const { return buf_.data(); }
  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(buf_.data());
  }

  // Converts (bf16: round to nearest even) and copies; returns when the copy is done.
  void upload(std::span<const float> host, cudaStream_t stream) {
    if (host.size() != count_) throw std::invalid_argument("DeviceTensor::upload: size mismatch");
    if (count_ == 0) return;
    std::vector<uint16_t> bits;  // bf16 staging; must outlive the copy
    const void* src = host.data();
    if (dtype_ == DType::bf16) {
      bits.resize(count_);
      for (size_t i = 0; i < count_; ++i) bits[i] = float_to_bf16_bits(host[i]);
      src = bits.data();
    }
    CUDA_CHECK(cudaMemcpyAsync(buf_.data(), src, bytes(), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // Waits for the stream, then copies back and widens to float.
  std::vector<float> download(cudaStream_t stream) const {
    std::vector<float> out(count_);
    if (count_ == 0) return out;
    if (dtype_ == DType::fp32) {
      CUDA_CHECK(cudaMemcpyAsync(out.data(), buf_.data(), bytes(), cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
    } else {
      std::vector<uint16_t> bits(count_);
      CUDA_CHECK(cudaMemcpyAsync(bits.data(), buf_.data(), bytes(), cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      for (size_t i = 0; i < count_; ++i) out[i] = bf16_bits_to_float(bits[i]);
    }
    return out;
  }

  // All bytes 0xFF: NaN in bf16 (0xFFFF) and in fp32 (0xFFFFFFFF), so an element a
  // kernel forgets to write fails validation.
  void poison(cudaStream_t stream) {
    if (count_ > 0) CUDA_CHECK(cudaMemsetAsync(buf_.data(), 0xFF, bytes(), stream));
  }

 private:
  DType dtype_ = DType::fp32;
  size_t count_ = 0;
  DeviceBuffer<std::byte> buf_;
};

}  // namespace lmroof::cuda
