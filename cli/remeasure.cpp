#include "cli/remeasure.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <stdexcept>

#include "analysis/bench_json.h"
#include "analysis/io/atomic_write.h"
#include "analysis/remeasure_plan.h"
#include "analysis/results.h"

namespace lmroof::cli {

namespace {

// Allocation and first touch of one side's workload, beside its warm-up and
// calibration iterations, which the estimate counts from the round times: 0.2 s
// covers the suite's largest CPU workloads (a few hundred MB) at a few GB/s.
constexpr double kPrepareSeconds = 0.2;

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", path.string()));
  return nlohmann::json::parse(in);
}

// bench.json's benchmarks, then the extra rounds': one document, as analysis reads it.
void append_benchmarks(const std::filesystem::path& bench_json, const std::filesystem::path& extra_json) {
  nlohmann::json bench = read_json(bench_json);
  const nlohmann::json extra = read_json(extra_json);
  for (const auto& b : extra.at("benchmarks")) bench["benchmarks"].push_back(b);
  write_file_atomically(bench_json, bench.dump(2));
}

const RunSpec& spec_named(const std::vector<RunSpec>& runs, const std::string& id) {
  for (const RunSpec& r : runs)
    if (r.bench_name() == id) return r;
  throw std::logic_error("re-measurement: run " + id + " is not in this run's plan");
}

}  // namespace

RemeasureOutcome remeasure(const bench::RunnerOptions& options, const std::vector<Claim>& claims, double budget_s,
                           const std::filesystem::path& bench_json, model::Results& results) {
  RemeasureOutcome outcome;
  if (budget_s <= 0 || options.suite.backend != Backend::cpu) return outcome;
  const bench::PairedScheme scheme = options.suite.quick ? bench::kQuickPairedRounds : bench::kDefaultPairedRounds;
  const auto chosen = fit_remeasure_budget(remeasure_candidates(results), paired_round_seconds(load_bench_json(bench_json)),
                                           scheme.rounds, scheme.min_side_time_s, kPrepareSeconds, budget_s);
  if (chosen.empty()) return outcome;
  std::vector<bench::PairedPlan> plans;
  for (const RemeasureItem& item : chosen)
    plans.push_back({spec_named(options.runs, item.baseline), spec_named(options.runs, item.candidate),
                     item.baseline == item.candidate});
  std::fprintf(stderr, "lmroof: re-measuring %zu comparison(s) behind claims that fail or are inconclusive for cause "
                       "machine or noise (budget %g s)\n", plans.size(), budget_s);
  const std::filesystem::path extra_json = bench_json.parent_path() / "bench.remeasure.json";
  const auto start = std::chrono::steady_clock::now();
  const bench::RunnerSummary summary = bench::run_extra_rounds(options, plans, extra_json);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.failed = summary.failed;
  outcome.errors = summary.errors;
  append_benchmarks(bench_json, extra_json);
  std::filesystem::remove(extra_json);
  results = build_results(load_bench_json(bench_json), {});
  results.claims = check_claims(claims, results);
  outcome.comparisons = static_cast<int>(plans.size());
  outcome.rounds = outcome.comparisons * scheme.rounds;
  return outcome;
}

std::string format_remeasure(const RemeasureOutcome& outcome, double budget_s) {
  if (outcome.comparisons == 0) return "";
  return fmt::format("re-measured {} comparison{} (fails or inconclusive for cause machine or noise): {} more paired "
                     "rounds in {:.1f} s (budget {:g} s); the verdicts above use all rounds",
                     outcome.comparisons, outcome.comparisons == 1 ? "" : "s", outcome.rounds, outcome.seconds, budget_s);
}

}  // namespace lmroof::cli
