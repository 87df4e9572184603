// `lmroof report | ceilings | list | analyze | check`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "analysis/io/atomic_write.h"
#include "analysis/claims/claims.h"
#include "reports/text/claims_text.h"
#include "analysis/io/interrupt_cleanup.h"
#include "analysis/io/output_file.h"
#include "analysis/io/output_set.h"
#include "analysis/results/results.h"
#include "analysis/results/warnings.h"
#include "analysis/io/page_side_files.h"
#include "bench/catalogue.h"
#include "bench/runner.h"
#include "cli/commands.h"
#include "cli/machine_ceilings.h"
#include "reports/text/model_summary.h"
#include "reports/text/summary.h"
#include "analysis/formats/file_names.h"
#include "profiler/device_query.h"
#include "profiler/kernel_trace_file.h"
#include "registry.h"
#include "reports/html_report.h"

namespace lmroof::cli {

int report(const std::filesystem::path& results_path, const std::filesystem::path& html) {
  check_output_file(html, {results_path});
  require_complete_set(results_path.parent_path());
  const model::Results results = load_results(results_path, registry_catalogue());
  require_runs(results, results_path.string(), "report");
  // The page and its side files, checked against the input and each other before
  // any is written, then written as one set.
  const std::vector<OutputContents> files = report_files(results, html);
  check_outputs(output_paths(files), {results_path});
  write_page_and_side_files(files);  // and removes the side files of an earlier page there that this one lacks
  std::printf("wrote %s\n", html.c_str());
  return 0;
}

int ceilings(const std::string& backend_name, bool quick, const std::filesystem::path& json_out) {
  if (!json_out.empty()) check_output_file(json_out);
  const model::Results results = measure_ceilings(backend_name, quick, json_out);
  std::printf("%s", format_ceilings_table(results).c_str());
  std::printf("%s", format_stability_and_levels(results).c_str());
  return 0;
}

namespace {

// The shapes of one pair's runs, each with every dimension (completed, kv_heads
// included) in the catalogue's order (model::Catalogue::label, as the report and run
// ids show them), and the variants and implementation levels that run it (the
// attention pair's prefill and decode phases run different shapes).
nlohmann::json shape_table(const std::vector<RunSpec>& runs, const model::Catalogue& catalogue) {
  nlohmann::json rows = nlohmann::json::array();
  std::vector<Shape> seen;
  for (const auto& r : runs) {
    size_t i = 0;
    while (i < seen.size() && !(seen[i] == r.shape)) ++i;
    if (i == seen.size()) {
      seen.push_back(r.shape);
      const model::Shape shape(r.shape.dims().begin(), r.shape.dims().end());
      rows.push_back({{"label", catalogue.label(shape)}, {"dims", nlohmann::json::array()}, {"dtype", to_string(r.dtype)},
                      {"variants", nlohmann::json::array()}, {"impls", nlohmann::json::array()}});
      for (const auto& [k, v] : catalogue.ordered(shape)) rows[i]["dims"].push_back({k, v});
    }
    for (const auto& [key, value] : {std::pair{"variants", &r.variant}, std::pair{"impls", &r.impl}}) {
      auto& names = rows[i][key];
      if (std::find(names.begin(), names.end(), *value) == names.end()) names.push_back(*value);
    }
  }
  return rows;
}

// "  [mha; prefill only]": the variants and implementation levels that run a shape,
// each only when not all of the pair's do; empty when every combination runs it.
std::string runs_marker(const nlohmann::json& shape, const std::set<std::string>& pair_variants,
                        const std::set<std::string>& pair_impls) {
  auto names = [](const nlohmann::json& list) {
    std::string out;
// GCC 12 warns, falsely, that "x" + std::string copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
    for (const auto& v : list) out += (out.empty() ? "" : ",") + v.get<std::string>();
#pragma GCC diagnostic pop
    return out;
  };
  std::vector<std::string> parts;
  if (shape["variants"].size() != pair_variants.size()) parts.push_back(names(shape["variants"]));
  if (shape["impls"].size() != pair_impls.size()) parts.push_back(names(shape["impls"]) + " only");
  return parts.empty() ? "" : fmt::format("  [{}]", fmt::join(parts, "; "));
}

int list_models(bool json) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& name : preset_names()) {
    const ModelConfig m = find_model(name);
    nlohmann::json j = model_summary_json(m);
    j["summary"] = m.describe();
    out.push_back(j);
  }
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("built-in models (%s; or --model path/to/config.json):\n", models_dir().c_str());
  for (const auto& m : out)
    std::printf("  %-12s %s\n", m["name"].get<std::string>().c_str(), m["summary"].get<std::string>().c_str());
  return 0;
}

}  // namespace

