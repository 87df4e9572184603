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

// Never destroyed (as the registry below): a signal during exit() (a final flush of
// stdout blocked on a full pipe) comes after static destructors have run.
std::mutex& shield_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

struct Registry {
  std::mutex mutex;
  std::uint64_t next_id = 0;
  std::map<std::uint64_t, std::pair<std::filesystem::path, Removal>> paths;
  std::string outcome;  // set_interrupt_outcome
};

// Removes `path` as `how` says; false when it is still there (and should be).
bool remove_path(const std::filesystem::path& path, Removal how) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (how == Removal::everything) {
    fs::remove_all(path, ec);
    return !ec;
  }
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec) return true;  // gone
  if (st.type() == fs::file_type::directory) {
    if (fs::is_empty(path, ec) && !ec) fs::remove(path, ec);
    return true;
  }
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  int entries = 0;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end && entries < 2; it.increment(ec)) ++entries;
  if (!ec && entries == 1) fs::remove(path, ec);
  return true;
}
Registry& registry() {
  static auto* r = new Registry;
  return *r;
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
  // Newest first: a folder's contents before the folder.
  for (auto it = r.paths.rbegin(); it != r.paths.rend(); ++it) {
    // The main thread keeps running meanwhile and may add a file to a folder being
    // removed: try again.
    const auto& [path, how] = it->second;
    for (int attempt = 0; attempt < 5 && !remove_path(path, how); ++attempt) {
    }
  }
  const char* name = signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : "SIGHUP";
  const std::string outcome = r.outcome.empty() ? "its unfinished outputs were removed" : r.outcome;
  std::fprintf(stderr, "\n%s: interrupted by %s; %s\n", program.c_str(), name, outcome.c_str());
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

RemoveOnInterrupt::RemoveOnInterrupt(std::filesystem::path path, Removal how) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  id_ = r.next_id++;
  r.paths.emplace(id_, std::pair(std::move(path), how));
}

void set_interrupt_outcome(std::string outcome) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.outcome = std::move(outcome);
}

RemoveOnInterrupt::~RemoveOnInterrupt() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.paths.erase(id_);
}

InterruptShield::InterruptShield() : lock_(shield_mutex()) {}

}  // namespace lmroof
