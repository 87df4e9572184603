// The verdicts' summary line, their report order and the noise floors' line: the words
// the report, `lmroof check` and the run summary share (docs/claims.md).
#include "reports/text/verdict_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>


namespace lmroof {

namespace {

struct Tally {
  int counts[4] = {0, 0, 0, 0};  // by model::Verdict
  // Holds on a measurement a control or a fault makes untrustworthy: counted apart,
  // never among the holds (issue 45).
  int untrustworthy_holds = 0;
  std::map<model::Cause, int> causes[4];  // fails and inconclusive, by cause
  void add(const model::ClaimVerdict& c) {
    if (c.untrustworthy && c.verdict == model::Verdict::holds) {
      ++untrustworthy_holds;
      return;
    }
    ++counts[static_cast<int>(c.verdict)];
    if (c.cause) ++causes[static_cast<int>(c.verdict)][*c.cause];
  }
  int total() const { return counts[0] + counts[1] + counts[2] + counts[3] + untrustworthy_holds; }
};

// " (4 architecture, 3 implementation, 3 machine)": the causes of the claims with this
// verdict, in the order verdict_cause.h tries them; empty when none has one.
std::string by_cause(const Tally& t, model::Verdict v) {
  std::vector<std::string> parts;
  const auto& causes = t.causes[static_cast<int>(v)];
  for (model::Cause cause : {model::Cause::architecture, model::Cause::implementation, model::Cause::machine, model::Cause::noise})
    if (auto it = causes.find(cause); it != causes.end()) parts.push_back(fmt::format("{} {}", it->second, model::to_string(cause)));
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", "));
}

std::string tally_text(const Tally& t) {
  std::vector<std::string> parts;
  const model::Verdict order[] = {model::Verdict::holds, model::Verdict::fails, model::Verdict::inconclusive,
                                  model::Verdict::not_measured};
  for (auto v : order)
    if (const int n = t.counts[static_cast<int>(v)])
      parts.push_back(v == model::Verdict::holds   ? fmt::format("{} hold{}", n, n == 1 ? "s" : "")
                      : v == model::Verdict::fails ? fmt::format("{} fail{}", n, n == 1 ? "s" : "") + by_cause(t, v)
                                                   : fmt::format("{} {}", n, model::to_string(v)) + by_cause(t, v));
  if (t.untrustworthy_holds) parts.push_back(fmt::format("{} untrustworthy", t.untrustworthy_holds));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string verdict_summary(const std::vector<model::ClaimVerdict>& claims) {
  Tally measured, model_only;
  for (const auto& c : claims) (c.evidence_kind == model::EvidenceKind::model ? model_only : measured).add(c);
  std::vector<std::string> parts;
  if (measured.total() || !model_only.total()) parts.push_back("measured: " + tally_text(measured));
  if (model_only.total()) parts.push_back("model: " + tally_text(model_only));
  return fmt::format("{}", fmt::join(parts, " \u00b7 "));
}

std::string format_noise_floors(const model::Results& results) {
  const std::vector<model::NoiseFloor>& floors = results.noise_floors;
  if (floors.empty()) return "";
  const model::Findings& found = results.decided();
  const auto& unmeasurable = found.unmeasurable_pairs;
  std::vector<std::string> parts;
  for (const auto& f : floors)
    parts.push_back(std::find(unmeasurable.begin(), unmeasurable.end(), f.pair) == unmeasurable.end()
                        ? fmt::format("{} \u00b1{:.1f}%", f.pair, f.floor * 100)
                        : fmt::format("{} \u00b1{:.1f}% (NOT MEASURABLE HERE as set up: beyond the \u00b1{:.0f}% bound; "
                                      "its run timed against itself measured {:.2f}\u2013{:.2f}x over {} paired rounds)",
                                      f.pair, f.floor * 100, found.bounds.measurable_floor * 100, *f.rounds.low,
                                      *f.rounds.high, f.rounds.rounds));
  return fmt::format("noise floors (A/A paired rounds, this machine): {}", fmt::join(parts, ", "));
}

}  // namespace lmroof
