// `lmroof trace`: a PyTorch profiler trace (or a folder of per-rank traces) on the
// device's roofs (docs/trace.md). Also the trace.json sides of `check` and `compare`.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "analysis/io/atomic_write.h"
#include "analysis/io/output_file.h"
#include "analysis/io/output_set.h"
#include "analysis/model/input_error.h"
#include "analysis/model/json_input.h"
#include "analysis/model/results_model.h"
#include "analysis/predict/devices.h"
#include "analysis/predict/measured_device.h"
#include "analysis/trace/trace_analysis.h"
#include "analysis/trace/trace_claims.h"
#include "analysis/trace/trace_compare.h"
#include "analysis/trace/trace_output.h"
#include "analysis/trace/trace_reader.h"
#include "analysis/trace/what_if.h"
#include "cli/commands.h"
#include "reports/text/trace_text.h"
#include "reports/text/what_if_text.h"
#include "reports/trace_report.h"

namespace lmroof::cli {

namespace lt = lmroof::trace;

namespace {

constexpr const char* kTraceFiles[] = {"trace.json", "trace.csv", "trace.html"};

bool is_trace_name(const std::filesystem::path& p) {
  const std::string n = p.filename().string();
  return n.ends_with(".json") || n.ends_with(".json.gz");
}

// A folder stands for its per-rank traces (*.json, *.json.gz), in name order.
std::vector<std::filesystem::path> expand_inputs(const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::filesystem::path> out;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(input, ec))
        if (entry.is_regular_file() && is_trace_name(entry.path())) files.push_back(entry.path());
      if (files.empty()) throw model::InputError(fmt::format("{}: a folder with no *.json or *.json.gz trace", input.string()));
      std::sort(files.begin(), files.end());
      out.insert(out.end(), files.begin(), files.end());
    } else {
      out.push_back(input);
    }
  }
  return out;
}

std::optional<int64_t> parse_steps(const std::string& text) {
  if (text == "all") return std::nullopt;
  int64_t n = 0;
  if (text.empty() || text.size() > 12 || !std::all_of(text.begin(), text.end(), ::isdigit))
    throw model::InputError(fmt::format("--steps: \"{}\" is neither \"all\" nor a step number", text));
  for (char c : text) n = n * 10 + (c - '0');
  return n;
}

// An lmroof results.json's measured roofs as a device (--ceilings, or a --what-if target).
predict::Device measured_device(const std::filesystem::path& file, const char* option) {
  predict::require_regular_file(file, option);
  model::Results results;
  try {
    results = model::load_results(file);
  } catch (const std::exception& e) {
    throw model::InputError(fmt::format("{}: {}: not an lmroof results.json ({})", option, file.string(), e.what()));
  }
  return predict::device_from_results(results, file.string(), std::nullopt);
}

// --what-if targets, resolved before any reading: a table name (or an unambiguous
// prefix), else an existing *.json file of measured ceilings.
std::vector<std::pair<predict::Device, std::string>> what_if_targets(const std::vector<std::string>& names,
                                                                     const std::vector<predict::Device>& table) {
  std::vector<std::pair<predict::Device, std::string>> out;
  for (const auto& name : names) {
    if (auto i = predict::find_device(table, name, "--what-if")) {
      out.emplace_back(table[*i], "table");
      continue;
    }
    std::error_code ec;
    if (name.ends_with(".json") && std::filesystem::exists(name, ec)) {
      out.emplace_back(measured_device(name, "--what-if"), "measured");
      continue;
    }
    std::string known;
    for (const auto& d : table) known += (known.empty() ? "" : ", ") + d.name;
    throw model::InputError(fmt::format("--what-if: \"{}\" is neither a device of the table ({}) nor an lmroof results.json", name, known));
  }
  return out;
}

