// `lmroof trace`: a PyTorch profiler trace (or a folder of per-rank traces) on the
// device's roofs (docs/trace.md). Also the trace.json sides of `check` and `compare`.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/claims/claims.h"
#include "analysis/io/atomic_write.h"
#include "analysis/io/output_file.h"
#include "analysis/io/output_set.h"
#include "analysis/model/input_error.h"
#include "analysis/model/json_input.h"
#include "analysis/model/results_model.h"
#include "analysis/predict/devices.h"
#include "analysis/predict/measured_device.h"
#include "analysis/formats/file_names.h"
#include "bench/memory_budget.h"
#include "analysis/trace/fusion_check.h"
#include "analysis/trace/trace_analysis.h"
#include "analysis/trace/trace_compare.h"
#include "analysis/model/trace_result.h"
#include "analysis/trace/trace_output.h"
#include "analysis/trace/trace_reader.h"
#include "analysis/trace/trace_schema.h"
#include "analysis/trace/what_if.h"
#include "cli/commands.h"
#include "reports/text/terminal_text.h"
#include "reports/text/claims_text.h"
#include "reports/text/trace_text.h"
#include "reports/text/what_if_text.h"
#include "reports/trace_compare_report.h"
#include "reports/trace_report.h"

namespace lmroof::cli {

namespace lt = lmroof::trace;

namespace {

constexpr std::string_view kTraceFiles[] = {formats::kTraceJson, formats::kTraceCsv, formats::kTraceHtml};

bool is_trace_name(const std::filesystem::path& p) {
  const std::string n = p.filename().string();
  return n.ends_with(".json") || n.ends_with(".json.gz");
}

// A folder stands for its per-rank traces (*.json, *.json.gz), in name order. Each
// file is read once: one named twice, a folder and a file in it, or a symlink or hard
// link in the folder to a file already listed is the same file (same device and inode),
// and counting it twice would double every time (issue 47, defect 2).
std::vector<std::filesystem::path> expand_inputs(const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::filesystem::path> listed;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(input, ec)) {
      std::vector<std::filesystem::path> files;
      const std::vector<std::string> own = published_set(input);  // a trace.json lmroof wrote there
      for (const auto& entry : std::filesystem::directory_iterator(input, ec)) {
        if (!entry.is_regular_file() || !is_trace_name(entry.path())) continue;
        if (std::find(own.begin(), own.end(), entry.path().filename().string()) != own.end()) {
          std::fprintf(stderr, "lmroof trace: %s is lmroof's own output, not a trace: skipped\n",
                       report::printable(entry.path().string()).c_str());
          continue;
        }
        files.push_back(entry.path());
      }
      if (files.empty()) throw model::InputError(fmt::format("{}: a folder with no *.json or *.json.gz trace", input.string()));
      std::sort(files.begin(), files.end());
      listed.insert(listed.end(), files.begin(), files.end());
    } else {
      listed.push_back(input);
    }
  }
  std::vector<std::filesystem::path> out;
  std::vector<std::pair<std::pair<dev_t, ino_t>, std::filesystem::path>> seen;
  for (const auto& file : listed) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {  // missing: read_trace says so
      out.push_back(file);
      continue;
    }
    const auto id = std::pair(st.st_dev, st.st_ino);
    const auto same = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == id; });
    if (same != seen.end()) {
      std::fprintf(stderr, "lmroof trace: %s is %s, read once\n", report::printable(file.string()).c_str(),
                   report::printable(same->second.string()).c_str());
      continue;
    }
    seen.emplace_back(id, file);
    out.push_back(file);
  }
  return out;
}

// Two traces of one rank (distributedInfo.rank) would count its time twice: refused,
// naming both files, since the sum over ranks is what the outputs report. Checked as
// each trace is read, before the next one is.
void require_new_rank(const lt::TraceFile& trace, const std::vector<lt::TraceAnalysis>& read_before) {
  if (!trace.rank) return;
  for (const auto& earlier : read_before)
    if (earlier.rank == trace.rank)
      throw model::InputError(fmt::format("{}: distributedInfo.rank: {}, as in {}; two traces of one rank would count its "
                                          "time twice: give one trace per rank",
                                          trace.path, *trace.rank, earlier.file));
}

// The folders the inputs are read from must not hold a set a killed lmroof left half
// published (issue 47, defect 16): the same check as for a results.json.
void require_complete_input_folders(const std::vector<std::filesystem::path>& inputs) {
  for (const auto& input : inputs) {
    if (input.empty()) continue;
    std::error_code ec;
    require_complete_set(std::filesystem::is_directory(input, ec) ? input : input.parent_path());
  }
}

std::optional<int64_t> parse_steps(const std::string& text) {
  if (text == "all") return std::nullopt;
  int64_t n = 0;
  if (text.empty() || text.size() > 12 || !std::all_of(text.begin(), text.end(), ::isdigit))
    throw model::InputError(fmt::format("--steps: \"{}\" is neither \"all\" nor a step number", text));
  for (char c : text) n = n * 10 + (c - '0');
  return n;
}

