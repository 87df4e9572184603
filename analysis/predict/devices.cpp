#include "analysis/predict/devices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "analysis/model/json_input.h"
#include "lmroof/build_info.h"

namespace lmroof::predict {

namespace {

constexpr double kTera = 1e12;
constexpr uintmax_t kMaxDeviceFileBytes = 1u << 20;

// The largest dense bf16/fp16 tensor peak of each architecture's biggest part, from
// the same datasheets as the table (A100; L40S and RTX 6000 Ada; H100/H200 SXM; GB200;
// MI300X/MI325X; MI355X), plus 5%. A sparse figure of the biggest part is twice its
// bound; a smaller part's sparse figure can still pass, which is why a peak must also
// be declared in "dense_tflops" and an entry flagged sparse is refused.
struct ArchitectureBound {
  std::string_view name;
  double bf16_tflops;
};
constexpr ArchitectureBound kBounds[] = {
    {"ampere", 312 * 1.05}, {"ada", 364.2 * 1.05},   {"hopper", 989.5 * 1.05},
    {"blackwell", 2500 * 1.05}, {"cdna3", 1307.4 * 1.05}, {"cdna4", 2516.6 * 1.05},
    // For traces of older parts (lmroof trace): V100's fp16 tensor peak, MI250X's bf16 matrix peak.
    {"volta", 125 * 1.05}, {"cdna2", 383 * 1.05},
};

// Far above any part, so that every product and quotient stays finite and in range.
constexpr double kMaxMemoryGb = 1e6;       // a petabyte
constexpr double kMaxBandwidthTbPerS = 1e3;
// Far below any part that runs a language model (a 1 GB/s, 1 GFLOP/s, 1 MB device),
// so that a denormal or a unit slip (1e-320 TB/s, GB given as bytes of terabytes) is
// refused rather than turned into infinite times.
constexpr double kMinMemoryGb = 1e-3;
constexpr double kMinBandwidthTbPerS = 1e-3;
constexpr double kMinTflops = 1e-3;

double in_range(const model::JsonCursor& value, double low, double high, std::string_view unit) {
  const double x = value.positive();
  if (x < low || x > high)
    value.fail(fmt::format("{:g} {} is outside the physical range this table accepts ({:g} to {:g} {})", x, unit, low,
                           high, unit));
  return x;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::vector<std::string> known_architectures() {
  std::vector<std::string> out;
  for (const auto& b : kBounds) out.emplace_back(b.name);
  return out;
}

std::optional<double> dense_peak_bound(std::string_view architecture, std::string_view dtype) {
  for (const auto& b : kBounds) {
    if (b.name != architecture) continue;
    // fp8 runs at twice the 16-bit rate on every part that has it; fp32 never above it.
    const double factor = dtype == "fp8" ? 2.0 : 1.0;
    return b.bf16_tflops * factor * kTera;
  }
  return std::nullopt;
}

void require_regular_file(const std::filesystem::path& path, std::string_view option) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw model::InputError(fmt::format("{}: {}: no such file", option, path.string()));
  if (!std::filesystem::is_regular_file(status))
    throw model::InputError(fmt::format("{}: {}: is not a regular file", option, path.string()));
}

std::vector<Device> parse_device_file(std::string_view text, const std::string& origin) {
  const nlohmann::json doc = model::parse_json(text, origin);
  const model::JsonCursor root(doc, origin);
  root.require_object();
  const std::string schema = root.at("schema").string();
  if (schema != "lmroof.devices/1") root.at("schema").fail(fmt::format("must be \"lmroof.devices/1\", got \"{}\"", schema));
  std::vector<Device> out;
  std::set<std::string> names;
  for (const auto& entry : root.at("devices").items()) {
    Device d;
    // Printed on the terminal and in tables: no control or direction characters.
    d.name = entry.at("name").one_line();
    const std::string key = lowercase(d.name);
    if (key.empty() || key == "this" || key == "all") entry.at("name").fail("must be a name other than \"this\" and \"all\"");
    if (!names.insert(key).second) entry.at("name").fail(fmt::format("\"{}\" appears twice (case ignored)", d.name));
    d.architecture = entry.at("architecture").string();
    if (!dense_peak_bound(d.architecture, "bf16")) {
      std::string known;
      for (const auto& a : known_architectures()) known += (known.empty() ? "" : ", ") + a;
      entry.at("architecture").fail(fmt::format("\"{}\" is not a known architecture ({})", d.architecture, known));
    }
    if (entry.has("sparse_tflops") || (entry.has("sparse") && entry.at("sparse").boolean()))
      entry.fail("peaks with 2:4 sparsity are refused: give \"dense_tflops\" (half the datasheet's sparse figure)");
    d.memory_bytes = in_range(entry.at("memory_gb"), kMinMemoryGb, kMaxMemoryGb, "GB") * 1e9;
    d.bandwidth_bytes_per_s = in_range(entry.at("bandwidth_tb_per_s"), kMinBandwidthTbPerS, kMaxBandwidthTbPerS, "TB/s") * kTera;
    const auto peaks = entry.at("dense_tflops");
    for (const auto& [dtype, value] : peaks.members()) {
      if (dtype != "bf16" && dtype != "fp16" && dtype != "fp8" && dtype != "fp32")
        value.fail("is not a dtype (bf16, fp16, fp8, fp32)");
      const double flops = in_range(value, kMinTflops, 1e9, "TFLOP/s") * kTera;
      const double bound = *dense_peak_bound(d.architecture, dtype);
      if (flops > bound)
        value.fail(fmt::format("{} TFLOP/s is above the largest dense {} peak of any {} part ({:.0f}): a sparse figure? "
                               "The dense one is half of it",
                               flops / kTera, dtype, d.architecture, bound / kTera));
      d.dense_peak_flops.emplace(dtype, flops);
    }
    if (!d.dense_peak_flops.contains("bf16") && !d.dense_peak_flops.contains("fp16") && !d.dense_peak_flops.contains("fp32"))
      peaks.fail("needs a dense peak for bf16, fp16 or fp32");
    if (entry.has("sm_count")) {  // optional: without it, no wave quantisation on this device
      d.sm_count = entry.at("sm_count").integer(1, 1 << 20);
      d.sm_source = entry.at("sm_source").string(model::kMaxTextLength);
      if (d.sm_source.empty()) entry.at("sm_source").fail("must cite where the SM or CU count comes from");
    }
    const auto launch = entry.at("launch_us");
    d.launch_s = launch.non_negative() * 1e-6;
    if (d.launch_s > 1) launch.fail("is above one second per launch: microseconds, not nanoseconds?");
    d.launch_source = entry.at("launch_source").string(model::kMaxTextLength);
    d.source = entry.at("source").string(model::kMaxTextLength);
    if (d.source.empty()) entry.at("source").fail("must cite the datasheet the figures come from");
    out.push_back(std::move(d));
  }
  if (out.empty()) root.at("devices").fail("lists no device");
  return out;
}

std::optional<size_t> find_device(const std::vector<Device>& table, std::string_view wanted, std::string_view option) {
  const std::string key = lowercase(wanted);
  if (key.empty()) return std::nullopt;
  for (size_t i = 0; i < table.size(); ++i)
    if (lowercase(table[i].name) == key) return i;
  std::vector<size_t> prefixed;
  for (size_t i = 0; i < table.size(); ++i)
    if (lowercase(table[i].name).starts_with(key)) prefixed.push_back(i);
  if (prefixed.size() == 1) return prefixed.front();
  if (prefixed.empty()) return std::nullopt;
  std::string names;
  for (size_t i : prefixed) names += (names.empty() ? "" : ", ") + table[i].name;
  throw model::InputError(fmt::format("{}: '{}' is the start of several devices ({}); give more of the name", option,
                                      wanted, names));
}

std::vector<Device> load_device_file(const std::filesystem::path& path) {
  require_regular_file(path, "--device-file");
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) > kMaxDeviceFileBytes)
    throw model::InputError(fmt::format("--device-file: {}: larger than {} bytes, not a device table", path.string(), kMaxDeviceFileBytes));
  return parse_device_file(model::read_text_file(path), path.string());
}

std::filesystem::path bundled_devices_file() {
  if (const char* file = std::getenv("LMROOF_DEVICES_FILE"); file && *file) return file;
  const std::filesystem::path in_source = std::filesystem::path(build_info::source_dir) / "analysis/predict/devices.json";
  std::error_code ec;
  if (std::filesystem::is_regular_file(in_source, ec)) return in_source;
  return "analysis/predict/devices.json";
}

}  // namespace lmroof::predict
