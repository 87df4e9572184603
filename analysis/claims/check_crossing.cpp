// The bound check along a dimension: where the runs turn compute-bound (docs/claims.md#bound-crossing).
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
#include "analysis/rules/rules.h"

namespace lmroof::claims_detail {

namespace {

// ---- bound along a dimension: where the runs turn compute-bound ----------------------
//
// docs/claims.md#bound-crossing. Predicted: a series' flops.total and bytes.model are
// affine in the dimension x (an attention layer's weights are read once per decode step
// whatever the batch; its FLOPs and KV-cache bytes grow with it), fitted by least squares
// over the series, so the cost model's intensity I(x) = (f0 + f1·x) / (m0 + m1·x) reaches
// the ridge R at x* = (R·m0 − f0) / (f1 − R·m1), and never when f1/m1 <= R. Measured: the
// runs' achieved FLOP/s A against I, fitted by a two-piece roofline
// ln A = min(ln P, ln B + ln I) (rising with the intensity at B bytes/s, then level at P
// FLOP/s); its knee P/B is the intensity at which these runs turn compute-bound, and the
// x where I(x) = P/B the measured crossing.

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Affine {
  double a = 0, b = 0;  // y = a + b·x
};

Affine fit_affine(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
  Affine f;
  f.b = sxx > 0 ? sxy / sxx : 0;
  f.a = my - f.b * mx;
  return f;
}

// The cost model's intensity along the dimension.
struct IntensityCurve {
  Affine flops, bytes;
  double limit() const { return bytes.b > 0 ? flops.b / bytes.b : kInf; }  // as x grows
  // The x at which the intensity equals `I`: +inf when it never gets there (I >= the
  // limit), zero or below when it is above I already as x -> 0.
  double where(double I) const {
    const double den = flops.b - I * bytes.b;
    if (den <= 0) return kInf;
    return (I * bytes.a - flops.a) / den;
  }
};

// Two-piece roofline through (I, A) in log space: runs [0, split) on the rising line
// A = bandwidth·I, runs [split, n) on the level A = plateau; the split with the least
// squared log error.
struct Knee {
  size_t split = 1;
  double bandwidth = 0, plateau = 0;
  double intensity() const { return plateau / bandwidth; }
};

Knee fit_knee(const std::vector<double>& I, const std::vector<double>& A) {
  const size_t n = I.size();
  Knee best;
  double best_sse = kInf;
  for (size_t split = 1; split < n; ++split) {
    double lb = 0, lp = 0;
    for (size_t i = 0; i < split; ++i) lb += (std::log(A[i]) - std::log(I[i])) / static_cast<double>(split);
    for (size_t i = split; i < n; ++i) lp += std::log(A[i]) / static_cast<double>(n - split);
    double sse = 0;
    for (size_t i = 0; i < n; ++i) {
      const double e = std::log(A[i]) - std::min(lp, lb + std::log(I[i]));
      sse += e * e;
    }
    if (sse < best_sse) best_sse = sse, best = {split, std::exp(lb), std::exp(lp)};
  }
  return best;
}

// The smallest power of two at or above v (runs worth asking for).
double pow2_at_least(double v) {
  double p = 1;
  while (p < v && p < 1e15) p *= 2;
  return p;
}

// A value of a shape dimension as written ("64"), else three significant digits.
std::string dim_num(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{:.0f}", v) : num(v);
}

// One series (runs alike but for the dimension), sorted by the dimension.
Case crossing_case(const Context& ctx, const std::vector<const Run*>& members) {
  const Check& ch = ctx.claim.check;
  const std::string& dim = ch.crossing;
  const double F = ch.factor.value_or(rules::kCrossingFactor);
  Case c;
  c.tokens = tokens_of(ctx, *members.front(), {dim});
  std::vector<double> x, I, A, flops, bytes;
  double noise = ch.noise_floor, ridge = 0;
  for (const auto* r : members) {
    if (r->flops.total <= 0 || r->bytes.model <= 0 || r->achieved.flop_per_s <= 0 || r->time_s.median <= 0) {
      c.reason = fmt::format("run {} has no positive FLOPs, model bytes or time", run_id(*r));
      return c;
    }
    if (!r->roofline.ridge || *r->roofline.ridge <= 0) {
      c.reason = fmt::format("run {} has no ridge point (ceilings not measured)", run_id(*r));
      return c;
    }
    if (ridge == 0) ridge = *r->roofline.ridge;
    x.push_back(static_cast<double>(r->shape.at(dim)));
    flops.push_back(r->flops.total);
    bytes.push_back(r->bytes.model);
    I.push_back(r->flops.total / r->bytes.model);
    A.push_back(r->achieved.flop_per_s);
    noise = std::max(noise, run_spread(ctx.results, *r));
    c.evidence.push_back(evidence(r, "intensity.model", I.back()));
    c.evidence.push_back(evidence(r, "achieved.flop_per_s", A.back()));
  }
  c.evidence.push_back(evidence(members.front(), "roofline.ridge", ridge));
  // The ridge where the memory-bound runs' bytes come from: the compute roof over the rate
  // each is judged at (the bandwidth curve at its working set, e.g. partly L3), beside
  // the DRAM ceilings' ridge. A decode whose weights straddle the last-level cache turns
  // compute-bound at the former; the DRAM rate of a shared VM moved 1.7x between two
  // default runs minutes apart (issue 45: 110 and 64 GB/s copy_nt), so the ceilings' ridge
  // alone flipped this claim. The prediction is the range these ridges span.
  double ridge_low = ridge, ridge_high = ridge;
  for (const auto* r : members) {
    const auto& j = r->judged_against;
    if (!j || !j->roof || j->unit != "B/s" || !(j->value > 0) || !r->roofline.compute || !(*r->roofline.compute > 0)) continue;
    const double judged = *r->roofline.compute / j->value;
    ridge_low = std::min(ridge_low, judged), ridge_high = std::max(ridge_high, judged);
  }
  std::vector<std::string> values;
  for (double v : x) values.push_back(dim_num(v));
  const size_t n = x.size();
  if (static_cast<int>(n) < ch.min_points) {
    c.verdict = Verdict::inconclusive;
    c.too_few_points = true;
    c.measured = fmt::format("{} point{} at {} {}", n, n == 1 ? "" : "s", dim, join(values, ", "));
    c.reason = fmt::format("only {} value{} of {} ({}); a crossing needs at least {}", n, n == 1 ? "" : "s", dim,
                           join(values, ", "), ch.min_points);
    return c;
  }
  for (size_t i = 0; i + 1 < n; ++i)
    if (x[i + 1] == x[i]) {
      c.reason = fmt::format("runs {} and {} are alike at {} {}: name what tells them apart in the selector",
                             run_id(*members[i]), run_id(*members[i + 1]), dim, dim_num(x[i]));
      return c;
    }
  for (size_t i = 0; i + 1 < n; ++i)
    if (I[i + 1] <= I[i]) {
      c.reason = fmt::format("the model intensity does not rise with {} ({} FLOP/B at {}, {} at {}): there is no "
                             "turn to compute-bound along it",
                             dim, num(I[i]), dim_num(x[i]), num(I[i + 1]), dim_num(x[i + 1]));
      return c;
    }

  // predicted: where the cost model's intensity reaches the ridge
  const IntensityCurve curve{fit_affine(x, flops), fit_affine(x, bytes)};
  const double predicted = curve.where(ridge);
  const bool predicts = std::isfinite(predicted) && predicted > 0;
  c.evidence.push_back(evidence(nullptr, "crossing_predicted", predicts ? predicted : kInf));
  // The range over the ridges' span; the point prediction alone where an end predicts none.
  double predicted_low = curve.where(ridge_low), predicted_high = curve.where(ridge_high);
  if (!predicts || !(std::isfinite(predicted_low) && predicted_low > 0 && std::isfinite(predicted_high) &&
                     predicted_high >= predicted_low))
    predicted_low = predicted_high = predicted;
  const bool ranged = predicts && (predicted_low < predicted || predicted_high > predicted);
  if (ranged) {
    c.evidence.push_back(evidence(nullptr, "ridge_low", ridge_low));
    c.evidence.push_back(evidence(nullptr, "ridge_high", ridge_high));
    c.evidence.push_back(evidence(nullptr, "crossing_predicted_low", predicted_low));
    c.evidence.push_back(evidence(nullptr, "crossing_predicted_high", predicted_high));
  }
  std::string prediction =
      predicts ? fmt::format("predicted {} {} (model intensity reaches the ridge {} FLOP/B)", dim, num(predicted),
                             num(ridge))
      : std::isfinite(predicted)
          ? fmt::format("predicted compute-bound at every {} (model intensity above the ridge {} FLOP/B)", dim,
                        num(ridge))
          : fmt::format("predicted never (model intensity tends to {} FLOP/B, below the ridge {})",
                        num(curve.limit()), num(ridge));

  // measured: the knee of the runs' own roofline; it decides only when it lies inside
  // the runs, beyond their noise, with runs on both sides
  c.evidence.push_back(evidence(nullptr, "noise", noise));
  const Knee knee = fit_knee(I, A);
  const double K = knee.intensity();
  const double measured = curve.where(K);
  c.evidence.push_back(evidence(nullptr, "knee_intensity", K));
  c.evidence.push_back(evidence(nullptr, "plateau_flop_per_s", knee.plateau));
  c.evidence.push_back(evidence(nullptr, "rising_byte_per_s", knee.bandwidth));
  c.evidence.push_back(evidence(nullptr, "crossing_measured", std::isfinite(measured) ? measured : kInf));
  const std::string knee_text =
      fmt::format("knee {} FLOP/B (rising at {} x I to {} {}, level at {} from {}) vs ridge {}", num(K),
                  si(knee.bandwidth, "B/s"), dim, dim_num(x[knee.split - 1]), si(knee.plateau, "FLOP/s"),
                  dim_num(x[knee.split]), num(ridge));
  if (noise > ch.max_noise) {
    c.verdict = Verdict::inconclusive;
    c.measured = prediction;
    c.reason = too_noisy(noise, ch.max_noise) + "; would decide it: a quieter machine or more repetitions";
    return c;
  }
  // The knee is a quotient of two fitted levels, each as noisy as the runs' medians.
  const double widen = (1 + noise) * (1 + noise);
  if (K * widen >= I.back() || !std::isfinite(measured)) {
    // the largest run is not below the rising line by more than the noise: still memory-bound
    c.verdict = Verdict::inconclusive;
    c.measured = fmt::format("{}; achieved FLOP/s still rises with the intensity at the largest {} ({}: {} FLOP/B, "
                             "{})",
                             prediction, dim, dim_num(x[n - 1]), num(I[n - 1]), si(A[n - 1], "FLOP/s"));
    c.reason =
        predicts ? fmt::format("the runs do not bracket the crossing: still memory-bound at the largest {} ({}); "
                               "would decide it: runs at {} up to {} (past {}x the predicted {})",
                               dim, dim_num(x[n - 1]), dim,
                               dim_num(pow2_at_least(std::max(2 * x[n - 1], 2 * F * predicted))), factor_num(F),
                               num(predicted))
                 : fmt::format("the runs do not bracket a crossing, and the model predicts none ({}): nothing "
                               "to compare",
                               std::isfinite(predicted) ? "its intensity is above the ridge at every " + dim
                                                        : "its intensity never reaches the ridge");
    return c;
  }
  if (K <= I.front() * widen) {
    c.verdict = Verdict::inconclusive;
    c.measured = fmt::format("{}; achieved FLOP/s level already from the smallest {} ({}: {} FLOP/B, {})", prediction,
                             dim, dim_num(x[0]), num(I[0]), si(A[0], "FLOP/s"));
    c.reason = fmt::format("the runs do not bracket the crossing: compute-bound from the smallest {} ({}) on; "
                           "would decide it: runs at {} below {}",
                           dim, dim_num(x[0]), dim, dim_num(x[0]));
    return c;
  }
  if (!predicts) {
    c.verdict = Verdict::fails;
    c.measured = fmt::format("measured {} {}, {}; {}", dim, num(measured), prediction, knee_text);
    c.slack = kInf;
    return c;
  }
  const double ratio = measured / predicted;
  c.evidence.push_back(evidence(nullptr, "crossing_ratio", ratio));
  c.measured = fmt::format("{} {} measured vs {} predicted (x{}{}): {}", dim, num(measured), num(predicted), num(ratio),
                           ranged ? fmt::format("; {} to {} at the ridges {} to {} FLOP/B the runs are judged at",
                                                num(predicted_low), num(predicted_high), num(ridge_low), num(ridge_high))
                                  : "",
                           knee_text);
  const double low = std::max(0.0, curve.where(K / widen)), high = curve.where(K * widen);
  // Holds within F of every prediction of the range; fails beyond F of all of them, noise included.
  if (ratio >= 1 / F && ratio <= F && measured >= predicted_high / F && measured <= predicted_low * F) {
    c.verdict = Verdict::holds;
  } else if (high < predicted_low / F || low > predicted_high * F) {
    c.verdict = Verdict::fails;
  } else if (ranged) {
    // Where the ridge lies decides it, not only the runs' noise: a property of this machine
    // and these shapes (which level serves the bytes, how far the DRAM rate moves).
    c.verdict = Verdict::inconclusive;
    c.cause = VerdictCause{Cause::machine, fmt::format("the ridge is known here only to {} to {} FLOP/B: the runs' "
                                                       "bytes straddle cache levels or the DRAM rate moved",
                                                       num(ridge_low), num(ridge_high))};
    c.reason = fmt::format("the measured crossing ({} {}) is within {}x of where the model intensity reaches some "
                           "but not all of the ridges the runs may meet, {} to {} FLOP/B (the DRAM ceilings' {}, and "
                           "the compute roof over the bandwidth each memory-bound run is judged at, e.g. partly from "
                           "the last-level cache), which predict {} {} to {}; would decide it: runs whose working "
                           "sets sit at one level (well past the last-level cache, or within it)",
                           dim, num(measured), factor_num(F), num(ridge_low), num(ridge_high), num(ridge), dim,
                           num(predicted_low), num(predicted_high));
  } else {
    c.verdict = Verdict::inconclusive;
    c.reason = fmt::format("the measured crossing is {}x the predicted one, outside {}x, but the runs' noise "
                           "(\u00b1{}) allows {} {} to {}; would decide it: a quieter machine or more repetitions "
                           "(`--repetitions 20`)",
                           num(ratio), factor_num(F), pct(noise), dim, num(low), num(high));
  }
  c.slack = std::abs(std::abs(std::log(ratio)) - std::log(F));
  return c;
}

}  // namespace

Outcome check_crossing(const Context& ctx) {
  const auto& ch = ctx.claim.check;
  const auto runs = select(ctx, ch.run);
  // Series: runs alike in everything but the dimension.
  const std::vector<std::string> skip = {ch.crossing};
  RunSeries series = group_series(ctx, runs, skip, [&](const Run& r) {
    const auto it = r.shape.find(ch.crossing);
    return it != r.shape.end() && it->second > 0;
  });
  std::vector<std::string> notes;
  if (series.lacking) notes.push_back(lacking_note(series.lacking, ch.crossing));
  std::vector<Case> cases;
  for (const auto& key : series.keys) {
    auto& members = series.members[key];
    std::sort(members.begin(), members.end(),
              [&](const Run* a, const Run* b) { return a->shape.at(ch.crossing) < b->shape.at(ch.crossing); });
    cases.push_back(crossing_case(ctx, members));
  }
  // Series too short to show a crossing are set aside when another can; when none can,
  // the claim is inconclusive (the results lack the sweep).
  const auto short_series = [](const Case& c) { return c.too_few_points; };
  const auto judged = std::count_if(cases.begin(), cases.end(), [&](const Case& c) {
    return c.verdict != Verdict::not_measured && !short_series(c);
  });
  if (judged > 0) {
    if (const auto n_short = std::count_if(cases.begin(), cases.end(), short_series))
      notes.push_back(fmt::format("{} series with fewer than {} values of {} set aside", n_short, ch.min_points,
                                  ch.crossing));
    cases.erase(std::remove_if(cases.begin(), cases.end(), short_series), cases.end());
  }
  return aggregate(ctx, std::move(cases), "series", notes, no_match_reason(ctx, ch.run));
}

}  // namespace lmroof::claims_detail