int list(const ListArgs& args) {
  if (args.models) return list_models(args.json);
  const ShapeArgs& sa = args.shape_args;
  bench::SuiteOptions base;
  base.pairs = args.suite;
  base.shapes = bench::make_shape_request(sa.model, sa.tokens, sa.batch, sa.context, sa.shapes);
  // Without a request: the three suites as they run (CPU fp32, --quick, the GPU's bf16);
  // with one: what `lmroof run` with the same options would run on --backend.
  struct Listing {
    const char* key;
    const char* title;
    bench::SuiteOptions options;
  };
  std::vector<Listing> listings;
  auto with = [&](Backend backend, bool quick) {
    bench::SuiteOptions o = base;
    o.backend = backend, o.quick = quick, o.dtype = backend == Backend::cuda ? DType::bf16 : DType::fp32;
    return o;
  };
  std::vector<std::string> notes;
  if (base.shapes.active()) {
    const Backend backend = parse_backend(args.backend);
#ifndef LMROOF_WITH_CUDA
    if (backend == Backend::cuda)
      throw std::invalid_argument("--backend cuda: this build has no CUDA backend, so no pair would run");
#endif
    listings.push_back({"shapes", "shapes", with(backend, args.quick)});
    notes = bench::plan_suite(listings.back().options).notes;
  } else {
    listings.push_back({"default_shapes", "shapes", with(Backend::cpu, false)});
    listings.push_back({"quick_shapes", "quick shapes (--quick)", with(Backend::cpu, true)});
    listings.push_back({"cuda_shapes", "CUDA shapes", with(Backend::cuda, false)});
  }
  nlohmann::json out = nlohmann::json::array();
  const model::Catalogue catalogue = registry_catalogue();  // the dimension order of every surface
  std::vector<const PairDef*> pairs;
  for (const auto& pair : all_pairs())
    if (args.suite.empty() || std::find(args.suite.begin(), args.suite.end(), pair.name) != args.suite.end())
      pairs.push_back(&pair);
  if (!args.suite.empty())
    for (const auto& name : args.suite) (void)find_pair(name);  // an unknown name fails with the known ones
  std::vector<bench::SuitePlan> plans;
  for (const auto& l : listings) {
    if (base.shapes.active() || l.options.backend == Backend::cpu) {
      plans.push_back(bench::plan_suite(l.options));
      continue;
    }
    // The GPU's suite shapes, listed whether or not this build has CUDA.
    bench::SuitePlan gpu;
    for (const PairDef* pair : pairs) {
      const auto& shapes = pair->cuda_shapes.empty() ? pair->default_shapes : pair->cuda_shapes;
      for (const auto& c : pair->combos)
        if (pair->runs_on(Backend::cuda, c.impl))  // as bench::plan_suite: no CPU-only levels
          for (const auto& s : shapes)
            if (!pair->runs_shape || pair->runs_shape(c, s))  // the attention pair's phase shapes
              gpu.runs.push_back({pair->name, c.variant, c.impl, Backend::cuda, DType::bf16, pair->complete_shape(c.variant, s)});
    }
    plans.push_back(gpu);
  }
  for (const PairDef* pair : pairs) {
    nlohmann::json p = {{"pair", pair->name}, {"title", pair->title}, {"summary", pair->summary}, {"combos", nlohmann::json::array()},
                        {"variant_dims", pair->variant_dims}, {"cuda", static_cast<bool>(pair->make_cuda)}};
    for (const auto& c : pair->combos) p["combos"].push_back({{"variant", c.variant}, {"impl", c.impl}});
    for (size_t i = 0; i < listings.size(); ++i) {
      std::vector<RunSpec> runs;
      for (const auto& r : plans[i].runs)
        if (r.pair == pair->name) runs.push_back(r);
      p[listings[i].key] = shape_table(runs, catalogue);
    }
    out.push_back(p);
  }
  if (args.json) {
    nlohmann::json doc = {{"pairs", out}, {"notes", notes}};
    if (base.shapes.model) doc["model"] = model_summary_json(*base.shapes.model);
    std::printf("%s\n", doc.dump(2).c_str());
    return 0;
  }
  for (const auto& note : notes) std::printf("%s\n", note.c_str());
  if (!notes.empty()) std::printf("\n");
  for (const auto& p : out) {
    std::printf("%s: %s\n  %s\n  variant/impl:", p["pair"].get<std::string>().c_str(), p["title"].get<std::string>().c_str(),
                p["summary"].get<std::string>().c_str());
    for (const auto& c : p["combos"])
      std::printf(" %s/%s", c["variant"].get<std::string>().c_str(), c["impl"].get<std::string>().c_str());
    std::printf("\n");
    std::set<std::string> pair_variants;
    for (const auto& c : p["combos"]) pair_variants.insert(c["variant"].get<std::string>());
    for (const auto& l : listings) {
      if (p[l.key].empty()) continue;
      // The levels this listing runs at all (the CUDA suite leaves CPU-only ones out).
      std::set<std::string> impls;
      for (const auto& s : p[l.key])
        for (const auto& i : s["impls"]) impls.insert(i.get<std::string>());
      std::printf("  %s:\n", l.title);
      for (const auto& s : p[l.key])
        std::printf("    %s dtype=%s%s\n", s["label"].get<std::string>().c_str(), s["dtype"].get<std::string>().c_str(),
                    runs_marker(s, pair_variants, impls).c_str());
    }
  }
  return 0;
}

