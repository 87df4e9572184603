// Issue 45: contention measured and named. What the machine gave each repetition
// (bench/contention.h) travels from bench.json's counters into results.json
// (analysis/results/contention.h), validated on reading; a claim resting on a contended
// or disturbed run is inconclusive with the cause machine and says who took the cores
// (analysis/claims/machine_verdicts.h); the warnings the first screen lists are decided in
// analysis (analysis/results/warnings.h) and the report renders them before the claims.
#include <gtest/gtest.h>

#include <omp.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/claims/claims.h"
#include "analysis/claims/machine_verdicts.h"
#include "analysis/model/json_input.h"
#include "analysis/results/contention.h"
#include "analysis/results/results.h"
#include "analysis/results/warnings.h"
#include "bench/catalogue.h"
#include "bench/contention.h"
#include "reports/html_report.h"
#include "reports/text/claims_text.h"
#include "test_support.h"

namespace lmroof {
namespace {

using nlohmann::json;

model::Results fixture() { return test::small_results(); }

BenchEntry repetition(double wait, double steal, double retimes = 0) {
  BenchEntry e;
  e.run_type = "iteration";
  e.counters = {{std::string(model::counter::kMachineWaitShare), wait},
                {std::string(model::counter::kMachineStealShare), steal},
                {std::string(model::counter::kMachineOnCpuShare), 1 - wait},
                {std::string(model::counter::kMachineRetimes), retimes}};
  return e;
}

model::MachineContention busy_machine() {
  model::MachineContention m;
  m.window_s = 30, m.cpus = 2, m.threads = 2, m.wait_policy = "unset", m.load_before = "2.00 1.00 0.50";
  m.load_after = "2.50 1.20 0.60";
  m.processes = {{"chromium", 14.4, 0.48}, {"cc1plus", 3, 0.10}, {"sshd", 0.3, 0.01}};
  m.repetitions = 20, m.contended = 12, m.retimes = 9, m.worst_wait_share = 0.52;
  return m;
}

// The fixture's first comparison, timed in 8 paired rounds (1.5x, 1.4-1.6x).
model::Results with_paired_rounds(model::Results r) {
  EXPECT_FALSE(r.comparisons.empty());
  if (!r.comparisons.empty()) r.comparisons.front().paired = model::PairedRounds{8, 1.5, 1.4, 1.6};
  return r;
}

model::RunContention contended(int64_t contended_reps, int64_t reps) {
  return {reps, contended_reps, 2, 0.45, 0.52, 0.0, 0.48};
}

TEST(Contention, ARepetitionIsContendedWhenAWorkerWaitedBeyondTheBoundOrTimeWasStolen) {
  EXPECT_FALSE(rules::is_contended(0.20, 0.0));  // at the bound: not contended
  EXPECT_TRUE(rules::is_contended(0.21, 0.0));
  EXPECT_TRUE(rules::is_contended(0.0, 0.25));
  // The bound follows from the floor bound: a worker without its core for w makes a
  // barrier-synchronised repetition up to 1/(1-w) slower.
  EXPECT_NEAR(1 / (1 - rules::kContendedWaitShare) - 1, rules::kMeasurableFloorBound, 1e-12);
  EXPECT_TRUE(rules::mostly_contended(2, 3));
  EXPECT_FALSE(rules::mostly_contended(1, 3));
  model::Run r;
  r.time_s.min = 1.0, r.time_s.max = 2.1;
  EXPECT_TRUE(model::is_disturbed(r));
  r.time_s.max = 2.0;
  EXPECT_FALSE(model::is_disturbed(r));
}

TEST(Contention, SharesAreTheDifferenceOfTwoSamplesAgainstTheWallTime) {
  bench::ContentionSample before, after;
  before.valid = after.valid = true;
  after.at = before.at + std::chrono::milliseconds(100);
  // Two workers: one on its core all along, one that waited 40 ms of the 100 for a core.
  before.workers = {{0, 0}, {1e6, 5e6}};
  after.workers = {{100e6, 0.5e6}, {61e6, 45e6}};
  before.total_ticks = 1000, after.total_ticks = 1020;
  before.steal_ticks = 10, after.steal_ticks = 11;
  before.runnable = 2, after.runnable = 3;
  const bench::RepetitionShare s = bench::share_between(before, after);
  ASSERT_TRUE(s.measured);
  EXPECT_NEAR(s.worst_wait_share, 0.40, 1e-9);
  EXPECT_NEAR(s.least_oncpu_share, 0.60, 1e-9);
  EXPECT_NEAR(s.steal_share, 0.05, 1e-9);
  EXPECT_EQ(s.runnable, 3);
  EXPECT_TRUE(s.contended());
  // A sample that could not be read gives no share, and nothing is called contended.
  before.valid = false;
  EXPECT_FALSE(bench::share_between(before, after).measured);
  EXPECT_FALSE(bench::share_between(before, after).contended());
}

TEST(Contention, TheProcessReadsWhatTheMachineGaveIt) {
  if (!std::ifstream("/proc/stat")) GTEST_SKIP() << "no /proc/stat here";
  const bench::ContentionSample a = bench::sample_contention();
  ASSERT_TRUE(a.valid);
  EXPECT_GE(a.workers.size(), 1u);
  EXPECT_GT(a.total_ticks, 0);
  // A re-timed repetition keeps the attempt the machine gave the most, never the fastest.
  int calls = 0;
  const bench::TimedRepetition t = bench::time_uncontended([&](int attempt) {
    ++calls;
    return 0.001 * (attempt + 1);
  });
  EXPECT_EQ(calls, t.retimes + 1);
  EXPECT_LE(t.retimes, rules::kContendedRetimes);
  EXPECT_TRUE(t.share.measured);
  bench::OtherProcesses others;
  others.start();
  const json summary = others.summary();
  ASSERT_TRUE(summary.is_object());
  EXPECT_GE(summary["cpus"].get<int>(), 1);
  for (const auto& p : summary["processes"]) EXPECT_NE(p["name"], "") << p;
}

TEST(Contention, CountersBecomeARunsContentionByThisBuildsRule) {
  const BenchEntry a = repetition(0.50, 0), b = repetition(0.05, 0, 2), c = repetition(0.02, 0.30);
  const auto k = contention_of({&a, &b, &c});
  ASSERT_TRUE(k);
  EXPECT_EQ(k->repetitions, 3);
  EXPECT_EQ(k->contended, 2);  // a by its wait, c by steal
  EXPECT_EQ(k->retimes, 2);
  EXPECT_NEAR(k->wait_share, 0.05, 1e-12);
  EXPECT_NEAR(k->worst_wait_share, 0.50, 1e-12);
  EXPECT_NEAR(k->steal_share, 0.30, 1e-12);
  EXPECT_TRUE(k->is_contended());
  BenchEntry none;
  EXPECT_FALSE(contention_of({&none}));  // a file from before the counters
}

TEST(Contention, TheMachinesSummaryIsReadFromTheContextAndRefusedWhenMalformed) {
  BenchDocument bench;
  bench.origin = "bench.json";
  bench.context[std::string(model::context::kContention)] =
      json{{"window_s", 30}, {"cpus", 2}, {"threads", 2}, {"wait_policy", "unset"}, {"load_before", "1 1 1"},
           {"load_after", "2 2 2"}, {"steal_share", 0}, {"processes", {{{"name", "chromium"}, {"cpu_s", 14.4}, {"core_share", 0.48}}}}}
          .dump();
  bench.entries.push_back(repetition(0.5, 0));
  const auto m = machine_contention(bench);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->processes.at(0).name, "chromium");
  EXPECT_EQ(m->contended, 1);
  bench.context[std::string(model::context::kContention)] = "not json";
  try {
    machine_contention(bench);
    FAIL() << "a malformed context entry was read";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bench.json: /context/lmroof_contention"), std::string::npos) << e.what();
  }
  bench.context[std::string(model::context::kContention)] =
      json{{"window_s", 30}, {"cpus", 2}, {"threads", 2}, {"wait_policy", "unset"}, {"load_before", ""}, {"load_after", ""},
           {"steal_share", 3}, {"processes", json::array()}}
          .dump();
  EXPECT_THROW(machine_contention(bench), model::InputError);  // a share of 3
}

TEST(Contention, ResultsJsonCarriesItAndRefusesBadValuesNamingTheField) {
  model::Results r = fixture();
  r.contention = busy_machine();
  r.runs[0].contention = contended(3, 3);
  const json doc = model::to_json(r);
  const model::Results back = model::results_from_json(doc, "results.json");
  ASSERT_TRUE(back.contention);
  EXPECT_EQ(back.contention->processes[0].name, "chromium");
  EXPECT_DOUBLE_EQ(back.contention->processes[0].core_share, 0.48);
  ASSERT_TRUE(back.runs[0].contention);
  EXPECT_EQ(back.runs[0].contention->contended, 3);
  auto refused = [&](json bad, const std::string& pointer) {
    try {
      model::results_from_json(bad, "results.json");
      ADD_FAILURE() << "accepted a bad " << pointer;
    } catch (const model::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("results.json: " + pointer), std::string::npos) << e.what();
    }
  };
  json bad = doc;
  bad["runs"][0]["contention"]["contended"] = 4;
  refused(bad, "/runs/0/contention/contended");
  bad = doc;
  bad["runs"][0]["contention"]["worst_wait_share"] = 1.5;
  refused(bad, "/runs/0/contention/worst_wait_share");
  bad = doc;
  bad["contention"]["processes"][1]["cpu_s"] = 100;  // not busiest first
  refused(bad, "/contention/processes/1/cpu_s");
  bad = doc;
  bad["contention"]["processes"][0]["name"] = "two\nlines";
  refused(bad, "/contention/processes/0/name");
  bad = doc;
  bad["contention"].erase("window_s");
  refused(bad, "/contention");
}

