// The share check: an operator class's share of FLOPs and time (docs/claims.md#share),
// in a run's breakdown (share) or a trace's class table (class_share, check_class_share.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/claims/check_common.h"

namespace lmroof::claims_detail {

ShareJudgement judge_shares(const Check& ch, const ClassShares& shares) {
  ShareJudgement j;
  std::vector<std::string> parts;
  std::vector<bool> ok;
  double slack = 1e300;
  auto judge = [&](const Range& range, std::optional<double> v, const std::string& what) {
    if (!range.min && !range.max) return;
    if (!v) {
      j.missing.push_back(what);
      return;
    }
    ok.push_back(range.contains(*v));
    if (range.min && *v > 0) slack = std::min(slack, std::abs(std::log(*v / *range.min)));
    if (range.max && *v > 0) slack = std::min(slack, std::abs(std::log(*v / *range.max)));
  };
  const auto& fs = shares.flop_share;
  const auto& ts = shares.time_share;
  if (fs) j.figures.emplace_back("flop_share", *fs), parts.push_back("FLOP share " + pct(*fs));
  if (shares.byte_share) j.figures.emplace_back("byte_share", *shares.byte_share), parts.push_back("byte share " + pct(*shares.byte_share));
  if (ts) j.figures.emplace_back("time_share", *ts), parts.push_back("time share " + pct(*ts));
  if (shares.fraction_of_roof)
    j.figures.emplace_back("fraction_of_roof", *shares.fraction_of_roof),
        parts.push_back("at " + pct(*shares.fraction_of_roof) + " of roof");
  std::optional<double> over;
  if (fs && ts && *fs > 0) {
    over = *ts / *fs;
    j.figures.emplace_back("time_over_flop_share", *over);
    parts.push_back(fmt::format("time/FLOP share {}x", num(*over)));
  } else if (fs && ts && *fs == 0 && *ts > 0) {
    over = std::numeric_limits<double>::infinity();
    parts.push_back("time/FLOP share infinite");
  }
  judge(ch.flop_share, fs, "flop_share");
  judge(ch.byte_share, shares.byte_share, "byte_share");
  judge(ch.time_share, ts, "time_share");
  judge(ch.fraction_of_roof, shares.fraction_of_roof, "fraction_of_roof");
  judge(ch.time_over_flop_share, over, "time_over_flop_share");
  j.measured = fmt::format("{}: {}", ch.op_class, join(parts, ", "));
  if (!j.missing.empty()) return j;
  j.verdict = std::all_of(ok.begin(), ok.end(), [](bool b) { return b; }) ? Verdict::holds : Verdict::fails;
  j.slack = slack;
  return j;
}

namespace {

Case share_case(const Context& ctx, const Run& run) {
  const Check& ch = ctx.claim.check;
  Case c;
  c.tokens = tokens_of(ctx, run);
  if (!run.breakdown) {
    c.reason = fmt::format("run {} has no breakdown by operator class", run_id(run));
    return c;
  }
  const model::ClassShare* cls = nullptr;
  std::vector<std::string> present;
  for (const auto& k : run.breakdown->classes) {
    present.emplace_back(to_string(k.op_class));
    if (present.back() == ch.op_class) cls = &k;
  }
  if (!cls) {
    c.reason = fmt::format("run {} has no class '{}' in its breakdown (has: {})", run_id(run), ch.op_class,
                           join(present, ", "));
    return c;
  }
  const ShareJudgement j = judge_shares(ch, {cls->flop_share, std::nullopt, cls->time_share, std::nullopt});
  for (const auto& [metric, value] : j.figures)
    c.evidence.push_back(evidence(&run, "breakdown." + ch.op_class + "." + metric, value));
  c.measured = j.measured;
  c.verdict = j.verdict;
  c.slack = j.slack;
  if (!j.missing.empty())
    c.reason = fmt::format("run {} has no {} for class '{}'", run_id(run), join(j.missing, ", "), ch.op_class);
  return c;
}

}  // namespace

Outcome check_share(const Context& ctx) { return check_each_run(ctx, share_case); }

}  // namespace lmroof::claims_detail
