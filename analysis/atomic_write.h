#pragma once
// Results files are written to a temporary file beside the target and renamed
// over it, so an interrupted run never leaves a truncated file behind.
#include <filesystem>
#include <string_view>

namespace lmroof {

// Throws std::runtime_error naming the path when the write or the rename fails.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace lmroof
