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
#include <string>

namespace lmroof {

// Call first thing in main(), before any thread starts (threads inherit the blocked
// signals). On a signal: waits for an InterruptShield in progress, removes every
// path registered with RemoveOnInterrupt, prints "PROGRAM: interrupted by SIGxxx"
// and exits 128 + the signal number (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
// Processes that never call it (tests) simply die on those signals as usual.
void install_interrupt_cleanup(const char* program);

// How a path registered with RemoveOnInterrupt is removed.
enum class Removal {
  everything,  // the file, or the folder with all it holds
  if_alone,    // a file only when it is the only entry of its folder; a folder only when empty
};

// A file or folder to remove if the process is interrupted while this object lives.
// Removed in the reverse order of registration: what was registered inside a folder
// (its lock file, its staging folder) goes before the folder itself.
class RemoveOnInterrupt {
 public:
  explicit RemoveOnInterrupt(std::filesystem::path path, Removal how = Removal::everything);
  ~RemoveOnInterrupt();
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;

 private:
  std::uint64_t id_;
};

// What the message of an interrupt says happened to the outputs, instead of "its
// unfinished outputs were removed": once a command has published its outputs (the
// commit point of an output set), an interrupt no longer removes them. Empty: back
// to the default.
void set_interrupt_outcome(std::string outcome);

// While one lives, an interrupt waits: the steps it guards (publishing an output
// set: a few renames) finish before the process exits. Do not nest them.
class InterruptShield {
 public:
  InterruptShield();

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace lmroof
