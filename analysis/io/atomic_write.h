#pragma once
// Output files are written to a temporary file beside the target and renamed over
// it, so an interrupted or failed write never leaves a truncated file behind, and a
// reader sees the old file or the new one, never a mix.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace lmroof {

// A fresh, unused name for a temporary file beside `target`, hidden and unique per
// process and call: "DIR/.NAME.<pid>-<random>.SUFFIX". Two processes writing the
// same target never share a temporary file.
std::filesystem::path unique_temp_path(const std::filesystem::path& target, std::string_view suffix = "tmp");

// Writes `contents` to `path` atomically: a temporary file (unique_temp_path,
// created exclusively, never through a symlink), flushed to disk, renamed over
// `path`. Refuses to replace anything but a regular file (a symlink, device node,
// directory or pipe stays as it is). The folder must exist. On failure, and on
// SIGINT/SIGTERM when install_interrupt_cleanup is active, the temporary file is
// removed. Throws std::runtime_error naming the path.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// One output file of a command and what it will hold.
struct OutputContents {
  std::filesystem::path path;
  std::string contents;
};

// Writes several files as one set: each into a temporary file beside it first, and
// only when all of them were written (a full disk fails here) are they renamed into
// place, in the order given (put the file a reader opens first, the page, last). A
// failure before the renames removes the temporary files and leaves every target as
// it was. Throws std::runtime_error naming the path.
void write_files_as_set(const std::vector<OutputContents>& files);
// The paths of `files`, for check_outputs.
std::vector<std::filesystem::path> output_paths(const std::vector<OutputContents>& files);

// Renames `from` over `to` (same file system), refusing when `to` exists and is not
// a regular file. Throws std::runtime_error naming both.
void rename_into_place(const std::filesystem::path& from, const std::filesystem::path& to);

// fsync of a folder, so that renames in it survive a crash. Best effort.
void sync_folder(const std::filesystem::path& folder);

}  // namespace lmroof
