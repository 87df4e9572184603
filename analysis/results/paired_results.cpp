#include "analysis/results/paired_results.h"

#include "analysis/results/contention.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "analysis/model/schema.h"
#include "analysis/stats/paired_statistics.h"
#include "kernels/run_names/workload.h"

namespace lmroof {

namespace {

struct Round {
  double index = 0, baseline_s = 0, candidate_s = 0;
  bool extra = false;  // taken by the re-measurement (model::counter::kPairedExtra)
  const BenchEntry* entry = nullptr;  // its repetition, for what the machine gave it
};

struct PairedGroup {
  std::string baseline, candidate;  // run ids
  std::string pointer;              // its first entry, for messages
  std::vector<Round> rounds;
};

[[noreturn]] void refuse(const BenchDocument& bench, const std::string& pointer, const std::string& problem) {
  throw model::InputError(fmt::format("{}: {}: {}", bench.origin, pointer, problem));
}

// A round's index and order as bench/paired_rounds.cpp writes them: the index a whole
// number, the order its parity (0: baseline first in even rounds, 1: candidate first in
// odd ones), the re-measurement's mark 1 when present.
void check_round_counters(const BenchDocument& bench, const BenchEntry& e, double index) {
  namespace c = model::counter;
  if (!(index == std::floor(index) && index < double(int64_t{1} << 30)))
    refuse(bench, e.pointer + "/" + std::string(c::kPairedRound), fmt::format("must be a whole round number below 2^30 (is {})", index));
  const auto order = e.counters.find(std::string(c::kPairedOrder));
  if (order == e.counters.end())
    refuse(bench, e.pointer, fmt::format("a paired benchmark's repetition lacks counter '{}'", c::kPairedOrder));
  if (order->second != std::fmod(index, 2.0))
    refuse(bench, e.pointer + "/" + std::string(c::kPairedOrder),
           fmt::format("is {} but round {} runs {} first (order 0 in even rounds, 1 in odd ones)", order->second, index,
                       std::fmod(index, 2.0) == 0 ? "the baseline" : "the candidate"));
  const auto extra = e.counters.find(std::string(c::kPairedExtra));
  if (extra != e.counters.end() && extra->second != 1)
    refuse(bench, e.pointer + "/" + std::string(c::kPairedExtra), fmt::format("must be 1 when present (is {})", extra->second));
}

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
  model::PairedRounds p{e.rounds, e.speedup, e.low, e.high, static_cast<int64_t>(extra), {}, {}};
  std::vector<const BenchEntry*> entries;
  for (const Round& r : rounds) entries.push_back(r.entry);
  p.contention = contention_of(entries);
  if (extra == 0 || extra == e.rounds) return p;
  // Two sittings: the suite's rounds and the re-measurement's, minutes apart. Each
  // sitting's own estimate, and the interval stretched to cover both (PairedRounds::sittings).
  for (const bool second : {false, true}) {
    std::vector<double> b, c;
    for (const Round& r : rounds)
      if (r.extra == second) b.push_back(r.baseline_s), c.push_back(r.candidate_s);
    p.sittings.push_back(stats::estimate_paired_speedup(b, c).speedup);
  }
  if (p.has_interval())
    for (const double s : p.sittings) p.low = std::min(*p.low, s), p.high = std::max(*p.high, s);
  return p;
}

}  // namespace

bool is_paired_benchmark(std::string_view run_name) { return run_name.starts_with(model::kPairedPrefix); }