// A document as JSON text, a string that is not UTF-8 (a file name's bytes) replaced by
// U+FFFD rather than a throw once the work is done.
std::string dump_text(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
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

// A trace.json lmroof trace wrote, read and checked once (model::read_trace_result).
model::TraceResult read_trace_json(const std::filesystem::path& path) {
  require_complete_set(path.parent_path());  // as for a results.json (issue 47, defect 16)
  const nlohmann::json doc = model::read_json_file(path);
  if (doc.is_object() && doc.contains("schema") && doc["schema"] == lt::kTraceSchemaV1)
    throw model::InputError(fmt::format("{}: schema: {} was written by an older lmroof; `lmroof migrate {} -o NEW.json` "
                                        "writes it as {}",
                                        path.string(), lt::kTraceSchemaV1, path.string(), lt::kTraceSchema));
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != lt::kTraceSchema)
    throw model::InputError(fmt::format("{}: schema: not an lmroof trace.json ({})", path.string(), lt::kTraceSchema));
  return model::read_trace_result(doc, path.string());
}

}  // namespace

bool is_trace_json(const std::filesystem::path& path) {
  // By its schema field; anything unreadable is left to the results reader's message.
  try {
    const nlohmann::json doc = model::read_json_file(path);
    // An older version too, so that check and compare say how to migrate it.
    return doc.is_object() && doc.contains("schema") && (doc["schema"] == lt::kTraceSchema || doc["schema"] == lt::kTraceSchemaV1);
  } catch (const std::exception&) {
    return false;
  }
}

