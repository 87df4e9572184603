#pragma once
// The checks an output path (`-o FILE`, `--json FILE`) passes before a command does
// any work: an output may only ever replace a regular file, never the command's
// own input, and its folder must exist and be writable. Done first, so a refused
// output costs nothing and leaves nothing behind (`report -o /` used to write
// hidden chart files into / before failing).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lmroof {

// Why `path` must not be replaced by a regular file: "is a symbolic link", "is a
// directory", "is a character device", ...; nothing when it does not exist or is a
// regular file. Looks at the path itself, not at what a symlink points to.
std::optional<std::string> why_not_replaceable(const std::filesystem::path& path);

// Throws std::invalid_argument, one line naming `path`, when it is empty, names a
// folder ("out/"), exists and is not a regular file, is the same file as one of
// `inputs` (by inode, so "./r.json" and "r.json" and hard links match), or when its
// folder does not exist, is not a folder, or is not writable.
void check_output_file(const std::filesystem::path& path, const std::vector<std::filesystem::path>& inputs = {});

// Every output of one command, its side files included (a report's charts and CSVs,
// merge's --results): each passes check_output_file against every input, and no two
// name the same file. Call it before any work; throws std::invalid_argument, one line.
void check_outputs(const std::vector<std::filesystem::path>& outputs, const std::vector<std::filesystem::path>& inputs);

}  // namespace lmroof
