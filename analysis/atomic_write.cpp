#include "analysis/atomic_write.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace lmroof {

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const auto tmp = std::filesystem::path(path.string() + fmt::format(".{}.tmp", getpid()));
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)));
  const bool written = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  // fsync so a crash after the rename cannot expose an empty file.
  const bool flushed = std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    std::filesystem::remove(tmp);
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw std::runtime_error(fmt::format("cannot move {} into place: {}", path.string(), ec.message()));
  }
}

}  // namespace lmroof
