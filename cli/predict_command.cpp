// `lmroof predict --model M [--device ...]`: a model's memory and speed of light on
// named accelerators or on this machine's measured ceilings (docs/predict.md).
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "analysis/io/atomic_write.h"
#include "analysis/io/output_file.h"
#include "analysis/model/input_error.h"
#include "analysis/results/results.h"
#include "analysis/io/output_set.h"
#include "analysis/model/json_input.h"
#include "analysis/predict/measured_device.h"
#include "analysis/predict/prediction.h"
#include "bench/catalogue.h"
#include "bench/shape_request.h"
#include "cli/commands.h"
#include "cli/machine_ceilings.h"
#include "reports/text/predict_format.h"
#include "reports/predict_report.h"

namespace lmroof::cli {

namespace {

// Each value once, in numeric order: `--batch 8,1,8` is two rows (1, 8), not three, and
// the tables, the charts' legends and "the last context" read in order.
std::vector<int64_t> without_repeats(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

std::vector<int64_t> parse_batches(std::string_view text) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(bench::parse_size(text.substr(start, comma == std::string_view::npos ? comma : comma - start), "--batch"));
    if (comma == std::string_view::npos) return without_repeats(std::move(out));
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
      std::erase_if(table, [&](const predict::Device& t) { return predict::same_device_name(t.name, d.name); });
      table.push_back(std::move(d));
    }
  }
  std::vector<predict::Device> out;
  // Each device once, however often and however spelled it is asked for
  // ('H200 SXM', 'h200 sxm', 'all'): the first mention sets its place.
  auto add = [&](predict::Device d) {
    if (std::none_of(out.begin(), out.end(), [&](const predict::Device& o) { return predict::same_device_name(o.name, d.name); }))
      out.push_back(std::move(d));
  };
  const std::vector<std::string> wanted = args.devices.empty() ? std::vector<std::string>{"H100 SXM"} : args.devices;
  for (const auto& name : wanted) {
    if (auto bad = model::terminal_unsafe_character(name))
      throw model::InputError(fmt::format("--device: holds {}, a control or direction character; give a device name", *bad));
    if (lower(name) == "all") {
      for (const auto& d : table) add(d);
      continue;
    }
    if (lower(name) == "this") {
      const model::Results r = measure_ceilings("auto", true, {});
      add(predict::device_from_results(r, "this", r.machine.gpu ? std::nullopt : physical_memory_bytes()));
      continue;
    }
    std::error_code ec;
    if (name.ends_with(".json") && std::filesystem::exists(name, ec)) {
      predict::require_regular_file(name, "--device");
      require_complete_set(std::filesystem::path(name).parent_path());  // not a folder a killed run left half published
      const model::Results r = load_results(name, registry_catalogue());
      add(predict::device_from_results(r, name, r.machine.gpu ? std::optional(r.machine.gpu->memory_bytes) : std::nullopt));
      continue;
    }
    if (const auto i = predict::find_device(table, name, "--device")) {
      add(table[*i]);
      continue;
    }
    std::string known;
    for (const auto& d : table) known += (known.empty() ? "" : ", ") + d.name;
    throw model::InputError(
        fmt::format("--device: '{}' is not a device of the table ({}), 'this', 'all' or a results.json file", name, known));
  }
  return out;
}

// Every file this command reads: -o must name none of them (by inode, so a hard link or
// another spelling of the same file is refused too).
std::vector<std::filesystem::path> input_files(const PredictArgs& args) {
  std::vector<std::filesystem::path> inputs(args.device_files.begin(), args.device_files.end());
  std::error_code ec;
  if (std::filesystem::is_regular_file(args.model, ec)) inputs.emplace_back(args.model);
  for (const auto& d : args.devices)
    if (std::filesystem::exists(d, ec)) inputs.emplace_back(d);
  return inputs;
}

}  // namespace

// -o writes what its name says: JSON (docs/predict.schema.json) for a .json name, the
// page for .html or .htm; any other name is refused before the work.
bool output_is_json(const std::filesystem::path& path) {
  std::string ext = lower(path.extension().string());
  if (ext == ".json") return true;
  if (ext == ".html" || ext == ".htm") return false;
  throw model::InputError(fmt::format("-o {}: give a .html name for the page or a .json name for the JSON", path.string()));
}

int predict(const PredictArgs& args) {
  if (!args.html.empty()) {
    output_is_json(args.html);
    check_output_file(args.html, input_files(args));
  }
  const ModelConfig model = find_model(args.model);
  const predict::Dtype dtype = predict::parse_dtype(args.dtype);
  const std::vector<int64_t> contexts = without_repeats(bench::parse_context_list(args.context));
  const std::vector<int64_t> batches = parse_batches(args.batch);
  const std::vector<predict::Device> devices = resolve_devices(args);
  const predict::Prediction prediction = predict::predict(model, dtype, contexts, batches, devices);
  if (args.format == "json") std::printf("%s\n", predict::to_json(prediction).dump(2).c_str());
  else if (args.format == "markdown") std::printf("%s", report::predict_markdown(prediction).c_str());
  else std::printf("%s", report::predict_text(prediction).c_str());
  if (!args.html.empty()) {
    if (output_is_json(args.html)) write_file_atomically(args.html, predict::to_json(prediction).dump(2) + "\n");
    else report::write_predict_html(prediction, args.html);
    std::fprintf(stderr, "lmroof predict: wrote %s\n", args.html.c_str());
  }
  return 0;
}

}  // namespace lmroof::cli