int analyze(const AnalyzeArgs& args) {
  std::vector<std::filesystem::path> inputs = {args.bench_json, formats::kernel_traces_path(args.bench_json)};
  if (args.claims && !args.claims_file.empty()) inputs.push_back(args.claims_file);
  check_output_file(args.out, inputs);
  require_complete_set(args.bench_json.parent_path());
  AnalysisOptions options;
  options.bench_json_name = args.bench_json.filename().string();
  model::Results results = build_results(load_bench_json(args.bench_json), options);
  if (args.claims) {
    const auto claims_file = args.claims_file.empty() ? builtin_claims_path() : args.claims_file;
    results.claims = check_claims(load_claims(claims_file, results.catalogue), results);
    refresh_warnings(results);  // the untrustworthy claims among them
  }
  try {
    write_results(results, args.out);
  } catch (const model::InputError& e) {  // a value of the bench.json the results cannot hold
    throw model::InputError(fmt::format("{}: {}", args.bench_json.string(), e.what()));
  }
  std::printf("%s", format_runs_table(results).c_str());
  if (args.claims) std::printf("\nclaims: %s\n", verdict_summary(results.claims).c_str());
  std::printf("wrote %s\n", args.out.c_str());
  return 0;
}

namespace {

// Columns of the terminal on stdout, else $COLUMNS, else 100.
int terminal_width() {
  winsize ws{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS"); c && std::atoi(c) >= 40) return std::atoi(c);
  return 100;
}

// https://no-color.org: colour only on a terminal, and never when NO_COLOR is set and not empty.
bool use_colour() {
  const char* no_colour = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) && !(no_colour && *no_colour);
}

}  // namespace

int check(const CheckArgs& args) {
  const std::filesystem::path claims_file = args.files.size() == 2 ? args.files[0] : builtin_claims_path().string();
  const std::filesystem::path results_file = args.files.back();
  if (is_trace_json(results_file)) return check_trace(args);  // lmroof trace's trace.json (docs/trace.md)
  // The results first: their catalogue is what the claims are checked against.
  require_complete_set(results_file.parent_path());
  const model::Results results = load_results(results_file, registry_catalogue());
  require_runs(results, results_file.string(), "check");
  const std::vector<Claim> claims = load_claims(claims_file, results.catalogue);
  const std::vector<model::ClaimVerdict> verdicts = check_claims(claims, results);
  const int code = claims_exit_code(verdicts, args.strict);
  // Results of `lmroof run --model`: say which model's shapes the claims judged, as the
  // run summary and the report do.
  const model::ModelConfig* from_model = results.machine.suite.model ? &*results.machine.suite.model : nullptr;
  if (args.format == "json") {
    std::printf("%s\n",
                claims_check_json(verdicts, results_file.string(), claims_file.string(), args.strict, from_model,
                                  &results)
                    .dump(2)
                    .c_str());
  } else if (args.format == "markdown") {
    std::printf("%s", format_claims_markdown(verdicts, from_model).c_str());
    std::printf("%s", format_floors_and_controls(results, /*markdown=*/true).c_str());
  } else {
    std::printf("claims: %s\nresults: %s\n%s\n%s", claims_file.c_str(), results_file.c_str(),
                format_model_line(results).c_str(), format_claims_text(verdicts, terminal_width(), use_colour()).c_str());
    std::printf("%s", format_floors_and_controls(results).c_str());
    // What the measurement is worth, as the report's first screen lists it (issue 45).
    for (const auto& w : measurement_warnings(results, results.decided(), verdicts))
      std::printf("warning: %s\n", w.text.c_str());
    if (code) std::printf("exit 1: %s\n", args.strict ? "a claim fails or is inconclusive (--strict)" : "a claim fails");
  }
  return code;
}

}  // namespace lmroof::cli