TEST(Contention, AClaimOnAContendedRunIsInconclusiveWithTheCauseMachineAndSaysWhoWasBusy) {
  model::Results r = fixture();
  r.contention = busy_machine();
  r.runs[0].contention = contended(3, 3);
  r.runs[1].contention = contended(0, 3);
  r = test::decided(std::move(r));
  ASSERT_EQ(r.decided().contended_runs, std::vector<std::string>{r.runs[0].id});
  EXPECT_EQ(r.decided().busy.rfind("busy: 48% of a core taken by `chromium`, 10% of a core taken by `cc1plus`", 0), 0u)
      << r.decided().busy;  // sshd's 1% is below the share worth naming
  model::ClaimVerdict on_contended;
  on_contended.id = "a";
  on_contended.verdict = model::Verdict::fails;
  on_contended.cause = model::Cause::implementation;
  on_contended.evidence = {{r.runs[0].id, "time_s.median", 1.0}};
  model::ClaimVerdict on_quiet = on_contended;
  on_quiet.id = "b";
  on_quiet.verdict = model::Verdict::holds;
  on_quiet.cause.reset();
  on_quiet.evidence = {{r.runs[1].id, "time_s.median", 1.0}};
  model::ClaimVerdict from_model = on_contended;
  from_model.id = "c";
  from_model.evidence_kind = model::EvidenceKind::model;
  std::vector<model::ClaimVerdict> v = {on_contended, on_quiet, from_model};
  mark_machine_verdicts(v, r);
  EXPECT_EQ(v[0].verdict, model::Verdict::inconclusive);
  EXPECT_EQ(v[0].cause, model::Cause::machine);
  EXPECT_EQ(v[0].reason->rfind("busy: 48% of a core taken by `chromium`", 0), 0u) << *v[0].reason;
  EXPECT_NE(v[0].cause_detail->find(r.runs[0].id), std::string::npos);
  EXPECT_EQ(v[1].verdict, model::Verdict::holds);  // its run had its cores
  EXPECT_EQ(v[2].verdict, model::Verdict::fails);  // the cost model's verdict rests on no time
}

