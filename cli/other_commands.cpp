// `lmroof report | ceilings | list | analyze | check`.
#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

#include "analysis/claims/claims.h"
#include "analysis/results.h"
#include "bench/runner.h"
#include "cli/commands.h"
#include "cli/summary.h"
#include "profiler/device_query.h"
#include "registry.h"
#include "reports/html_report.h"

namespace lmroof::cli {

int report(const std::filesystem::path& results_path, const std::filesystem::path& html) {
  const model::Results results = load_results(results_path);
  write_report(results, html);
  std::printf("wrote %s\n", html.c_str());
  return 0;
}

int ceilings(const std::string& backend_name, bool quick, const std::filesystem::path& json_out) {
  bench::RunnerOptions options;
  options.include_pairs = false;
  options.suite.quick = quick;
  const DeviceInfo device = query_cuda_device();
  if (backend_name == "cuda" && !device.available) throw std::runtime_error("--backend cuda: " + device.reason);
  options.suite.backend = backend_name == "cuda" || (backend_name == "auto" && device.available) ? Backend::cuda : Backend::cpu;
  std::fprintf(stderr, "lmroof: measuring %s ceilings\n", to_string(options.suite.backend));
  const auto tmp_dir = std::filesystem::temp_directory_path() / fmt::format("lmroof-ceilings-{}", ::getpid());
  options.json_out = json_out.empty() ? tmp_dir / "bench.json" : json_out;
  bench::run_benchmarks(options);
  const model::Results results = build_results(load_bench_json(options.json_out), {});
  if (json_out.empty()) std::filesystem::remove_all(tmp_dir);
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

int analyze(const std::filesystem::path& bench_json, const std::filesystem::path& results_out) {
  AnalysisOptions options;
  options.bench_json_name = bench_json.filename().string();
  const model::Results results = build_results(load_bench_json(bench_json), options);
  write_results(results, results_out);
  std::printf("%s\nwrote %s\n", format_runs_table(results).c_str(), results_out.c_str());
  return 0;
}

int check(const std::vector<std::filesystem::path>& files) {
  const auto claims_file = files.size() == 2 ? files[0] : builtin_claims_path();
  const auto results_file = files.back();
  // The results first: their catalogue is what the claims are checked against.
  const model::Results results = load_results(results_file);
  const std::vector<Claim> claims = load_claims(claims_file, results.catalogue);
  const std::vector<model::ClaimVerdict> verdicts = check_claims(claims, results);
  std::printf("claims: %s\nresults: %s\n\n%s", claims_file.c_str(), results_file.c_str(),
              format_claims_table(verdicts).c_str());
  return claims_exit_code(verdicts);
}

}  // namespace lmroof::cli
