#include "analysis/formats/file_names.h"

#include <string>

namespace lmroof::formats {

std::filesystem::path kernel_traces_path(const std::filesystem::path& bench_json) {
  std::filesystem::path p = bench_json;
  return p.replace_extension().string() + ".kernels.json";
}

}  // namespace lmroof::formats
