#pragma once
// Accelerators to predict on: the bundled table of published figures
// (analysis/predict/devices.json) or a user's file in the same format, and the
// density check every peak must pass. docs/predict.md describes the format.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lmroof::predict {

struct Device {
  std::string name;
  std::string architecture;  // "ampere", "ada", "hopper", "blackwell", "cdna3", "cdna4"; "measured" for this machine
  std::optional<double> memory_bytes;  // absent: not known (a results.json records no memory size)
  double bandwidth_bytes_per_s = 0;
  std::map<std::string, double, std::less<>> dense_peak_flops;  // by dtype: "bf16", "fp16", "fp8", "fp32"
  // Where a measured device's peaks come from, by dtype ("measured ceiling 'sgemm', an
  // fp32 GEMM"), and which dtypes were not measured; empty for a datasheet device.
  std::map<std::string, std::string, std::less<>> peak_sources;
  std::string peaks_measured;  // "compute ceilings measured: 'sgemm' (fp32)"; empty for a datasheet device
  std::optional<int64_t> sm_count;  // SMs (NVIDIA) or CUs (AMD): wave quantisation in `trace --what-if`
  std::string sm_source;             // where sm_count comes from
  double launch_s = 0;        // the fixed cost per kernel launch, t0
  std::string launch_source;  // where t0 comes from, or why it is 0
  std::string source;         // the datasheets, by name and URL, or the results file
};

// The largest dense tensor peak any chip of `architecture` reaches in `dtype`, with
// slack (the datasheets' 2:4-sparsity figures are twice the dense ones); nullopt for
// an architecture the table does not know.
std::optional<double> dense_peak_bound(std::string_view architecture, std::string_view dtype);
std::vector<std::string> known_architectures();

// Parses and validates a device file; every problem is model::InputError naming the
// file, the JSON pointer and the field: a missing field, a peak flagged sparse or
// above its architecture's dense bound, an unknown architecture, a duplicate name.
std::vector<Device> parse_device_file(std::string_view text, const std::string& origin);
// Reads it first (a regular file, at most 1 MiB: a FIFO or /dev/zero is refused).
std::vector<Device> load_device_file(const std::filesystem::path& path);

// The device of `table` that `wanted` names, matched the same way everywhere: case
// ignored, and a prefix of one name ("h200" for "H200 SXM") accepted when it is the
// prefix of no other; an exact name always wins. nullopt when none matches; a prefix of
// several throws model::InputError listing them.
std::optional<size_t> find_device(const std::vector<Device>& table, std::string_view wanted, std::string_view option);
// Two device names that name the same device (case ignored). Inline: the trace's
// comparison calls it without linking the device table (the fuzz targets).
inline bool same_device_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The bundled table (LMROOF_DEVICES_FILE overrides it; else the source tree, else ./).
std::filesystem::path bundled_devices_file();

// A regular file, or model::InputError "OPTION: PATH: is not a regular file" (a FIFO
// would block the reader, /dev/zero never end).
void require_regular_file(const std::filesystem::path& path, std::string_view option);

}  // namespace lmroof::predict
