// The scaling check: a metric ~ dimension^exponent, fitted per series (docs/claims.md#scaling).
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
#include "analysis/claims/speedup_evidence.h"

namespace lmroof::claims_detail {

Outcome check_scaling(const Context& ctx) {
  const auto& ch = ctx.claim.check;
  const auto runs = select(ctx, ch.run);
  // Series: runs alike in everything but the dimension (and the `across` fields).
  std::vector<std::string> skip = ch.across;
  skip.push_back(ch.dimension);
  skip.push_back("id");
  RunSeries series = group_series(ctx, runs, skip, [&](const Run& r) {
    const auto x = number_at(r, "shape." + ch.dimension);
    return x && *x > 0;
  });
  std::vector<std::string> notes;
  if (series.lacking) notes.push_back(lacking_note(series.lacking, ch.dimension));
  std::vector<Case> cases;
  for (const auto& key : series.keys) {
    auto& members = series.members[key];
    std::sort(members.begin(), members.end(), [&](const Run* a, const Run* b) {
      return *number_at(*a, "shape." + ch.dimension) < *number_at(*b, "shape." + ch.dimension);
    });
    Case c;
    c.tokens = tokens_of(ctx, *members.front(), skip);
    const std::string field = resolve_metric(ch.metric, members);
    std::vector<double> xs, ys;
    std::set<double> distinct;
    double max_spread = 0;  // the widest 95% interval of a run's median, relative
    std::string missing;
    for (const auto* r : members) {
      const double x = *number_at(*r, "shape." + ch.dimension);
      const auto y = number_at(*r, field);
      if (!y || *y <= 0) {
        missing = run_id(*r);
        continue;
      }
      xs.push_back(std::log(x));
      ys.push_back(std::log(*y));
      distinct.insert(x);
      max_spread = std::max(max_spread, run_spread(ctx.results, *r));
      c.evidence.push_back(evidence(r, field, *y));
    }
    std::vector<std::string> values;
    for (double x : distinct) values.push_back(num(x));
    if (static_cast<int>(distinct.size()) < ch.min_points) {
      c.verdict = distinct.empty() ? Verdict::not_measured : Verdict::inconclusive;
      c.too_few_points = !distinct.empty();
      c.reason = distinct.empty()
                     ? fmt::format("runs have no positive {}{}", field, missing.empty() ? "" : " (" + missing + ")")
                     : fmt::format("only {} value{} of {} ({}); scaling needs at least {}", distinct.size(),
                                   distinct.size() == 1 ? "" : "s", ch.dimension, join(values, ", "), ch.min_points);
      c.measured = fmt::format("{} point{} at {} {}", distinct.size(), distinct.size() == 1 ? "" : "s", ch.dimension,
                               join(values, ", "));
      cases.push_back(std::move(c));
      continue;
    }
    const double n = static_cast<double>(xs.size());
    double mx = 0, my = 0;
    for (size_t i = 0; i < xs.size(); ++i) mx += xs[i] / n, my += ys[i] / n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < xs.size(); ++i) sxx += (xs[i] - mx) * (xs[i] - mx), sxy += (xs[i] - mx) * (ys[i] - my);
    const double slope = sxy / sxx;
    double sse = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ys[i] - (my + slope * (xs[i] - mx));
      sse += e * e;
    }
    const double se = xs.size() > 2 ? std::sqrt(sse / (n - 2) / sxx) : 0.0;
    const double span = std::log(*distinct.rbegin() / *distinct.begin());
    const bool timed = is_timed(field);
    const double noise = timed ? std::max(ch.noise_floor, max_spread) : 0.0;
    const double slope_noise = timed ? std::log1p(noise) * 2 / span : 0.0;  // one end up, the other down
    const double off = std::abs(slope - ch.exponent);
    c.evidence.push_back(evidence(nullptr, "slope", slope));
    c.evidence.push_back(evidence(nullptr, "slope_stderr", se));
    c.measured = fmt::format("{} ~ {}^{} over {} {} ({} points)", metric_words(field), ch.dimension, num(slope),
                             ch.dimension, join(values, ", "), xs.size());
    if (timed && noise > ch.max_noise) {
      c.verdict = Verdict::inconclusive;
      c.reason = too_noisy(noise, ch.max_noise);
    } else if (off <= ch.tolerance) {
      c.verdict = Verdict::holds;
    } else if (off > ch.tolerance + 2 * se + slope_noise) {
      c.verdict = Verdict::fails;
    } else {
      c.verdict = Verdict::inconclusive;
      c.reason = fmt::format("slope {} is outside {} +/- {} but within its uncertainty (+/-{})", num(slope),
                             num(ch.exponent), num(ch.tolerance), num(2 * se + slope_noise));
    }
    c.slack = std::abs(off - ch.tolerance);
    cases.push_back(std::move(c));
  }
  // Series too short to fit are set aside when at least one series can be fitted;
  // when none can, they make the claim inconclusive (the results lack the sweep).
  const auto short_series = [](const Case& c) { return c.too_few_points; };
  const auto fitted = std::count_if(cases.begin(), cases.end(), [&](const Case& c) {
    return c.verdict != Verdict::not_measured && !short_series(c);
  });
  if (fitted == 0 && !cases.empty() && std::all_of(cases.begin(), cases.end(), short_series)) {
    // No sweep of the dimension at all: one verdict, not one per series.
    std::set<double> values;
    for (const auto* r : runs)
      if (auto x = number_at(*r, "shape." + ch.dimension)) values.insert(*x);
    std::vector<std::string> shown;
    for (double x : values) shown.push_back(num(x));
    Case c;
    c.verdict = Verdict::inconclusive;
    c.measured = fmt::format("{} series; {} {} in the results", cases.size(), ch.dimension, join(shown, ", "));
    c.reason = fmt::format("no series has {} values of {} to fit (the results have {} {})", ch.min_points,
                           ch.dimension, values.size() == 1 ? "only" : "too few:", join(shown, ", "));
    for (const auto& s : cases)
      for (const auto& e : s.evidence) c.evidence.push_back(e);
    cases = {std::move(c)};
  } else if (fitted > 0) {
    const auto n_short = std::count_if(cases.begin(), cases.end(), short_series);
    if (n_short)
      notes.push_back(fmt::format("{} series with fewer than {} values of {} set aside", n_short, ch.min_points,
                                  ch.dimension));
    cases.erase(std::remove_if(cases.begin(), cases.end(), short_series), cases.end());
  }
  return aggregate(ctx, std::move(cases), "series", notes, no_match_reason(ctx, ch.run));
}

}  // namespace lmroof::claims_detail
