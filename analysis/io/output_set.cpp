#include "analysis/io/output_set.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "analysis/io/atomic_write.h"
#include "analysis/io/output_file.h"
#include "analysis/formats/file_names.h"

namespace lmroof {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLockFile = ".lmroof.lock";
constexpr const char* kJournal = ".lmroof-publishing";  // exists only while a publish is unfinished
constexpr const char* kSetList = ".lmroof-set";         // the names of the files of the set in DIR
constexpr std::string_view kStagingPrefix = ".lmroof-staging-";

// The names a run's set may hold: the previous set of a folder without a set list
// (runs before set lists existed), and the names checked before measuring.
bool is_set_output_name(const std::string& name) {
  return name == formats::kBenchJson || name == formats::kKernelTracesJson || name == formats::kResultsJson ||
         name == "report.html" ||
         (name.starts_with("report.") && (name.ends_with(".vl.json") || name.ends_with(".csv")));
}

// A set list or journal is read back from disk: only plain names inside DIR count.
bool is_plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

bool is_regular(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::regular;
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::vector<std::string> previous_set(const fs::path& dir) {
  std::vector<std::string> names;
  if (is_regular(dir / kSetList)) {
    for (auto& name : read_lines(dir / kSetList))
      if (is_plain_name(name) && !name.starts_with(".lmroof")) names.push_back(std::move(name));
    return names;
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (is_set_output_name(entry.path().filename().string())) names.push_back(entry.path().filename().string());
  return names;
}

// Steps after the commit point; each is idempotent, so a publish killed anywhere in
// here is finished by running them again.
void finish_publish(const fs::path& dir) {
  const fs::path journal = dir / kJournal;
  if (!fs::exists(fs::symlink_status(journal))) return;
  if (!is_regular(journal)) throw std::runtime_error(fmt::format("{}: not a regular file", journal.string()));
  const auto lines = read_lines(journal);
  if (lines.size() != 1 || !is_plain_name(lines[0]) || !lines[0].starts_with(kStagingPrefix))
    throw std::runtime_error(fmt::format("{}: not a journal lmroof wrote", journal.string()));
  const fs::path staging = dir / lines[0];
  // Only a real folder this user owns, as OutputSet creates it: a symlink named like
  // a staging folder would move another folder's files into DIR.
  struct stat st {};
  if (::lstat(staging.c_str(), &st) == 0 && (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()))
    throw std::runtime_error(fmt::format("{}: names {}, which is not a staging folder this user's lmroof made",
                                         journal.string(), staging.string()));
  const fs::path list = staging / kSetList;
  if (is_regular(list)) {
    std::vector<std::string> names;
    for (const auto& name : read_lines(list))
      if (is_plain_name(name) && !name.starts_with(".lmroof")) names.push_back(name);
    for (const auto& name : names)
      if (is_regular(staging / name)) rename_into_place(staging / name, dir / name);
    sync_folder(dir);
    for (const auto& old : previous_set(dir))
      if (std::find(names.begin(), names.end(), old) == names.end() && is_regular(dir / old)) fs::remove(dir / old);
    rename_into_place(list, dir / kSetList);
  }
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::remove(journal);
  sync_folder(dir);
}

int open_lock_file(const fs::path& dir) {
  const fs::path path = dir / kLockFile;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    throw std::invalid_argument(fmt::format("{}: cannot write into this folder ({}: {})", dir.string(), path.string(),
                                            std::strerror(errno)));
  return fd;
}

std::string lock_holder(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<size_t>(n) : 0);
  pid.erase(std::remove_if(pid.begin(), pid.end(), [](char c) { return c < '0' || c > '9'; }), pid.end());
  return pid.empty() ? "" : " (pid " + pid + ")";
}

// Whether a live run holds DIR's lock. Takes and drops a shared lock for a moment;
// creates nothing (a reader leaves the folder as it is).
bool a_run_holds_the_lock(const fs::path& dir) {
  const int fd = ::open((dir / kLockFile).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);
  return held;
}

}  // namespace

OutputSet::OutputSet(fs::path dir) : dir_(std::move(dir)) {
  if (dir_.empty()) throw std::invalid_argument("--out is empty; name an output folder");
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw std::invalid_argument(fmt::format("{}: is not a folder", dir_.string()));
  fs::create_directories(dir_, ec);
  std::error_code is_dir_ec;
  if (!fs::is_directory(dir_, is_dir_ec))
    throw std::invalid_argument(
        ec ? fmt::format("{}: cannot create the output folder: {}", dir_.string(), ec.message())
           : fmt::format("{}: is not a folder", dir_.string()));
  if (::access(dir_.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument(fmt::format("{}: cannot write into this folder: {}", dir_.string(), std::strerror(errno)));

  lock_fd_ = open_lock_file(dir_);
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string holder = lock_holder(lock_fd_);
    ::close(lock_fd_);
    throw std::invalid_argument(fmt::format(
        "{}: another lmroof run{} is writing into this folder; wait for it or choose another --out", dir_.string(), holder));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid only makes the message of a second run nicer; the lock holds without it.
  }

  try {
    finish_publish(dir_);
  } catch (const std::exception& e) {
    ::close(lock_fd_);
    throw std::invalid_argument(fmt::format("{}: cannot finish the publish an earlier run left unfinished: {}",
                                            dir_.string(), e.what()));
  }
  // Each name the new set may replace must be a regular file now, or publishing
  // would fail after the measurement (a folder named report.html).
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (!is_set_output_name(name)) continue;
    if (auto why = why_not_replaceable(entry.path())) {
      ::close(lock_fd_);
      throw std::invalid_argument(
          fmt::format("{}: {}; a run's outputs replace only regular files", entry.path().string(), *why));
    }
  }
  // Holding the lock, any staging folder belongs to a run that was killed, and so
  // does a temporary file of the journal or set list ("..lmroof-publishing.<pid>-<random>.tmp").
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(kStagingPrefix) || name.starts_with("..lmroof-")) fs::remove_all(entry.path(), ec);
  }

  static thread_local std::mt19937_64 random{std::random_device{}()};
  staging_ = dir_ / fmt::format("{}{}-{:016x}", kStagingPrefix, ::getpid(), random());
  remove_staging_if_interrupted_ = std::make_unique<RemoveOnInterrupt>(staging_);
  if (!fs::create_directory(staging_, ec)) {
    ::close(lock_fd_);
    throw std::invalid_argument(fmt::format("{}: cannot write into this folder: {}", dir_.string(),
                                            ec ? ec.message() : "the staging folder exists"));
  }
}