int trace_command(const TraceArgs& args) {
  const std::vector<std::filesystem::path> files = expand_inputs(args.inputs);
  const std::optional<int64_t> step = parse_steps(args.steps);
  if (args.threads < 1 || args.threads > 2) throw model::InputError("--threads: 1 or 2");
  // Outputs first, before reading a multi-GB input: never an input, never a non-file,
  // never a folder holding a run's set, and no input from a half-published folder
  // (issue 47, defects 1, 11, 16).
  std::vector<std::filesystem::path> inputs = args.inputs;
  inputs.insert(inputs.end(), files.begin(), files.end());
  if (!args.ceilings.empty()) inputs.push_back(args.ceilings);
  if (!args.claims.empty()) inputs.push_back(args.claims);
  check_inputs_outside_set(args.out, inputs, SetKind::trace);
  require_complete_input_folders(inputs);
  for (std::string_view name : kTraceFiles)
    if (auto why = why_not_replaceable(args.out / name))
      throw model::InputError(fmt::format("--out: {}: {}", (args.out / name).string(), *why));
  // The kept events' bound (issue 47, defect 18), read now: a bad LMROOF_MEMORY_LIMIT fails before reading.
  const double memory_limit = bench::available_memory_bytes();
  // Roofs: the table, a flag, or measured ceilings.
  const std::vector<predict::Device> table = predict::load_device_file(predict::bundled_devices_file());
  std::optional<predict::Device> measured;
  std::optional<model::TraceFusionCheck> fusion_check;  // the fix-first fusion estimate on the ceilings' own fused pairs
  if (!args.ceilings.empty()) {
    measured = measured_device(args.ceilings, "--ceilings");  // the file is a results.json: it loads
    fusion_check = lt::fusion_check_result(lt::check_fusion_estimate(model::load_results(args.ceilings), *measured),
                                           args.ceilings.string());
  }
  if (!args.device.empty() && measured) throw model::InputError("--device and --ceilings: give one of them");
  if (!args.device.empty()) {  // an unknown name fails now, before any reading
    lt::TraceFile empty;
    lt::resolve_roofs(empty, table, args.device, std::nullopt);
  }
  const auto targets = what_if_targets(args.what_if, table);
  std::vector<std::vector<lt::WhatIf>> what_ifs(targets.size());  // per target, per rank
  std::vector<Claim> claims;  // read whole and checked before the trace (a bad byte fails in a moment, not after GBs)
  if (!args.claims.empty()) claims = load_claims(args.claims, model::Catalogue{}, ClaimsTarget::trace);
  OutputSet set(args.out, SetKind::trace);

  std::vector<lt::TraceAnalysis> ranks;
  lt::ReadOptions read_options;
  read_options.threads = args.threads;
  read_options.progress = isatty(STDERR_FILENO) != 0;
  read_options.memory_limit_bytes = memory_limit;
  // One rank at a time: the memory budget is the largest rank's kept events (about a
  // quarter of its JSON size), not the sum over ranks.
  for (const auto& file : files) {
    if (files.size() > 1) std::fprintf(stderr, "lmroof trace: reading %s\n", report::printable(file.string()).c_str());
    const auto cpu0 = std::clock();
    const auto wall0 = std::chrono::steady_clock::now();
    lt::TraceFile t = lt::read_trace(file, read_options);
    require_new_rank(t, ranks);
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
  model::TraceResult result = lt::to_trace_result(merged, ranks);
  result.file = (args.out / formats::kTraceJson).string();
  std::vector<lt::WhatIf> merged_what_ifs;
  for (const auto& per_rank : what_ifs) merged_what_ifs.push_back(lt::merge_what_if(per_rank));
  if (!targets.empty()) {
    result.what_if.emplace();
    for (const auto& w : merged_what_ifs) result.what_if->push_back(lt::what_if_result(w));
  }
  result.fix_first_check = fusion_check;
  std::vector<model::ClaimVerdict> verdicts;
  if (!claims.empty()) {
    verdicts = check_trace_claims(claims, result);
    result.claims = verdicts;
  }
  const nlohmann::json doc = model::to_json(result);
  // Replaced, not thrown at write time: the reader refuses names that are not UTF-8,
  // but a file name (trace.json's "file") is the filesystem's bytes (issue 47, defect 4).
  write_file_atomically(set.staged(formats::kTraceJson), dump_text(doc, 1) + "\n");
  write_file_atomically(set.staged(formats::kTraceCsv), lt::to_csv(merged, lt::what_if_csv_columns(merged, merged_what_ifs)));
  write_file_atomically(set.staged(formats::kTraceHtml), report::trace_html(result));
  set.publish();

  if (args.format == "json") std::printf("%s\n", dump_text(doc, 2).c_str());
  else {
    model::TraceResult printable = result;  // every text fit for a terminal
    model::visit_strings(printable, [](const std::string& text) { return report::printable(text); });
    std::printf("%s", lt::to_text(printable, args.format == "markdown").c_str());
    if (printable.what_if) std::printf("\n%s", report::what_if_text(*printable.what_if).c_str());
    if (!verdicts.empty())
      std::printf("\n%s", (args.format == "markdown" ? format_claims_markdown(verdicts) : format_claims_table(verdicts)).c_str());
    std::printf("\nwrote %s/{trace.json,trace.csv,trace.html}\n", report::printable(args.out.string()).c_str());
  }
  return claims_exit_code(verdicts);
}

int check_trace(const CheckArgs& args) {
  if (args.files.size() != 2)
    throw model::InputError(fmt::format("{}: a trace.json is checked against a claims file: lmroof check CLAIMS.yaml TRACE.json",
                                        args.files.back()));
  const std::filesystem::path claims_file = args.files[0], trace_file = args.files[1];
  // The claims first: a bad claims file is refused before a large trace.json is read.
  const auto claims = load_claims(claims_file, model::Catalogue{}, ClaimsTarget::trace);
  const auto verdicts = check_trace_claims(claims, read_trace_json(trace_file));
  const int code = claims_exit_code(verdicts, args.strict);
  if (args.format == "json") {
    std::printf("%s\n", dump_text(claims_check_json(verdicts, trace_file.string(), claims_file.string(), args.strict), 2).c_str());
  } else if (args.format == "markdown") {
    std::printf("%s", format_claims_markdown(verdicts).c_str());
  } else {
    std::printf("claims: %s\ntrace: %s\n%s", claims_file.c_str(), trace_file.c_str(), format_claims_table(verdicts).c_str());
    if (code) std::printf("exit 1: %s\n", args.strict ? "a claim fails or is inconclusive (--strict)" : "a claim fails");
  }
  return code;
}

int migrate_trace(const MigrateArgs& args) {
  const std::string file = args.bench_json.string();
  require_complete_set(args.bench_json.parent_path());  // as check and compare
  const nlohmann::json doc = model::read_json_file(args.bench_json);
  if (doc["schema"] == lt::kTraceSchema)
    throw model::InputError(fmt::format("{}: schema: already {}: nothing to migrate", file, lt::kTraceSchema));
  const nlohmann::json migrated = lt::migrate_trace_v1(doc, file);
  // What check and compare require of it, before anything is written.
  (void)model::read_trace_result(migrated, file);
  write_file_atomically(args.out, dump_text(migrated, 1) + "\n");
  std::printf("wrote %s: %s as %s (input_dims and input_types as arrays)\n", report::printable(args.out.string()).c_str(),
              report::printable(file).c_str(), lt::kTraceSchema);
  return 0;
}

int compare_traces(const CompareArgs& args) {
  // The page as results' compare --html: checked before anything is read, never an input.
  if (!args.html.empty()) check_outputs({args.html}, {args.base, args.next});
  const nlohmann::json report = lt::compare_traces(read_trace_json(args.base), read_trace_json(args.next));
  if (args.format == "json") std::printf("%s\n", dump_text(report, 2).c_str());
  else {
    std::printf("%s", lt::compare_text(report::printable_strings(report), args.format == "markdown").c_str());
    if (report.contains("prediction")) std::printf("\n%s", report::prediction_text(report["prediction"]).c_str());
  }
  if (!args.html.empty()) {
    report::write_trace_compare_html(report, args.html);
    std::fprintf(stderr, "lmroof compare: wrote %s\n", report::printable(args.html.string()).c_str());
  }
  return 0;
}

}  // namespace lmroof::cli
