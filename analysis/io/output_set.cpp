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
#include <optional>
#include <random>
#include <sstream>
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

// The kind of set a published file belongs to, by its name (SetKind); none for a
// name no set of either command has.
std::optional<SetKind> kind_of_output(const std::string& name) {
  if (is_set_output_name(name)) return SetKind::run;
  // trace.json, trace.csv, trace.html, and any later trace.*.json/csv/html (as report.*
  // for a run); never trace.json.gz, a profiler trace someone named so.
  if (name.starts_with(formats::kTracePrefix) && (name.ends_with(".json") || name.ends_with(".csv") || name.ends_with(".html")))
    return SetKind::trace;
  return std::nullopt;
}

const char* command_of(SetKind kind) { return kind == SetKind::run ? "lmroof run" : "lmroof trace"; }

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

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  return text.str();
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

// Opens DIR/.lmroof.lock for writing the holder's pid into it: never through a
// symlink (O_NOFOLLOW), never a FIFO or device (O_NONBLOCK, then fstat), and never a
// file with a second name: a hard link to another file (`ln precious.txt
// DIR/.lmroof.lock`) would have the pid written into that file. lmroof never links
// its lock file, so such a file was planted and is refused, not written.
int open_lock_file(const fs::path& dir) {
  const fs::path path = dir / kLockFile;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0)
    throw std::invalid_argument(fmt::format("{}: cannot write into this folder ({}: {})", dir.string(), path.string(),
                                            std::strerror(errno)));
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0) why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "is not a regular file";
  else if (st.st_nlink != 1)
    why = fmt::format("has {} names (a hard link to another file); lmroof writes into its lock file", st.st_nlink);
  if (!why.empty()) {
    ::close(fd);
    throw std::invalid_argument(fmt::format("{}: {}; remove it (lmroof makes a fresh one)", path.string(), why));
  }
  return fd;
}

// Whether `fd` is still the file DIR/.lmroof.lock names: a run that ends removes a
// lock file that is alone in its folder, so a lock taken on the old file after that
// would lock nothing.
bool is_current_lock_file(const fs::path& dir, int fd) {
  struct stat by_fd {}, by_name {};
  return ::fstat(fd, &by_fd) == 0 && ::lstat((dir / kLockFile).c_str(), &by_name) == 0 && by_fd.st_dev == by_name.st_dev &&
         by_fd.st_ino == by_name.st_ino;
}

// Whether `path` is the only entry of its folder.
bool is_alone_in_folder(const fs::path& path) {
  std::error_code ec;
  int entries = 0;
  for (fs::directory_iterator it(path.parent_path(), ec), end; !ec && it != end && entries < 2; it.increment(ec)) ++entries;
  return !ec && entries == 1 && fs::exists(fs::symlink_status(path, ec));
}

