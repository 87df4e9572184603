#include "cli/remeasure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>
#include <stdexcept>

#include "analysis/results/bench_json.h"
#include "analysis/io/atomic_write.h"
#include "analysis/results/remeasure_plan.h"
#include "analysis/results/results.h"

namespace lmroof::cli {

namespace {

// Allocation and first touch of one side's workload, beside its warm-up and
// calibration iterations, which the estimate counts from the round times.
constexpr double kPrepareSeconds = rules::kRemeasurePrepareSeconds;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", path.string()));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// bench.json's benchmarks, then the extra rounds': one document, as analysis reads it.
// Spliced as text: Google Benchmark writes NaN where a counter is not a number, which
// no JSON parser re-writes as it was (analysis/results/bench_json.cpp reads it as null), and
// its file ends with the benchmarks array.
void append_benchmarks(const std::filesystem::path& bench_json, const std::filesystem::path& extra_json) {
  std::string bench = read_text(bench_json);
  const std::string extra = read_text(extra_json);
  const size_t open = extra.find("\"benchmarks\": [");
  const size_t extra_close = extra.rfind(']');
  const size_t close = bench.rfind(']');
  if (open == std::string::npos || extra_close == std::string::npos || extra_close < open || close == std::string::npos)
    throw std::runtime_error(fmt::format("{} or {}: no benchmarks array to join", bench_json.string(), extra_json.string()));
  std::string items = extra.substr(open + std::string_view("\"benchmarks\": [").size(),
                                   extra_close - open - std::string_view("\"benchmarks\": [").size());
  if (items.find_first_not_of(" \t\r\n") == std::string::npos) return;
  size_t end = bench.find_last_not_of(" \t\r\n", close - 1);  // the last benchmark's '}', or the array's '['
  const bool empty = bench[end] == '[';
  bench.insert(end + 1, (empty ? "" : ",") + items.substr(0, items.find_last_not_of(" \t\r\n") + 1));
  write_file_atomically(bench_json, bench);
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
                                           scheme.rounds, scheme.min_side_time_s, kPrepareSeconds,
                                           std::numeric_limits<double>::infinity());  // every one with an estimate; the loop below fits the budget
  if (chosen.empty()) return outcome;
  std::fprintf(stderr, "lmroof: re-measuring up to %zu comparison(s) behind claims that fail or are inconclusive for "
                       "cause machine, noise or implementation (budget %g s)\n", chosen.size(), budget_s);
  // One comparison at a time, so the budget is a stop and not only a plan: none starts
  // unless its estimate, scaled by how far the ones before ran past theirs (a loaded
  // machine, workloads slower to build than kPrepareSeconds), fits what is left. Only
  // the comparison in progress can run past the budget.
  const std::filesystem::path extra_json = bench_json.parent_path() / "bench.remeasure.json";
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  double estimated_so_far = 0, taken_so_far = 0;
  for (const RemeasureItem& item : chosen) {
    const double overrun = estimated_so_far > 0 ? std::max(1.0, taken_so_far / estimated_so_far) : 1.0;
    if (elapsed() + item.estimated_s * overrun > budget_s) {
      ++outcome.left_out;
      continue;
    }
    const bench::PairedPlan plan{spec_named(options.runs, item.baseline), spec_named(options.runs, item.candidate),
                                 item.baseline == item.candidate};
    const double before = elapsed();
    const bench::RunnerSummary summary = bench::run_extra_rounds(options, {plan}, extra_json);
    estimated_so_far += item.estimated_s;
    taken_so_far += elapsed() - before;
    outcome.failed += summary.failed;
    outcome.errors.insert(outcome.errors.end(), summary.errors.begin(), summary.errors.end());
    append_benchmarks(bench_json, extra_json);
    std::filesystem::remove(extra_json);
    ++outcome.comparisons;
  }
  outcome.seconds = elapsed();
  if (outcome.comparisons == 0) return outcome;
  results = build_results(load_bench_json(bench_json), {});
  results.claims = check_claims(claims, results);
  outcome.rounds = outcome.comparisons * scheme.rounds;
  return outcome;
}

std::string format_remeasure(const RemeasureOutcome& outcome, double budget_s) {
  if (outcome.comparisons == 0 && outcome.left_out == 0) return "";
  std::string line = fmt::format("re-measured {} comparison{} (fails or inconclusive for cause machine, noise or implementation): {} more "
                                 "paired rounds in {:.1f} s (budget {:g} s); the verdicts above use all rounds",
                                 outcome.comparisons, outcome.comparisons == 1 ? "" : "s", outcome.rounds, outcome.seconds,
                                 budget_s);
  if (outcome.left_out > 0)
    line += fmt::format("; {} more did not fit the budget (a larger --remeasure-budget would time them)", outcome.left_out);
  return line;
}

}  // namespace lmroof::cli