nlohmann::json read_trace_json(const std::filesystem::path& path) {
  const nlohmann::json doc = model::read_json_file(path);
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "lmroof.trace/1")
    throw model::InputError(fmt::format("{}: schema: not an lmroof trace.json (lmroof.trace/1)", path.string()));
  return doc;
}

}  // namespace

bool is_trace_json(const std::filesystem::path& path) {
  // By its schema field; anything unreadable is left to the results reader's message.
  try {
    const nlohmann::json doc = model::read_json_file(path);
    return doc.is_object() && doc.contains("schema") && doc["schema"] == "lmroof.trace/1";
  } catch (const std::exception&) {
    return false;
  }
}

int trace_command(const TraceArgs& args) {
  const std::vector<std::filesystem::path> files = expand_inputs(args.inputs);
  const std::optional<int64_t> step = parse_steps(args.steps);
  if (args.threads < 1 || args.threads > 2) throw model::InputError("--threads: 1 or 2");
  // Outputs first, before reading a multi-GB input: never an input, never a non-file.
  std::vector<std::filesystem::path> outputs;
  for (const char* name : kTraceFiles) outputs.push_back(args.out / name);
  std::vector<std::filesystem::path> inputs = files;
  if (!args.ceilings.empty()) inputs.push_back(args.ceilings);
  if (!args.claims.empty()) inputs.push_back(args.claims);
  for (const auto& p : outputs)
    if (auto why = why_not_replaceable(p)) throw model::InputError(fmt::format("--out: {}: {}", p.string(), *why));
  for (const auto& p : outputs)
    for (const auto& in : inputs) {
      std::error_code ec;
      if (std::filesystem::exists(p, ec) && std::filesystem::equivalent(p, in, ec))
        throw model::InputError(fmt::format("--out: {} is an input; choose another folder", p.string()));
    }
  // Roofs: the table, a flag, or measured ceilings.
  const std::vector<predict::Device> table = predict::load_device_file(predict::bundled_devices_file());
  std::optional<predict::Device> measured;
  if (!args.ceilings.empty()) measured = measured_device(args.ceilings, "--ceilings");
  if (!args.device.empty() && measured) throw model::InputError("--device and --ceilings: give one of them");
  if (!args.device.empty()) {  // an unknown name fails now, before any reading
    lt::TraceFile empty;
    lt::resolve_roofs(empty, table, args.device, std::nullopt);
  }
  const auto targets = what_if_targets(args.what_if, table);
  std::vector<std::vector<lt::WhatIf>> what_ifs(targets.size());  // per target, per rank
  std::vector<lt::Claim> claims;
  if (!args.claims.empty()) claims = lt::load_trace_claims(args.claims);
  OutputSet set(args.out);

  std::vector<lt::TraceAnalysis> ranks;
  lt::ReadOptions read_options;
  read_options.threads = args.threads;
  read_options.progress = isatty(STDERR_FILENO) != 0;
  // One rank at a time: the memory budget is the largest rank's kept events (about a
  // quarter of its JSON size), not the sum over ranks.
  for (const auto& file : files) {
    if (files.size() > 1) std::fprintf(stderr, "lmroof trace: reading %s\n", file.c_str());
    const auto cpu0 = std::clock();
    const auto wall0 = std::chrono::steady_clock::now();
    lt::TraceFile t = lt::read_trace(file, read_options);
    const auto cpu1 = std::clock();
    const auto wall1 = std::chrono::steady_clock::now();
    const lt::Roofs roofs = lt::resolve_roofs(t, table, args.device, measured);
    lt::AnalysisOptions options;
    options.step = step;
    options.keep_timeline = !targets.empty();
    ranks.push_back(lt::analyze(t, roofs, options));
    for (size_t i = 0; i < targets.size(); ++i)
      what_ifs[i].push_back(lt::what_if(ranks.back(), targets[i].first, targets[i].second));
    ranks.back().timeline = {};  // only the replay needs it
    // What reading and analysing took (CPU time of all threads, and wall time), for the benchmark.
    auto& r = ranks.back();
    r.read_cpu_s = double(cpu1 - cpu0) / CLOCKS_PER_SEC;
    r.analysis_cpu_s = double(std::clock() - cpu1) / CLOCKS_PER_SEC;
    r.read_wall_s = std::chrono::duration<double>(wall1 - wall0).count();
    r.analysis_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall1).count();
  }
  const lt::TraceAnalysis merged = lt::merge_ranks(ranks);
  nlohmann::json doc = lt::to_json(merged, ranks);
  std::vector<lt::WhatIf> merged_what_ifs;
  for (const auto& per_rank : what_ifs) merged_what_ifs.push_back(lt::merge_what_if(per_rank));
  if (!targets.empty()) {
    doc["what_if"] = nlohmann::json::array();
    for (const auto& w : merged_what_ifs) doc["what_if"].push_back(lt::what_if_json(w));
  }
  std::vector<lt::ClaimVerdict> verdicts;
  if (!claims.empty()) {
    verdicts = lt::check_trace_claims(claims, doc);
    doc["claims"] = lt::verdicts_json(verdicts);
  }
  write_file_atomically(set.staged("trace.json"), doc.dump(1) + "\n");
  write_file_atomically(set.staged("trace.csv"), lt::to_csv(merged, lt::what_if_csv_columns(merged, merged_what_ifs)));
  write_file_atomically(set.staged("trace.html"), report::trace_html(doc));
  set.publish();

  if (args.format == "json") std::printf("%s\n", doc.dump(2).c_str());
  else {
    std::printf("%s", lt::to_text(doc, args.format == "markdown").c_str());
    if (doc.contains("what_if")) std::printf("\n%s", report::what_if_text(doc["what_if"]).c_str());
    if (!verdicts.empty()) std::printf("\n%s", lt::verdicts_text(verdicts, args.format == "markdown").c_str());
    std::printf("\nwrote %s/{trace.json,trace.csv,trace.html}\n", args.out.c_str());
  }
  return lt::claims_exit(verdicts);
}

