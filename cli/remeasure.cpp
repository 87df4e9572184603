#include "cli/remeasure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "analysis/formats/file_names.h"
#include "analysis/remeasure/remeasure_plan.h"
#include "cli/measured_rounds.h"

namespace lmroof::cli {

namespace {

// Allocation and first touch of one side's workload, beside its warm-up and
// calibration iterations, which the estimate counts from the round times.
constexpr double kPrepareSeconds = rules::kRemeasurePrepareSeconds;

const RunSpec& spec_named(const std::vector<RunSpec>& runs, const std::string& id) {
  for (const RunSpec& r : runs)
    if (r.bench_name() == id) return r;
  throw std::logic_error("re-measurement: run " + id + " is not in this run's plan");
}

}  // namespace

RemeasureOutcome remeasure(const bench::RunnerOptions& options, const std::vector<Claim>& claims, double budget_s,
                           RemeasureChoice choice, bench::Measurement& measured) {
  RemeasureOutcome outcome;
  if (budget_s <= 0 || options.suite.backend != Backend::cpu) return outcome;
  const bench::PairedScheme scheme = options.suite.quick ? bench::kQuickPairedRounds : bench::kDefaultPairedRounds;
  // A look at the rounds measured so far, in memory: the run's results are built
  // afterwards, once, from all rounds.
  const auto chosen = plan_remeasure(measured_rounds(measured, std::string(formats::kBenchJson)), claims, choice,
                                     {scheme.rounds, scheme.min_side_time_s, kPrepareSeconds});
  outcome.choice = choice;
  if (chosen.empty()) return outcome;
  if (choice == RemeasureChoice::every_comparison)
    std::fprintf(stderr, "lmroof: a second sitting of every paired comparison and A/A control, %zu in all (budget %g s)\n",
                 chosen.size(), budget_s);
  else
    std::fprintf(stderr, "lmroof: re-measuring up to %zu comparison(s) behind claims that fail or are inconclusive for "
                         "cause machine, noise or implementation (budget %g s)\n", chosen.size(), budget_s);
  // One comparison at a time, so the budget is a stop and not only a plan: none starts
  // unless its estimate, scaled by how far the ones before ran past theirs (a loaded
  // machine, workloads slower to build than kPrepareSeconds), fits what is left. Only
  // the comparison in progress can run past the budget.
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
    bench::RunnerSummary extra = bench::run_extra_rounds(options, {plan});
    estimated_so_far += item.estimated_s;
    taken_so_far += elapsed() - before;
    outcome.failed += extra.failed;
    outcome.errors.insert(outcome.errors.end(), extra.errors.begin(), extra.errors.end());
    measured.join(std::move(extra.measurement));  // the rounds join the measurement as data
    ++outcome.comparisons;
  }
  outcome.seconds = elapsed();
  outcome.rounds = outcome.comparisons * scheme.rounds;
  return outcome;
}

std::string format_remeasure(const RemeasureOutcome& outcome, double budget_s) {
  if (outcome.comparisons == 0 && outcome.left_out == 0) return "";
  const bool every = outcome.choice == RemeasureChoice::every_comparison;
  std::string line = fmt::format("{} {} comparison{} ({}): {} more paired rounds in {:.1f} s (budget {:g} s); the verdicts "
                                 "use all rounds{}",
                                 every ? "timed a second sitting of" : "re-measured", outcome.comparisons,
                                 outcome.comparisons == 1 ? "" : "s",
                                 every ? "every comparison and A/A control, at the end of the run"
                                       : "fails or inconclusive for cause machine, noise or implementation",
                                 outcome.rounds, outcome.seconds, budget_s,
                                 every ? ", each interval stretched to cover both sittings' speedups" : "");
  if (outcome.left_out > 0)
    line += fmt::format("; {} more did not fit the budget (a larger --remeasure-budget would time them)", outcome.left_out);
  return line;
}

}  // namespace lmroof::cli
