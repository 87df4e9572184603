// `lmroof predict --model M [--device ...]`: a model's memory and speed of light on
// named accelerators or on this machine's measured ceilings (docs/predict.md).
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "analysis/io/output_file.h"
#include "analysis/model/input_error.h"
#include "analysis/results/results.h"
#include "analysis/io/output_set.h"
#include "analysis/predict/measured_device.h"
#include "analysis/predict/prediction.h"
#include "bench/catalogue.h"
#include "bench/shape_request.h"
#include "cli/commands.h"
#include "cli/machine_ceilings.h"
#include "reports/predict_format.h"
#include "reports/predict_report.h"

namespace lmroof::cli {

namespace {

std::vector<int64_t> parse_batches(std::string_view text) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(bench::parse_size(text.substr(start, comma == std::string_view::npos ? comma : comma - start), "--batch"));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The machine's physical memory, for a device measured here.
std::optional<double> physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::nullopt;
  return static_cast<double>(pages) * static_cast<double>(page);
}

std::vector<predict::Device> resolve_devices(const PredictArgs& args) {
  std::vector<predict::Device> table = predict::load_device_file(predict::bundled_devices_file());
  for (const auto& file : args.device_files) {
    for (auto& d : predict::load_device_file(file)) {
      // A user's entry replaces a bundled one of the same name.
      std::erase_if(table, [&](const predict::Device& t) { return lower(t.name) == lower(d.name); });
      table.push_back(std::move(d));
    }
  }
  std::vector<predict::Device> out;
  const std::vector<std::string> wanted = args.devices.empty() ? std::vector<std::string>{"H100 SXM"} : args.devices;
  for (const auto& name : wanted) {
    if (lower(name) == "all") {
      out.insert(out.end(), table.begin(), table.end());
      continue;
    }
    if (lower(name) == "this") {
      const model::Results r = measure_ceilings("auto", true, {});
      out.push_back(predict::device_from_results(r, "this", r.machine.gpu ? std::nullopt : physical_memory_bytes()));
      continue;
    }
    const auto it = std::find_if(table.begin(), table.end(), [&](const predict::Device& d) { return lower(d.name) == lower(name); });
    if (it != table.end()) {
      out.push_back(*it);
      continue;
    }
    std::error_code ec;
    if (name.ends_with(".json") && std::filesystem::exists(name, ec)) {
      predict::require_regular_file(name, "--device");
      require_complete_set(std::filesystem::path(name).parent_path());  // not a folder a killed run left half published
      const model::Results r = load_results(name, registry_catalogue());
      out.push_back(predict::device_from_results(r, name, r.machine.gpu ? std::optional(r.machine.gpu->memory_bytes) : std::nullopt));
      continue;
    }
    std::string known;
    for (const auto& d : table) known += (known.empty() ? "" : ", ") + d.name;
    throw model::InputError(
        fmt::format("--device: '{}' is not a device of the table ({}), 'this', 'all' or a results.json file", name, known));
  }
  return out;
}

}  // namespace

int predict(const PredictArgs& args) {
  if (!args.html.empty()) check_output_file(args.html);
  const ModelConfig model = find_model(args.model);
  const predict::Dtype dtype = predict::parse_dtype(args.dtype);
  const std::vector<int64_t> contexts = bench::parse_context_list(args.context);
  const std::vector<int64_t> batches = parse_batches(args.batch);
  const std::vector<predict::Device> devices = resolve_devices(args);
  const predict::Prediction prediction = predict::predict(model, dtype, contexts, batches, devices);
  if (args.format == "json") std::printf("%s\n", predict::to_json(prediction).dump(2).c_str());
  else if (args.format == "markdown") std::printf("%s", report::predict_markdown(prediction).c_str());
  else std::printf("%s", report::predict_text(prediction).c_str());
  if (!args.html.empty()) {
    report::write_predict_html(prediction, args.html);
    std::fprintf(stderr, "lmroof predict: wrote %s\n", args.html.c_str());
  }
  return 0;
}

}  // namespace lmroof::cli
