#include "analysis/io/atomic_write.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

#include "analysis/io/interrupt_cleanup.h"
#include "analysis/io/output_file.h"

namespace lmroof {

namespace fs = std::filesystem;

fs::path unique_temp_path(const fs::path& target, std::string_view suffix) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A file name is at most 255 bytes (NAME_MAX): the temporary file keeps the start of a
  // long target name, so any name that fits fits with its temporary suffix too.
  constexpr size_t kKeptNameBytes = 200;
  std::string name = target.filename().string();
  if (name.size() > kKeptNameBytes) name.resize(kKeptNameBytes);
  return folder / fmt::format(".{}.{}-{:016x}.{}", name, ::getpid(), random(), suffix);
}

void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void rename_into_place(const fs::path& from, const fs::path& to) {
  if (auto why = why_not_replaceable(to))
    throw std::runtime_error(fmt::format("{}: {}; refusing to replace it", to.string(), *why));
  if (::rename(from.c_str(), to.c_str()) != 0)
    throw std::runtime_error(fmt::format("cannot move {} to {}: {}", from.string(), to.string(), std::strerror(errno)));
}

namespace {

// Writes `contents` into `tmp`, a fresh temporary file for `path` (created
// exclusively, never through a symlink), and fsyncs it. Removes it on failure.
void write_temporary_file(const fs::path& path, const fs::path& tmp, std::string_view contents) {
  if (auto why = why_not_replaceable(path))
    throw std::runtime_error(fmt::format("{}: {}; an output replaces only a regular file", path.string(), *why));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  const char* data = contents.data();
  size_t left = contents.size();
  int error = 0;
  while (left > 0 && error == 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    data += n, left -= static_cast<size_t>(n);
  }
  // fsync so a crash after the rename cannot expose an empty file.
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
  }
}

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view contents) {
  write_files_as_set({{path, std::string(contents)}});
}

std::vector<fs::path> output_paths(const std::vector<OutputContents>& files) {
  std::vector<fs::path> paths;
  for (const auto& file : files) paths.push_back(file.path);
  return paths;
}

void write_files_as_set(const std::vector<OutputContents>& files) {
  std::vector<fs::path> temporaries;
  std::vector<std::unique_ptr<RemoveOnInterrupt>> remove_if_interrupted;
  auto remove_temporaries = [&] {
    for (const auto& tmp : temporaries) ::unlink(tmp.c_str());
  };
  try {
    for (const auto& file : files) {
      // Registered before the file exists, so an interrupt while writing removes it too.
      temporaries.push_back(unique_temp_path(file.path));
      remove_if_interrupted.push_back(std::make_unique<RemoveOnInterrupt>(temporaries.back()));
      write_temporary_file(file.path, temporaries.back(), file.contents);
    }
    for (size_t i = 0; i < files.size(); ++i) rename_into_place(temporaries[i], files[i].path);
  } catch (...) {
    remove_temporaries();
    throw;
  }
  std::vector<fs::path> folders;
  for (const auto& file : files) {
    const fs::path folder = file.path.parent_path();
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
  }
  for (const auto& folder : folders) sync_folder(folder);
}

}  // namespace lmroof
