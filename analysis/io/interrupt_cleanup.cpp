#include "analysis/io/interrupt_cleanup.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>

namespace lmroof {

namespace {

std::mutex& shield_mutex() {
  static std::mutex m;
  return m;
}

struct Registry {
  std::mutex mutex;
  std::uint64_t next_id = 0;
  std::map<std::uint64_t, std::filesystem::path> paths;
};
Registry& registry() {
  static Registry r;
  return r;
}

sigset_t cleanup_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void clean_up_and_exit(const std::string& program, int signal_number) {
  // Never released: the process ends below, and no publish may start after this.
  shield_mutex().lock();
  Registry& r = registry();
  r.mutex.lock();
  for (const auto& [id, path] : r.paths) {
    // The main thread keeps running meanwhile and may add a file to a folder being
    // removed: try again.
    std::error_code ec;
    for (int attempt = 0; attempt < 5 && (attempt == 0 || ec); ++attempt) std::filesystem::remove_all(path, ec);
  }
  const char* name = signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : "SIGHUP";
  std::fprintf(stderr, "\n%s: interrupted by %s; its unfinished outputs were removed\n", program.c_str(), name);
  std::fflush(stderr);
  _exit(128 + signal_number);
}

}  // namespace

void install_interrupt_cleanup(const char* program) {
  static bool installed = false;
  if (installed) return;
  installed = true;
  const sigset_t set = cleanup_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([name = std::string(program), set] {
    int signal_number = 0;
    while (sigwait(&set, &signal_number) != 0) {
    }
    clean_up_and_exit(name, signal_number);
  }).detach();
}

RemoveOnInterrupt::RemoveOnInterrupt(std::filesystem::path path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  id_ = r.next_id++;
  r.paths.emplace(id_, std::move(path));
}

RemoveOnInterrupt::~RemoveOnInterrupt() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.paths.erase(id_);
}

InterruptShield::InterruptShield() : lock_(shield_mutex()) {}

}  // namespace lmroof
