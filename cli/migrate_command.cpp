// `lmroof migrate OLD.json -o NEW.json`: a bench.json measured before lmroof recorded
// the pair catalogue with the runs (model::context::kCatalogue) gets this build's
// registry catalogue, and says so in the context (kCatalogueMigratedBy). The analysis
// never supplies a missing catalogue itself (it links no registry): it refuses such a
// file with one line that names this command. Costs are not migrated: every bench.json
// lmroof has written records them as counters, and the analysis refuses a run without.
// A trace.json of schema lmroof.trace/1 becomes lmroof.trace/2 (trace_command.cpp: migrate_trace).
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/results/bench_json.h"
#include "analysis/io/atomic_write.h"
#include "analysis/io/output_file.h"
#include "analysis/model/input_error.h"
#include "analysis/model/json_input.h"
#include "analysis/model/results_model.h"
#include "analysis/model/schema.h"
#include "analysis/results/results.h"
#include "bench/catalogue.h"
#include "cli/commands.h"
#include "analysis/formats/file_names.h"
#include "lmroof/build_info.h"

namespace lmroof::cli {

namespace {

// `analyze OUT` must accept what migrate writes: the analysis runs here on the migrated
// text first, as analyze would run it on OUT (with the kernel traces it would read
// beside OUT), down to the validation of the results it would write. Whatever it
// refuses (a run without costs, a value the results cannot hold) is refused now, in
// analyze's words, and nothing is written.
void refuse_what_analyze_would_refuse(const std::string& migrated, const std::string& file, const std::filesystem::path& out) {
  try {
    BenchDocument doc = parse_bench_text(migrated, file);
    if (const auto traces = formats::kernel_traces_path(out); std::filesystem::exists(traces))
      doc.kernel_traces = parse_kernel_traces(model::read_json_file(traces), traces.string());
    AnalysisOptions options;
    options.bench_json_name = out.filename().string();
    const model::Results results = build_results(doc, options);
    (void)model::results_from_json(model::to_json(results), out.filename().string());
  } catch (const model::InputError& e) {
    throw model::InputError(fmt::format("{} (analyze would refuse the migrated file; nothing written)", e.what()));
  }
}

}  // namespace

int migrate(const MigrateArgs& args) {
  namespace ctx = model::context;
  check_output_file(args.out, {args.bench_json, formats::kernel_traces_path(args.bench_json)});
  if (is_trace_json(args.bench_json)) return migrate_trace(args);  // an older lmroof trace's trace.json
  const std::string file = args.bench_json.string();
  const std::string text = model::read_text_file(args.bench_json);
  const nlohmann::json doc = bench_json_value(text, file);
  if (!doc.is_object() || !doc.contains("benchmarks"))
    throw model::InputError(fmt::format("{}: /benchmarks: missing: not Google Benchmark JSON", file));
  if (!doc.contains("context") || !doc["context"].is_object())
    throw model::InputError(fmt::format("{}: /context: missing or not an object: not Google Benchmark JSON", file));
  if (doc["context"].contains(ctx::kCatalogue))
    throw model::InputError(fmt::format("{}: /context/{}: already recorded at measurement time: nothing to migrate",
                                        file, ctx::kCatalogue));
  const std::string catalogue = model::to_json(registry_catalogue()).dump();
  const std::string by = fmt::format("lmroof {}", build_info::version);
  // The two entries go in as text at the top of the context, so every other byte of
  // the file (Google Benchmark's NaN and Infinity tokens included) stays as measured;
  // the result is parsed back and must be the input plus exactly these two entries.
  constexpr std::string_view kContextOpen = "\"context\": {";
  const auto at = text.find(kContextOpen);
  if (at == std::string::npos)
    throw model::InputError(fmt::format("{}: /context: not laid out as Google Benchmark writes it; nothing written", file));
  const std::string entries = fmt::format("\n    {}: {},\n    {}: {}{}", nlohmann::json(ctx::kCatalogue).dump(),
                                          nlohmann::json(catalogue).dump(), nlohmann::json(ctx::kCatalogueMigratedBy).dump(),
                                          nlohmann::json(by).dump(), doc["context"].empty() ? "" : ",");
  const std::size_t insert_at = at + kContextOpen.size();
  const std::string migrated = text.substr(0, insert_at) + entries + text.substr(insert_at);
  nlohmann::json expected = doc;
  expected["context"][std::string(ctx::kCatalogue)] = catalogue;
  expected["context"][std::string(ctx::kCatalogueMigratedBy)] = by;
  if (bench_json_value(migrated, file) != expected)
    throw model::InputError(fmt::format("{}: /context: not laid out as Google Benchmark writes it; nothing written", file));
  refuse_what_analyze_would_refuse(migrated, file, args.out);
  write_file_atomically(args.out, migrated);
  std::printf("wrote %s: %s with the pair catalogue of this build (%s)\n", args.out.c_str(), file.c_str(), by.c_str());
  return 0;
}

}  // namespace lmroof::cli
