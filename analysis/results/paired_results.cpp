#include "analysis/results/paired_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "analysis/model/schema.h"
#include "analysis/stats/paired_statistics.h"
#include "kernels/run_names/workload.h"

namespace lmroof {

namespace {

struct Round {
  double index = 0, baseline_s = 0, candidate_s = 0;
  bool extra = false;  // taken by the re-measurement (model::counter::kPairedExtra)
};

struct PairedGroup {
  std::string baseline, candidate;  // run ids
  std::vector<Round> rounds;
};

double counter_or_fail(const BenchDocument& bench, const BenchEntry& e, std::string_view key) {
  auto it = e.counters.find(std::string(key));
  if (it == e.counters.end())
    throw model::InputError(fmt::format("{}: {}: a paired benchmark's repetition lacks counter '{}'", bench.origin,
                                        e.pointer, key));
  return it->second;
}

// "paired/<baseline>|<candidate>/iterations:1/repeats:10/manual_time" -> the two run ids
// (the suffixes Google Benchmark appends go with the parse of the candidate's name).
std::pair<std::string, std::string> run_ids_of(const BenchDocument& bench, const BenchEntry& e) {
  const std::string_view rest = std::string_view(e.run_name).substr(model::kPairedPrefix.size());
  const auto bar = rest.find(model::kPairedSeparator);
  try {
    if (bar == std::string_view::npos) throw std::invalid_argument("no '|' between the two runs");
    return {RunSpec::parse_bench_name(rest.substr(0, bar)).bench_name(),
            RunSpec::parse_bench_name(rest.substr(bar + model::kPairedSeparator.size())).bench_name()};
  } catch (const std::exception& ex) {
    throw model::InputError(fmt::format("{}: {}/name: a paired benchmark is named paired/<run>|<run>: {}", bench.origin,
                                        e.pointer, ex.what()));
  }
}

model::PairedRounds estimate(const PairedGroup& g) {
  std::vector<Round> rounds = g.rounds;
  std::sort(rounds.begin(), rounds.end(), [](const Round& a, const Round& b) { return a.index < b.index; });
  std::vector<double> base, cand;
  for (const Round& r : rounds) base.push_back(r.baseline_s), cand.push_back(r.candidate_s);
  const stats::PairedEstimate e = stats::estimate_paired_speedup(base, cand);
  const auto extra = std::count_if(rounds.begin(), rounds.end(), [](const Round& r) { return r.extra; });
  return {e.rounds, e.speedup, e.low, e.high, static_cast<int64_t>(extra)};
}

}  // namespace

bool is_paired_benchmark(std::string_view run_name) { return run_name.starts_with(model::kPairedPrefix); }

void attach_paired_rounds(const BenchDocument& bench, model::Results& results) {
  namespace c = model::counter;
  std::map<std::string, PairedGroup> groups;
  std::vector<std::string> order;
  for (const BenchEntry& e : bench.entries) {
    if (e.run_type == "aggregate" || e.error || !is_paired_benchmark(e.run_name)) continue;
    auto [it, fresh] = groups.try_emplace(e.run_name);
    if (fresh) {
      std::tie(it->second.baseline, it->second.candidate) = run_ids_of(bench, e);
      order.push_back(e.run_name);
    }
    const double baseline_s = counter_or_fail(bench, e, c::kPairedBaselineTime);
    const double candidate_s = counter_or_fail(bench, e, c::kPairedCandidateTime);
    if (!(baseline_s > 0) || !(candidate_s > 0))
      throw model::InputError(
          fmt::format("{}: {}: a paired round's times must be positive (are {} and {})", bench.origin, e.pointer,
                      baseline_s, candidate_s));
    const auto extra = e.counters.find(std::string(c::kPairedExtra));
    it->second.rounds.push_back({counter_or_fail(bench, e, c::kPairedRound), baseline_s, candidate_s,
                                 extra != e.counters.end() && extra->second == 1});
  }
  for (const std::string& name : order) {
    const PairedGroup& g = groups.at(name);
    const model::Run* run = results.run(g.baseline);
    if (!run || !results.run(g.candidate)) continue;  // a side was skipped: no comparison to attach to
    const model::PairedRounds p = estimate(g);
    if (g.baseline == g.candidate) {
      if (!p.has_interval() || results.noise_floor(run->pair)) continue;
      results.noise_floors.push_back({run->pair, run->id, p, stats::floor_half_width(*p.low, *p.high)});
      continue;
    }
    for (auto& cmp : results.comparisons)
      if (cmp.baseline.run == g.baseline && cmp.candidate.run == g.candidate) cmp.paired = p;
  }
}

}  // namespace lmroof