TEST(Contention, AClaimOnARidgeMeasuredOnAMostlyContendedMachineIsInconclusiveWithTheCauseMachine) {
  model::Results r = fixture();
  r.contention = busy_machine();  // 12 of 20 repetitions contended
  r = test::decided(std::move(r));
  model::ClaimVerdict on_ridge;
  on_ridge.id = "memory-bound";
  on_ridge.verdict = model::Verdict::holds;
  on_ridge.evidence_kind = model::EvidenceKind::model;
  on_ridge.evidence = {{r.runs[0].id, "intensity.model", 1.0}, {r.runs[0].id, "roofline.ridge", 10.0}};
  model::ClaimVerdict analytic = on_ridge;
  analytic.id = "same-flops";
  analytic.evidence = {{std::nullopt, "ratio", 1.0}};
  std::vector<model::ClaimVerdict> v = {on_ridge, analytic};
  mark_machine_verdicts(v, r);
  EXPECT_EQ(v[0].verdict, model::Verdict::inconclusive);
  EXPECT_EQ(v[0].cause, model::Cause::machine);
  EXPECT_NE(v[0].reason->find("ridge point comes from ceilings measured while 12 of 20"), std::string::npos) << *v[0].reason;
  EXPECT_EQ(v[1].verdict, model::Verdict::holds);  // FLOPs and bytes alone: no ceiling
  // Fewer than half contended: the ridge stands.
  model::Results few = fixture();
  few.contention = busy_machine();
  few.contention->contended = 9;
  few = test::decided(std::move(few));
  std::vector<model::ClaimVerdict> w = {on_ridge};
  mark_machine_verdicts(w, few);
  EXPECT_EQ(w[0].verdict, model::Verdict::holds);
}