int check_trace(const CheckArgs& args) {
  if (args.files.size() != 2)
    throw model::InputError(fmt::format("{}: a trace.json is checked against a claims file: lmroof check CLAIMS.yaml TRACE.json",
                                        args.files.back()));
  const std::filesystem::path claims_file = args.files[0], trace_file = args.files[1];
  const nlohmann::json doc = read_trace_json(trace_file);
  const auto claims = lt::load_trace_claims(claims_file);
  const auto verdicts = lt::check_trace_claims(claims, doc);
  if (args.format == "json")
    std::printf("%s\n", nlohmann::json({{"schema", "lmroof.check/1"},
                                        {"claims_file", claims_file.string()},
                                        {"results_file", trace_file.string()},
                                        {"claims", lt::verdicts_json(verdicts)}})
                            .dump(2)
                            .c_str());
  else {
    if (args.format == "text") std::printf("claims: %s\ntrace: %s\n", claims_file.c_str(), trace_file.c_str());
    std::printf("%s", lt::verdicts_text(verdicts, args.format == "markdown").c_str());
  }
  return lt::claims_exit(verdicts, args.strict);
}

int compare_traces(const CompareArgs& args) {
  if (!args.html.empty()) throw model::InputError("--html: not available when comparing trace.json files; the text, json and markdown formats are");
  const nlohmann::json a = read_trace_json(args.base), b = read_trace_json(args.next);
  const nlohmann::json report = lt::compare_traces(a, b, args.base.string(), args.next.string());
  if (args.format == "json") std::printf("%s\n", report.dump(2).c_str());
  else {
    std::printf("%s", lt::compare_text(report, args.format == "markdown").c_str());
    if (report.contains("prediction")) std::printf("\n%s", report::prediction_text(report["prediction"]).c_str());
  }
  return 0;
}

}  // namespace lmroof::cli