// lmroof's bookkeeping files in DIR must be regular files before a run measures: the
// set list is renamed over at the end of a publish, after the commit point, and a
// folder, FIFO or symlink there would stop every run into DIR from then on.
void require_regular_bookkeeping(const fs::path& dir) {
  for (const char* name : {kSetList, kJournal})
    if (auto why = why_not_replaceable(dir / name))
      throw std::invalid_argument(fmt::format("{}: {}; lmroof keeps its {} there as a regular file: remove it",
                                              (dir / name).string(), *why,
                                              name == std::string_view(kSetList) ? "list of the set's files" : "publish journal"));
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

OutputSet::OutputSet(fs::path dir, SetKind kind) : dir_(std::move(dir)) {
  if (dir_.empty()) throw std::invalid_argument("--out is empty; name an output folder");
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw std::invalid_argument(fmt::format("{}: is not a folder", dir_.string()));
  created_dir_ = !fs::exists(fs::symlink_status(dir_, ec));
  fs::create_directories(dir_, ec);
  std::error_code is_dir_ec;
  if (!fs::is_directory(dir_, is_dir_ec))
    throw std::invalid_argument(
        ec ? fmt::format("{}: cannot create the output folder: {}", dir_.string(), ec.message())
           : fmt::format("{}: is not a folder", dir_.string()));
  if (::access(dir_.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument(fmt::format("{}: cannot write into this folder: {}", dir_.string(), std::strerror(errno)));

  // An interrupt before publishing leaves no folder holding only the lock file:
  // the lock file goes when it is alone, the folder when this run made it and it is
  // empty (removed newest first: staging folder, lock file, folder).
  if (created_dir_) remove_dir_if_interrupted_ = std::make_unique<RemoveOnInterrupt>(dir_, Removal::if_alone);
  for (int attempt = 0;; ++attempt) {
    lock_fd_ = open_lock_file(dir_);
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const std::string holder = lock_holder(lock_fd_);
      close_lock();
      throw std::invalid_argument(fmt::format(
          "{}: another lmroof run{} is writing into this folder; wait for it or choose another --out", dir_.string(), holder));
    }
    if (is_current_lock_file(dir_, lock_fd_)) break;
    close_lock();  // the run that held it removed it meanwhile: lock the new one
    if (attempt == 10) throw std::invalid_argument(fmt::format("{}: its lock file keeps changing", dir_.string()));
  }
  holds_lock_ = true;
  remove_lock_if_interrupted_ = std::make_unique<RemoveOnInterrupt>(dir_ / kLockFile, Removal::if_alone);
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid only makes the message of a second run nicer; the lock holds without it.
  }

  try {
    require_regular_bookkeeping(dir_);
  } catch (...) {
    close_lock();
    throw;
  }
  try {
    finish_publish(dir_);
  } catch (const std::exception& e) {
    close_lock();
    throw std::invalid_argument(fmt::format("{}: cannot finish the publish an earlier run left unfinished: {}",
                                            dir_.string(), e.what()));
  }
  // Checked again under the lock: the folder may have changed since the command's first check.
  try {
    refuse_other_commands_set(dir_, kind);
  } catch (...) {
    close_lock();
    throw;
  }
  // Each name the new set may replace must be a regular file now, or publishing
  // would fail after the measurement (a folder named report.html).
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (!is_set_output_name(name)) continue;
    if (auto why = why_not_replaceable(entry.path())) {
      close_lock();
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
    close_lock();
    throw std::invalid_argument(fmt::format("{}: cannot write into this folder: {}", dir_.string(),
                                            ec ? ec.message() : "the staging folder exists"));
  }
}

OutputSet::~OutputSet() {
  if (!published_ && !staging_.empty()) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
  close_lock();
}

void OutputSet::close_lock() {
  if (lock_fd_ < 0) return;
  // Nothing published and nothing else in DIR: the lock file goes, and so does DIR
  // when this run made it (a refused or empty first run leaves no trace). Removed
  // while still locked, so no other run takes a lock on the removed file unnoticed
  // (is_current_lock_file).
  if (holds_lock_ && !published_) {  // never another run's lock file
    std::error_code ec;
    if (is_alone_in_folder(dir_ / kLockFile)) fs::remove(dir_ / kLockFile, ec);
    if (created_dir_ && fs::is_empty(dir_, ec) && !ec) fs::remove(dir_, ec);
  }
  ::close(lock_fd_);
  lock_fd_ = -1;
  holds_lock_ = false;
}

KeptMeasurements OutputSet::keep_for_recovery(const std::vector<std::string>& names,
                                              const std::vector<OutputContents>& unwritten) {
  std::vector<std::string> staged;
  for (const auto& name : names)
    if (is_regular(staging_ / name)) staged.push_back(name);
  if ((staged.empty() && unwritten.empty()) || published_) return {};
  const std::string folder_name =
      fmt::format("lmroof-recovered-{}", staging_.filename().string().substr(kStagingPrefix.size()));
  std::error_code ec;
  const fs::path temp = fs::temp_directory_path(ec);
  std::vector<fs::path> places = {dir_};
  if (!ec) places.push_back(temp);
  std::vector<std::string> failures;
  for (const fs::path& place : places) {
    const fs::path folder = place / folder_name;
    if (!fs::create_directory(folder, ec)) {
      failures.push_back(fmt::format("cannot make {}: {}", folder.string(), ec ? ec.message() : "it exists"));
      continue;
    }
    try {
      // Each file whole or not at all (write_file_atomically); the files held in memory
      // first, so that a full disk fails before any staged file has moved.
      for (const auto& file : unwritten) write_file_atomically(folder / file.path.filename(), file.contents);
      for (const auto& name : staged) {
        if (place == dir_) rename_into_place(staging_ / name, folder / name);  // same file system: no space needed
        else write_file_atomically(folder / name, read_text(staging_ / name));
      }
      sync_folder(place);
      return {folder, ""};
    } catch (const std::exception& e) {
      failures.push_back(e.what());
      fs::remove_all(folder, ec);
    }
  }
  std::string why;
  for (const auto& failure : failures) why += (why.empty() ? "" : "; ") + failure;
  return {{}, why};
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
  remove_lock_if_interrupted_.reset();
  remove_dir_if_interrupted_.reset();
  // An interrupt now waits for the publish (the shield) and must not say the outputs were removed.
  set_interrupt_outcome(fmt::format("the new outputs were published in {} before it", dir_.string()));
  finish_publish(dir_);
}

void refuse_other_commands_set(const fs::path& dir, SetKind kind) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<std::string> others;
  for (const auto& name : previous_set(dir))
    if (const auto of = kind_of_output(name); of && *of != kind) others.push_back(name);
  if (others.empty()) return;
  std::sort(others.begin(), others.end());
  std::string names;
  for (size_t i = 0; i < others.size() && i < 3; ++i) names += (i ? ", " : "") + others[i];
  if (others.size() > 3) names += ", ...";
  throw std::invalid_argument(fmt::format("--out {}: holds the outputs of `{}` ({}), which publishing `{}`'s set there "
                                          "would delete; choose another --out",
                                          dir.string(), command_of(kind == SetKind::run ? SetKind::trace : SetKind::run),
                                          names, command_of(kind)));
}