TEST(Contention, NoClaimRestsOnADisturbedMedianAlone) {
  model::Results r = fixture();
  auto& t = r.runs[0].time_s;
  t.samples = {1.44e-3, 19.7e-3, 31.9e-3};  // issue 45's MHA decode
  t.min = 1.44e-3, t.max = 31.9e-3, t.median = 19.7e-3, t.mean = (1.44e-3 + 19.7e-3 + 31.9e-3) / 3;
  r = test::decided(std::move(r));
  ASSERT_EQ(r.decided().disturbed_runs, std::vector<std::string>{r.runs[0].id});
  model::ClaimVerdict c;
  c.id = "d";
  c.verdict = model::Verdict::holds;
  c.evidence = {{r.runs[0].id, "time_s.median", 1.0}};
  std::vector<model::ClaimVerdict> v = {c};
  mark_machine_verdicts(v, r);
  EXPECT_EQ(v[0].verdict, model::Verdict::inconclusive);
  EXPECT_EQ(v[0].cause, model::Cause::noise);  // nothing was contended: a disturbance of unknown origin
  EXPECT_NE(v[0].reason->find("22.2x its fastest"), std::string::npos) << *v[0].reason;
  const auto& w = r.decided().warnings;
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w[0].kind, model::WarningKind::disturbed_runs);
}

