#include "analysis/io/output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace lmroof {

namespace fs = std::filesystem;

std::optional<std::string> why_not_replaceable(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec || st.type() == fs::file_type::not_found || st.type() == fs::file_type::regular) return std::nullopt;
  switch (st.type()) {
    case fs::file_type::symlink: return "is a symbolic link";
    case fs::file_type::directory: return "is a directory";
    case fs::file_type::character: return "is a character device";
    case fs::file_type::block: return "is a block device";
    case fs::file_type::fifo: return "is a named pipe";
    case fs::file_type::socket: return "is a socket";
    default: return "is not a regular file";
  }
}

void check_output_file(const fs::path& path, const std::vector<fs::path>& inputs) {
  if (path.empty()) throw std::invalid_argument("the output file name is empty");
  const std::string shown = path.string();
  if (auto why = why_not_replaceable(path))
    throw std::invalid_argument(fmt::format("{}: {}; an output replaces only a regular file", shown, *why));
  if (!path.has_filename() || path.filename() == "." || path.filename() == "..")
    throw std::invalid_argument(fmt::format("{}: names a folder; give a file name", shown));
  for (const auto& input : inputs) {
    std::error_code ec;
    if (fs::equivalent(path, input, ec))
      throw std::invalid_argument(fmt::format("{}: is this command's input {}; write the output elsewhere", shown,
                                              input.string()));
  }
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  // The file system's limits, before anything is written: a side file whose name is
  // too long would otherwise fail only after the files before it were renamed into place.
  errno = 0;
  const long name_max = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  const size_t name_bytes = path.filename().string().size();
  if (name_bytes > static_cast<size_t>(name_max > 0 ? name_max : NAME_MAX))
    throw std::invalid_argument(fmt::format("{}: its file name is {} bytes, more than the {} this file system allows ({})",
                                            shown, name_bytes, name_max > 0 ? name_max : NAME_MAX,
                                            std::strerror(ENAMETOOLONG)));
  std::error_code ec;
  const size_t path_bytes = fs::absolute(path, ec).string().size();
  if (path_bytes >= PATH_MAX)
    throw std::invalid_argument(fmt::format("{}: its path is {} bytes, more than the {} a path may have ({})", shown,
                                            path_bytes, PATH_MAX - 1, std::strerror(ENAMETOOLONG)));
  if (!fs::exists(folder, ec))
    throw std::invalid_argument(fmt::format("{}: its folder {} does not exist", shown, folder.string()));
  if (!fs::is_directory(folder, ec))
    throw std::invalid_argument(fmt::format("{}: {} is not a folder", shown, folder.string()));
  // access() also reports a read-only file system (EROFS), even to root.
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument(fmt::format("{}: cannot write into {}: {}", shown, folder.string(), std::strerror(errno)));
}

namespace {

// The file `path` names, spelled one way: absolute, with "." and ".." and symlinked
// folders resolved, so "./r.html" and "r.html" compare equal before either exists.
fs::path one_spelling(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : canonical;
}

}  // namespace

void check_outputs(const std::vector<fs::path>& outputs, const std::vector<fs::path>& inputs) {
  std::vector<fs::path> spelled;
  for (const auto& output : outputs) {
    check_output_file(output, inputs);
    const fs::path spelling = one_spelling(output);
    for (size_t i = 0; i < spelled.size(); ++i)
      if (spelled[i] == spelling)
        throw std::invalid_argument(fmt::format("{}: is also {}, another output of this command; give them different names",
                                                output.string(), outputs[i].string()));
    spelled.push_back(spelling);
  }
}

}  // namespace lmroof
