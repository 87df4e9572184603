#include "analysis/io/atomic_write.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

#include "analysis/io/interrupt_cleanup.h"
#include "analysis/io/output_file.h"

namespace lmroof {

namespace fs = std::filesystem;

fs::path unique_temp_path(const fs::path& target, std::string_view suffix) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  return folder / fmt::format(".{}.{}-{:016x}.{}", target.filename().string(), ::getpid(), random(), suffix);
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

void write_file_atomically(const fs::path& path, std::string_view contents) {
  if (auto why = why_not_replaceable(path))
    throw std::runtime_error(fmt::format("{}: {}; an output replaces only a regular file", path.string(), *why));
  const fs::path tmp = unique_temp_path(path);
  const RemoveOnInterrupt remove_if_interrupted(tmp);
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
  try {
    rename_into_place(tmp, path);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  sync_folder(path.parent_path());
}

}  // namespace lmroof
