// `lmroof report | ceilings | list | analyze | check`.
#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "analysis/atomic_write.h"
#include "analysis/claims/claims.h"
#include "analysis/interrupt_cleanup.h"
#include "analysis/output_file.h"
#include "analysis/output_set.h"
#include "analysis/results.h"
#include "bench/runner.h"
#include "cli/commands.h"
#include "cli/summary.h"
#include "profiler/device_query.h"
#include "profiler/kernel_trace_file.h"
#include "registry.h"
#include "reports/html_report.h"

namespace lmroof::cli {

int report(const std::filesystem::path& results_path, const std::filesystem::path& html) {
  check_output_file(html, {results_path});
  settle_output_folder(results_path.parent_path());
  const model::Results results = load_results(results_path);
  write_report(results, html);
  std::printf("wrote %s\n", html.c_str());
  return 0;
}

int ceilings(const std::string& backend_name, bool quick, const std::filesystem::path& json_out) {
  if (!json_out.empty()) check_output_file(json_out);
  bench::RunnerOptions options;
  options.include_pairs = false;
  options.suite.quick = quick;
  const DeviceInfo device = query_cuda_device();
  if (backend_name == "cuda" && !device.available) throw std::runtime_error("--backend cuda: " + device.reason);
  options.suite.backend = backend_name == "cuda" || (backend_name == "auto" && device.available) ? Backend::cuda : Backend::cpu;
  std::fprintf(stderr, "lmroof: measuring %s ceilings\n", to_string(options.suite.backend));
  // Google Benchmark writes as it goes: into a private file, renamed into place when complete.
  options.json_out = unique_temp_path(json_out.empty() ? std::filesystem::temp_directory_path() / "lmroof-ceilings.json" : json_out,
                                      "partial");
  const RemoveOnInterrupt remove_if_interrupted(options.json_out);
  struct RemoveUnlessKept {
    std::filesystem::path path;
    ~RemoveUnlessKept() { std::error_code ec; std::filesystem::remove(path, ec); }
  } remove_partial{options.json_out};
  bench::run_benchmarks(options);
  const model::Results results = build_results(load_bench_json(options.json_out), {});
  if (!json_out.empty()) rename_into_place(options.json_out, json_out);
  std::printf("%s", format_ceilings_table(results.ceilings).c_str());
  return 0;
}

int list(bool json) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& pair : all_pairs()) {
    nlohmann::json p = {{"pair", pair.name}, {"title", pair.title}, {"summary", pair.summary}, {"combos", nlohmann::json::array()}};
    for (const auto& c : pair.combos) p["combos"].push_back({{"variant", c.variant}, {"impl", c.impl}});
    const std::pair<const char*, const std::vector<Shape>*> shape_lists[] = {
        {"default_shapes", &pair.default_shapes}, {"quick_shapes", &pair.quick_shapes}, {"cuda_shapes", &pair.cuda_shapes}};
    for (const auto& [key, shapes] : shape_lists) {
      p[key] = nlohmann::json::array();
      for (const auto& s : *shapes) p[key].push_back(s.label());
    }
    p["cuda"] = static_cast<bool>(pair.make_cuda);
    out.push_back(p);
  }
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  for (const auto& pair : all_pairs()) {
    std::printf("%s: %s\n  %s\n  variant/impl:", pair.name.c_str(), pair.title.c_str(), pair.summary.c_str());
    for (const auto& c : pair.combos) std::printf(" %s/%s", c.variant.c_str(), c.impl.c_str());
    std::printf("\n");
    for (const auto& [shapes, title] : {std::pair{&pair.default_shapes, "shapes"}, std::pair{&pair.quick_shapes, "quick shapes (--quick)"},
                                        std::pair{&pair.cuda_shapes, "CUDA shapes (when they differ)"}}) {
      if (shapes->empty()) continue;
      std::printf("  %s:\n", title);
      for (const auto& s : *shapes) std::printf("    %s\n", s.label().c_str());
    }
  }
  return 0;
}

int analyze(const AnalyzeArgs& args) {
  check_output_file(args.out, {args.bench_json, profiler::kernel_traces_path(args.bench_json)});
  settle_output_folder(args.bench_json.parent_path());
  AnalysisOptions options;
  options.bench_json_name = args.bench_json.filename().string();
  model::Results results = build_results(load_bench_json(args.bench_json), options);
  if (args.claims) {
    const auto claims_file = args.claims_file.empty() ? builtin_claims_path() : args.claims_file;
    results.claims = check_claims(load_claims(claims_file, results.catalogue), results);
  }
  write_results(results, args.out);
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
  // The results first: their catalogue is what the claims are checked against.
  settle_output_folder(results_file.parent_path());
  const model::Results results = load_results(results_file);
  const std::vector<Claim> claims = load_claims(claims_file, results.catalogue);
  const std::vector<model::ClaimVerdict> verdicts = check_claims(claims, results);
  const int code = claims_exit_code(verdicts, args.strict);
  if (args.format == "json") {
    std::printf("%s\n", claims_check_json(verdicts, results_file.string(), claims_file.string(), args.strict).dump(2).c_str());
  } else if (args.format == "markdown") {
    std::printf("%s", format_claims_markdown(verdicts).c_str());
  } else {
    std::printf("claims: %s\nresults: %s\n\n%s", claims_file.c_str(), results_file.c_str(),
                format_claims_text(verdicts, terminal_width(), use_colour()).c_str());
    if (code) std::printf("exit 1: %s\n", args.strict ? "a claim fails or is inconclusive (--strict)" : "a claim fails");
  }
  return code;
}

}  // namespace lmroof::cli
