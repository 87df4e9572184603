// The share check: an operator class's share of FLOPs and time (docs/claims.md#share).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/claims/check_common.h"

namespace lmroof::claims_detail {

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
  const std::optional<double> fs = cls->flop_share;
  const std::optional<double> ts = cls->time_share;
  const std::string prefix = "breakdown." + ch.op_class + ".";
  std::vector<std::string> parts, missing;
  std::vector<bool> ok;
  double slack = 1e300;
  auto judge = [&](const Range& range, std::optional<double> v, const std::string& what) {
    if (!range.min && !range.max) return;
    if (!v) {
      missing.push_back(what);
      return;
    }
    ok.push_back(range.contains(*v));
    if (range.min && *v > 0) slack = std::min(slack, std::abs(std::log(*v / *range.min)));
    if (range.max && *v > 0) slack = std::min(slack, std::abs(std::log(*v / *range.max)));
  };
  if (fs) {
    c.evidence.push_back(evidence(&run, prefix + "flop_share", *fs));
    parts.push_back("FLOP share " + pct(*fs));
  }
  if (ts) {
    c.evidence.push_back(evidence(&run, prefix + "time_share", *ts));
    parts.push_back("time share " + pct(*ts));
  }
  std::optional<double> over;
  if (fs && ts && *fs > 0) {
    over = *ts / *fs;
    c.evidence.push_back(evidence(&run, prefix + "time_over_flop_share", *over));
    parts.push_back(fmt::format("time/FLOP share {}x", num(*over)));
  } else if (fs && ts && *fs == 0 && *ts > 0) {
    over = std::numeric_limits<double>::infinity();
    parts.push_back("time/FLOP share infinite");
  }
  judge(ch.flop_share, fs, "flop_share");
  judge(ch.time_share, ts, "time_share");
  judge(ch.time_over_flop_share, over, "time_over_flop_share");
  c.measured = fmt::format("{}: {}", ch.op_class, join(parts, ", "));
  if (!missing.empty()) {
    c.verdict = Verdict::not_measured;
    c.reason = fmt::format("run {} has no {} for class '{}'", run_id(run), join(missing, ", "), ch.op_class);
    return c;
  }
  c.verdict = std::all_of(ok.begin(), ok.end(), [](bool b) { return b; }) ? Verdict::holds : Verdict::fails;
  c.slack = slack;
  return c;
}

}  // namespace

Outcome check_share(const Context& ctx) { return check_each_run(ctx, share_case); }

}  // namespace lmroof::claims_detail
