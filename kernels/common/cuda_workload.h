#pragma once
// Base of every CUDA Workload: a dedicated non-blocking stream on which run()
// enqueues its kernels (never the legacy default stream, so nothing else in the
// process serializes with it), and on which the timer records its events.
#include <cuda_runtime.h>

#include <span>
#include <vector>

#include "common/cuda_buffer.h"
#include "common/cuda_check.h"
#include "common/host_data.h"
#include "kernels/run_names/workload.h"

namespace lmroof::cuda {

class CudaWorkload : public Workload {
 public:
  CudaWorkload() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaWorkload() override {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  CudaWorkload(const CudaWorkload&) = delete;
  CudaWorkload& operator=(const CudaWorkload&) = delete;

  cudaStream_t stream() const { return stream_; }

 protected:
  // The check every CUDA validate() ends with: poisons `out` (an element run() does not
  // write then fails), runs, downloads, and compares with the float64 reference that
  // `reference` writes into the span it is given (out's size). floor_rms: as in
  // relative_error (common/host_data.h).
  template <typename Reference>
  Validation run_against_reference(DeviceTensor& out, double tolerance, Reference&& reference, double floor_rms = 0) {
    out.poison(stream());
    run();
    const std::vector<float> got = out.download(stream());
    std::vector<double> ref(got.size());
    reference(std::span<double>(ref));
    return {relative_error<float>(span_of(got), span_of(ref), floor_rms), tolerance};
  }

 private:
  cudaStream_t stream_ = nullptr;
};

// Returns the CUDA workload behind a Workload, or nullptr for a CPU one.
inline CudaWorkload* as_cuda(Workload& w) { return dynamic_cast<CudaWorkload*>(&w); }

// Owns a cudaEvent_t (timing enabled).
class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(Event&& o) noexcept : event_(o.event_) { o.event_ = nullptr; }
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const { CUDA_CHECK(cudaEventRecord(event_, stream)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// Milliseconds between two recorded events, after waiting for the second.
inline float elapsed_ms(const Event& start, const Event& stop) {
  CUDA_CHECK(cudaEventSynchronize(stop.get()));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace lmroof::cuda
