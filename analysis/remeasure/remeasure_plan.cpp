#include "analysis/remeasure/remeasure_plan.h"

#include <algorithm>
#include <limits>
#include <set>

#include "analysis/results/paired_results.h"
#include "analysis/results/results.h"
#include "analysis/rules/rules.h"
#include "analysis/stats/statistics.h"
#include "kernels/run_names/workload.h"

namespace lmroof {

namespace {

std::string key_of(const std::string& baseline, const std::string& candidate) { return baseline + "|" + candidate; }

// 0: machine or noise, 1: implementation, -1: no more rounds (holds, the cost model's
// evidence, or cause architecture).
int remeasure_priority(const model::ClaimVerdict& v) {
  if (v.evidence_kind != model::EvidenceKind::measured || (v.verdict != model::Verdict::fails && v.verdict != model::Verdict::inconclusive) ||
      !v.cause)
    return -1;
  if (*v.cause == model::Cause::machine || *v.cause == model::Cause::noise) return 0;
  if (*v.cause == model::Cause::implementation) return 1;
  return -1;
}

// Each pair's A/A control after its comparisons, once.
void add_controls(const model::Results& results, const std::vector<std::string>& pairs, std::set<std::string>& taken,
                  std::vector<RemeasureItem>& out) {
  for (const std::string& pair : pairs)
    if (const model::NoiseFloor* f = results.noise_floor(pair); f && taken.insert(key_of(f->run, f->run)).second)
      out.push_back({f->run, f->run, 0});
}

}  // namespace

std::vector<RemeasureItem> remeasure_candidates(const model::Results& results) {
  std::vector<RemeasureItem> out;
  std::set<std::string> taken;
  std::vector<std::string> pairs;  // in the order their first comparison was taken
  for (int priority : {0, 1})
    for (const model::ClaimVerdict& v : results.claims) {
      if (remeasure_priority(v) != priority) continue;
      std::set<std::string> runs;
      for (const model::Evidence& e : v.evidence)
        if (e.run) runs.insert(*e.run);
      for (const model::Comparison& c : results.comparisons) {
        if (!c.paired || !runs.contains(c.baseline.run) || !runs.contains(c.candidate.run)) continue;
        if (!taken.insert(key_of(c.baseline.run, c.candidate.run)).second) continue;
        out.push_back({c.baseline.run, c.candidate.run, 0});
        if (std::find(pairs.begin(), pairs.end(), c.pair) == pairs.end()) pairs.push_back(c.pair);
      }
    }
  add_controls(results, pairs, taken, out);
  return out;
}

std::vector<RemeasureItem> every_paired_comparison(const model::Results& results) {
  std::vector<RemeasureItem> out;
  std::set<std::string> taken;
  std::vector<std::string> pairs;
  for (const model::Comparison& c : results.comparisons) {
    if (!c.paired || !taken.insert(key_of(c.baseline.run, c.candidate.run)).second) continue;
    out.push_back({c.baseline.run, c.candidate.run, 0});
    if (std::find(pairs.begin(), pairs.end(), c.pair) == pairs.end()) pairs.push_back(c.pair);
  }
  add_controls(results, pairs, taken, out);
  return out;
}

namespace {

// Each paired round of `bench` in the order it was timed: its two run ids and its time.
template <typename Fn>
void for_each_paired_round(const BenchDocument& bench, Fn fn) {
  for (const BenchEntry& e : bench.entries) {
    if (e.run_type == "aggregate" || e.error || !is_paired_benchmark(e.run_name)) continue;
    const std::string_view rest = std::string_view(e.run_name).substr(model::kPairedPrefix.size());
    const auto bar = rest.find(model::kPairedSeparator);
    if (bar == std::string_view::npos) continue;  // attach_paired_rounds refuses it with the reason
    try {
      const std::string baseline = RunSpec::parse_bench_name(rest.substr(0, bar)).bench_name();
      const std::string candidate = RunSpec::parse_bench_name(rest.substr(bar + model::kPairedSeparator.size())).bench_name();
      fn(baseline, candidate, e.real_time_s);
    } catch (const std::exception&) {
      continue;  // as above
    }
  }
}

}  // namespace

std::vector<RemeasureItem> every_planned_comparison(const BenchDocument& rounds) {
  std::vector<RemeasureItem> comparisons, controls;
  std::set<std::string> taken;
  for_each_paired_round(rounds, [&](const std::string& baseline, const std::string& candidate, double) {
    if (taken.insert(key_of(baseline, candidate)).second)
      (baseline == candidate ? controls : comparisons).push_back({baseline, candidate, 0});
  });
  comparisons.insert(comparisons.end(), controls.begin(), controls.end());
  return comparisons;
}

std::map<std::string, double> paired_round_seconds(const BenchDocument& bench) {
  std::map<std::string, std::vector<double>> times;
  for_each_paired_round(bench, [&](const std::string& baseline, const std::string& candidate, double seconds) {
    times[key_of(baseline, candidate)].push_back(seconds);
  });
  std::map<std::string, double> out;
  for (const auto& [key, t] : times) out[key] = stats::median(t);
  return out;
}

double estimate_remeasure_seconds(double round_s, int rounds, double min_side_time_s, double prepare_s) {
  // The round's time is both sides' per-iteration times; without knowing the split,
  // each side is taken as half of it (the estimate is then right for alike sides and
  // errs long where one side loops over short iterations).
  const double side = round_s / 2;
  const double per_side_round = side >= min_side_time_s ? side : min_side_time_s + side;
  const double per_side_prepare = prepare_s + rules::kRemeasurePrepareIterations * side;  // warm-up + calibration
  return 2 * (rounds * per_side_round + per_side_prepare);
}

std::vector<RemeasureItem> fit_remeasure_budget(const std::vector<RemeasureItem>& candidates,
                                                const std::map<std::string, double>& round_seconds, int rounds,
                                                double min_side_time_s, double prepare_s, double budget_s) {
  std::vector<RemeasureItem> out;
  double left = budget_s;
  for (const RemeasureItem& c : candidates) {
    const auto it = round_seconds.find(key_of(c.baseline, c.candidate));
    if (it == round_seconds.end()) continue;
    const double cost = estimate_remeasure_seconds(it->second, rounds, min_side_time_s, prepare_s);
    if (cost > left) continue;
    left -= cost;
    out.push_back({c.baseline, c.candidate, cost});
  }
  return out;
}

std::vector<RemeasureItem> plan_remeasure(const BenchDocument& rounds, const std::vector<Claim>& claims,
                                          RemeasureChoice choice, const RemeasureScheme& scheme) {
  std::vector<RemeasureItem> chosen;
  if (choice == RemeasureChoice::every_comparison) {
    // A default run: straight from the plan, no verdict looked at (issue 46: the run is a
    // straight line; its results are built once, after the second sitting).
    chosen = every_planned_comparison(rounds);
  } else {
    model::Results look = build_results(rounds, {});
    look.claims = check_claims(claims, look);
    chosen = remeasure_candidates(look);
  }
  return fit_remeasure_budget(chosen, paired_round_seconds(rounds), scheme.rounds, scheme.min_side_time_s, scheme.prepare_s,
                              std::numeric_limits<double>::infinity());  // every one with an estimate: `lmroof run` fits its budget as it goes
}

}  // namespace lmroof