void check_inputs_outside_set(const fs::path& dir, const std::vector<fs::path>& inputs, SetKind kind) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;  // a folder the run will make holds no input
  const fs::path canonical_dir = fs::canonical(dir, ec);
  if (ec) return;
  refuse_other_commands_set(dir, kind);
  const std::vector<std::string> previous = previous_set(dir);
  // What publishing replaces, removes or writes into: a name of this kind's set or of
  // the previous one, and lmroof's own entries (.lmroof.lock, .lmroof-set, staging folders).
  auto is_written = [&](const std::string& name) {
    return kind_of_output(name) == kind || name.starts_with(".lmroof") || name.starts_with("..lmroof") ||
           std::find(previous.begin(), previous.end(), name) != previous.end();
  };
  for (const auto& input : inputs) {
    if (input.empty()) continue;
    auto refuse = [&](const std::string& name) {
      throw std::invalid_argument(fmt::format("{}: is {} in --out {}, which {} replaces; give a copy from "
                                              "elsewhere or choose another --out",
                                              input.string(), name, dir.string(), kind == SetKind::run ? "this run" : "`lmroof trace`"));
    };
    // By name: where the input lies once "..", "." and symlinks are resolved.
    const fs::path where = fs::weakly_canonical(fs::absolute(input, ec), ec);
    if (!ec) {
      const fs::path inside = where.lexically_relative(canonical_dir);
      if (inside == "." && fs::is_directory(where, ec))
        throw std::invalid_argument(fmt::format("{}: is --out {} itself: the outputs would be written among the inputs, "
                                                "and read as inputs next time; choose another --out",
                                                input.string(), dir.string()));
      if (!inside.empty() && *inside.begin() != ".." && *inside.begin() != ".") {
        const std::string first = inside.begin()->string();
        if (is_written(first)) refuse(first);
      }
    }
    // By identity: a hard link (or any other name) of a file the run replaces.
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      std::error_code same_ec;
      if (is_written(name) && entry.is_regular_file(same_ec) && fs::equivalent(entry.path(), input, same_ec)) refuse(name);
    }
  }
}

std::vector<std::string> published_set(const fs::path& dir) { return previous_set(dir); }

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