void attach_paired_rounds(const BenchDocument& bench, model::Results& results) {
  namespace c = model::counter;
  std::map<std::string, PairedGroup> groups;
  std::vector<std::string> order;
  std::set<std::string> errored_controls;  // A/A controls that ran and failed: their pair has one
  for (const BenchEntry& e : bench.entries) {
    if (e.run_type == "aggregate" || !is_paired_benchmark(e.run_name)) continue;
    if (e.error) {
      const auto [baseline, candidate] = run_ids_of(bench, e);
      if (baseline == candidate) errored_controls.insert(baseline);
      continue;
    }
    auto [it, fresh] = groups.try_emplace(e.run_name);
    if (fresh) {
      std::tie(it->second.baseline, it->second.candidate) = run_ids_of(bench, e);
      it->second.pointer = e.pointer;
      order.push_back(e.run_name);
    }
    const double baseline_s = counter_or_fail(bench, e, c::kPairedBaselineTime);
    const double candidate_s = counter_or_fail(bench, e, c::kPairedCandidateTime);
    if (!(baseline_s > 0) || !(candidate_s > 0))
      throw model::InputError(
          fmt::format("{}: {}: a paired round's times must be positive (are {} and {})", bench.origin, e.pointer,
                      baseline_s, candidate_s));
    const double index = counter_or_fail(bench, e, c::kPairedRound);
    check_round_counters(bench, e, index);
    for (const Round& r : it->second.rounds)
      if (r.index == index)
        refuse(bench, e.pointer + "/" + std::string(c::kPairedRound), fmt::format("round {} of {} is given twice", index, e.run_name));
    const auto extra = e.counters.find(std::string(c::kPairedExtra));
    it->second.rounds.push_back({index, baseline_s, candidate_s, extra != e.counters.end() && extra->second == 1, &e});
  }

  // A run a round names is one of this file's runs, or one that could not run (skipped),
  // or one a recorded --benchmark_filter left out; anything else is not a measurement.
  const bool filtered = bench.context.contains(std::string(model::context::kBenchmarkFilter));
  std::set<std::string> skipped;
  for (const auto& s : results.skipped) {
    skipped.insert(s.id);
    try {
      skipped.insert(RunSpec::parse_bench_name(s.id).bench_name());
    } catch (const std::exception&) {
      // a ceiling or paired benchmark: not a run id
    }
  }
  auto missing = [&](const std::string& id) { return !results.run(id) && !skipped.count(id); };

  std::set<std::string> pairs_with_paired_comparisons, pairs_with_controls;
  for (const std::string& name : order) {
    const PairedGroup& g = groups.at(name);
    for (const std::string* id : {&g.baseline, &g.candidate})
      if (missing(*id) && !filtered)
        refuse(bench, g.pointer + "/name", fmt::format("paired rounds name run '{}', which is not a run of this file", *id));
    const model::Run* run = results.run(g.baseline);
    const model::Run* other = results.run(g.candidate);
    if (!run || !other) continue;  // a side was skipped: no comparison to attach to
    if (run->pair != other->pair)
      refuse(bench, g.pointer + "/name",
             fmt::format("paired rounds of two pairs: '{}' is of pair '{}', '{}' of pair '{}'", run->id, run->pair, other->id,
                         other->pair));
    const model::PairedRounds p = estimate(g);
    if (g.baseline == g.candidate) {
      pairs_with_controls.insert(run->pair);
      if (!p.has_interval() || results.noise_floor(run->pair)) continue;
      results.noise_floors.push_back({run->pair, run->id, p, stats::floor_half_width(*p.low, *p.high)});
      continue;
    }
    bool attached = false;
    for (auto& cmp : results.comparisons)
      if (cmp.baseline.run == g.baseline && cmp.candidate.run == g.candidate) cmp.paired = p, attached = true;
    if (!attached)
      refuse(bench, g.pointer + "/name",
             fmt::format("paired rounds of '{}' against '{}', which the catalogue of pair '{}' does not compare", g.candidate,
                         g.baseline, run->pair));
    pairs_with_paired_comparisons.insert(run->pair);
  }
  for (const auto& id : errored_controls)
    if (const model::Run* run = results.run(id)) pairs_with_controls.insert(run->pair);

  // Each pair whose comparisons were timed in rounds has its A/A control (bench/paired_rounds.h):
  // without it the pair's noise floor would silently vanish. Not when a run of the pair
  // could not run or a filter chose the benchmarks: then the control may be what is missing.
  for (const auto& pair : pairs_with_paired_comparisons) {
    if (pairs_with_controls.count(pair) || filtered) continue;
    const bool pair_skipped = std::any_of(results.skipped.begin(), results.skipped.end(), [&](const model::Skipped& s) {
      return s.id.starts_with(pair + "/");
    });
    if (pair_skipped) continue;
    refuse(bench, "/benchmarks",
           fmt::format("pair '{}' has paired rounds but no A/A control ({}<run>{}<same run>): its noise floor is missing",
                       pair, model::kPairedPrefix, model::kPairedSeparator));
  }
}

}  // namespace lmroof