TEST(Contention, TheWarningsAreDecidedInOrderAndTheReportShowsThemBeforeTheClaims) {
  model::Results r = fixture();
  r.contention = busy_machine();
  r.runs[0].contention = contended(3, 3);
  r.claims[0].untrustworthy = "an identity control beyond its floor";
  ASSERT_EQ(r.claims[0].verdict, model::Verdict::holds);
  r = test::decided(std::move(r));
  const auto& w = r.decided().warnings;
  ASSERT_GE(w.size(), 2u);
  EXPECT_EQ(w.front().kind, model::WarningKind::contention);
  EXPECT_NE(w.front().text.find("48% of a core taken by `chromium`"), std::string::npos) << w.front().text;
  EXPECT_NE(w.front().text.find("12 of 20 timed repetitions stayed contended"), std::string::npos) << w.front().text;
  EXPECT_EQ(w.back().kind, model::WarningKind::untrustworthy_claims);
  EXPECT_NE(w.back().text.find(r.claims[0].id), std::string::npos);
  const std::string page = render_report_html(r);
  const auto box = page.find("<section id=\"warnings\"");
  ASSERT_NE(box, std::string::npos);
  EXPECT_LT(box, page.find("id=\"verdict-summary\""));
  EXPECT_NE(page.find("48% of a core taken by `chromium`", box), std::string::npos);
  // The untrustworthy "holds" is neither green nor counted among the holds.
  EXPECT_NE(page.find("holds, untrustworthy"), std::string::npos);
  const auto summary = page.find("id=\"verdict-summary\"");
  const auto summary_end = page.find("</section>", summary);
  EXPECT_EQ(page.substr(summary, summary_end - summary).find("verdict-holds"), std::string::npos);
  // `check --format json` carries the same list.
  const json check = claims_check_json(r.claims, "results.json", "claims.yaml", false, nullptr, &r);
  ASSERT_EQ(check["warnings"].size(), w.size());
  EXPECT_EQ(check["warnings"][0]["kind"], "contention");
  EXPECT_EQ(check["warnings"][0]["text"], w.front().text);
}

TEST(Contention, AQuietMeasurementHasNoWarningsAndSaysSo) {
  model::Results r = test::decided(fixture());
  EXPECT_TRUE(r.decided().busy.empty());
  ASSERT_TRUE(r.decided().warnings.empty()) << r.decided().warnings.front().text;
  const std::string page = render_report_html(r);
  EXPECT_NE(page.find("No warnings"), std::string::npos);
  EXPECT_LT(page.find("<section id=\"warnings\""), page.find("id=\"verdict-summary\""));
}

TEST(Contention, AContendedRepetitionIsTimedAgainAndTheLeastContendedAttemptKept) {
  if (!std::ifstream("/proc/self/schedstat")) GTEST_SKIP() << "no schedstat here";
  using clock = std::chrono::steady_clock;
  // Every OpenMP worker busy for `ms` (the kernels' shape: a team that spins to a barrier).
  auto team_busy = [](int ms) {
    const auto until = clock::now() + std::chrono::milliseconds(ms);
#pragma omp parallel
    while (clock::now() < until) {
    }
  };
  // Budget first: an uncontended repetition the process spent time on (sleeping is no
  // run delay), so that re-timing is allowed (rules::kContentionRetimeShare).
  bench::time_uncontended([](int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    return 0.15;
  });
  int calls = 0;
  const bench::TimedRepetition t = bench::time_uncontended([&](int attempt) {
    ++calls;
    if (attempt == 0) {
      // Twice as many spinning threads as workers: each worker waits for a core about
      // two thirds of the time, on any machine.
      std::vector<std::thread> others;
      const auto until = clock::now() + std::chrono::milliseconds(30);
      for (int i = 0; i < 2 * omp_get_max_threads(); ++i)
        others.emplace_back([until] {
          while (clock::now() < until) {
          }
        });
      team_busy(30);
      for (auto& o : others) o.join();
      return 0.001;  // the fastest time: never the reason to keep an attempt
    }
    team_busy(30);
    return 0.030 + attempt;
  });
  ASSERT_TRUE(t.share.measured);
  EXPECT_GE(t.retimes, 1) << "attempt 0 was not taken as contended";
  EXPECT_EQ(calls, t.retimes + 1);
  EXPECT_LE(t.retimes, rules::kContendedRetimes);
  // The seconds kept are the kept attempt's own.
  EXPECT_DOUBLE_EQ(t.seconds, t.kept_attempt == 0 ? 0.001 : 0.030 + t.kept_attempt);
}

