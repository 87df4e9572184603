#pragma once
// SIGINT, SIGTERM and SIGHUP end lmroof only after what it was writing is cleaned
// up: a temporary file beside an output, a run's staging folder. Without this, an
// interrupted run leaves `.tmp`/`.partial` files and half-written folders behind.
//
// The signals are blocked in every thread and waited for by one thread of their
// own (sigwait), so the cleanup runs as ordinary code, not in a signal handler, and
// works whatever the main thread is doing (a Google Benchmark loop, a CUDA kernel).
#include <cstdint>
#include <filesystem>
#include <mutex>

namespace lmroof {

// Call first thing in main(), before any thread starts (threads inherit the blocked
// signals). On a signal: waits for an InterruptShield in progress, removes every
// path registered with RemoveOnInterrupt, prints "PROGRAM: interrupted by SIGxxx"
// and exits 128 + the signal number (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
// Processes that never call it (tests) simply die on those signals as usual.
void install_interrupt_cleanup(const char* program);

// A file or folder to remove if the process is interrupted while this object lives.
class RemoveOnInterrupt {
 public:
  explicit RemoveOnInterrupt(std::filesystem::path path);
  ~RemoveOnInterrupt();
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;

 private:
  std::uint64_t id_;
};

// While one lives, an interrupt waits: the steps it guards (publishing an output
// set: a few renames) finish before the process exits. Do not nest them.
class InterruptShield {
 public:
  InterruptShield();

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace lmroof