OutputSet::~OutputSet() {
  if (!published_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

fs::path OutputSet::keep_for_recovery(const std::vector<std::string>& names) {
  std::vector<std::string> staged;
  for (const auto& name : names)
    if (is_regular(staging_ / name)) staged.push_back(name);
  if (staged.empty() || published_) return {};
  const fs::path folder = dir_ / fmt::format("lmroof-recovered-{}", staging_.filename().string().substr(kStagingPrefix.size()));
  std::error_code ec;
  if (!fs::create_directory(folder, ec)) return {};
  for (const auto& name : staged) fs::rename(staging_ / name, folder / name, ec);
  sync_folder(dir_);
  return folder;
}

void OutputSet::publish() {
  const InterruptShield shield;  // a signal now waits until the set is in place
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(staging_)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".")) continue;  // nothing of ours; a temporary file would be
    if (!is_regular(entry.path()))
      throw std::runtime_error(fmt::format("{}: not a regular file; the set is not published", entry.path().string()));
    if (auto why = why_not_replaceable(dir_ / name))
      throw std::runtime_error(fmt::format("{}: {}; the new outputs were not published", (dir_ / name).string(), *why));
    names.push_back(name);
  }
  if (names.empty()) throw std::runtime_error(fmt::format("{}: nothing to publish", dir_.string()));
  // results.json is the file readers start from: it comes last.
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return std::pair(a == formats::kResultsJson, a) < std::pair(b == formats::kResultsJson, b);
  });
  std::string list;
  for (const auto& n : names) list += n + "\n";
  write_file_atomically(staging_ / kSetList, list);

  write_file_atomically(dir_ / kJournal, staging_.filename().string() + "\n");  // the commit point
  published_ = true;  // from here on the staging folder belongs to the journal
  remove_staging_if_interrupted_.reset();
  finish_publish(dir_);
}

void require_complete_set(const fs::path& dir_in) {
  const fs::path dir = dir_in.empty() ? fs::path(".") : dir_in;
  const fs::path journal = dir / kJournal;
  // A run publishing right now (it holds the lock) removes its journal within
  // milliseconds; a journal nobody holds the lock for was left by a killed run.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::error_code ec;
  while (fs::exists(fs::symlink_status(journal, ec))) {
    if (!a_run_holds_the_lock(dir) || std::chrono::steady_clock::now() > deadline)
      throw std::invalid_argument(fmt::format(
          "{}: may hold the outputs of two runs ({} says a publish was left unfinished); the next `lmroof run --out {}` "
          "finishes it, or remove that file to read the folder as it is",
          dir.string(), journal.string(), dir.string()));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace lmroof