TEST(Contention, ADisturbedRunBackedByPairedRoundsKeepsItsVerdict) {
  model::Results r = with_paired_rounds(fixture());
  const model::Comparison* paired = &r.comparisons.front();
  const std::string baseline = paired->baseline.run, candidate = paired->candidate.run;
  model::Run* run = nullptr;
  for (auto& x : r.runs)
    if (x.id == baseline) run = &x;
  ASSERT_NE(run, nullptr);
  run->time_s.samples = {1e-3, 3e-3, 5e-3};
  run->time_s.min = 1e-3, run->time_s.max = 5e-3, run->time_s.median = 3e-3;
  r = test::decided(std::move(r));
  ASSERT_EQ(r.decided().disturbed_runs, std::vector<std::string>{baseline});
  model::ClaimVerdict c;
  c.id = "ratio";
  c.verdict = model::Verdict::holds;
  c.evidence = {{baseline, "time_s.median", 3e-3}, {candidate, "time_s.median", 1e-3}};
  model::ClaimVerdict alone = c;
  alone.evidence = {{baseline, "time_s.median", 3e-3}};
  std::vector<model::ClaimVerdict> v = {c, alone};
  mark_machine_verdicts(v, r);
  EXPECT_EQ(v[0].verdict, model::Verdict::holds);  // the paired rounds carry it
  EXPECT_EQ(v[1].verdict, model::Verdict::inconclusive);  // the disturbed median alone
}

TEST(Contention, ContendedPairedRoundsMakeTheirClaimInconclusive) {
  model::Results r = with_paired_rounds(fixture());
  r.contention = busy_machine();
  model::Comparison* paired = &r.comparisons.front();
  paired->paired->contention = contended(paired->paired->rounds, paired->paired->rounds);
  r = test::decided(std::move(r));
  ASSERT_EQ(r.decided().contended_comparisons.size(), 1u);
  model::ClaimVerdict c;
  c.id = "ratio";
  c.verdict = model::Verdict::fails;
  c.cause = model::Cause::architecture;
  c.evidence = {{paired->baseline.run, "time_s.median", 1.0}, {paired->candidate.run, "time_s.median", 1.0}};
  std::vector<model::ClaimVerdict> v = {c};
  mark_machine_verdicts(v, r);
  EXPECT_EQ(v[0].verdict, model::Verdict::inconclusive);
  EXPECT_EQ(v[0].cause, model::Cause::machine);
  EXPECT_NE(v[0].reason->find("paired rounds"), std::string::npos) << *v[0].reason;
  // results.json refuses rounds' contention over more repetitions than rounds.
  json doc = model::to_json(r);
  for (auto& cj : doc["comparisons"])
    if (cj["paired"].is_object()) cj["paired"]["contention"]["repetitions"] = cj["paired"]["rounds"].get<int64_t>() + 1;
  EXPECT_THROW(model::results_from_json(doc, "results.json"), model::InputError);
}

TEST(Contention, ABusyMachineWithNoNamedProcessSaysSo) {
  model::Results r = fixture();
  r.contention = busy_machine();
  for (auto& p : r.contention->processes) p.core_share = rules::kNamedProcessShare / 2;
  r = test::decided(std::move(r));
  EXPECT_NE(r.decided().busy.find("no other process took 5% of a core"), std::string::npos) << r.decided().busy;
}

TEST(Contention, UntrustworthyHoldsAreNotCountedAsHoldsInTheSummaryOrShownGreen) {
  model::ClaimVerdict good;
  good.id = "good";
  good.verdict = model::Verdict::holds;
  model::ClaimVerdict bad = good;
  bad.id = "bad";
  bad.untrustworthy = "an identity control beyond its floor";
  EXPECT_EQ(verdict_summary({good, bad}), "measured: 1 holds, 1 untrustworthy");
  const std::string text = format_claims_text({bad}, 100, /*colour=*/true);
  EXPECT_NE(text.find("HOLDS?"), std::string::npos) << text;
  EXPECT_EQ(text.find("\033[32m"), std::string::npos) << "an untrustworthy hold shown green";
  const json check = claims_check_json({good, bad}, "results.json", "claims.yaml", false, nullptr, nullptr);
  EXPECT_EQ(check["summary"]["measured"]["holds"], 1);
  EXPECT_EQ(check["summary"]["measured"]["untrustworthy"], 1);
}

}  // namespace
}  // namespace lmroof
