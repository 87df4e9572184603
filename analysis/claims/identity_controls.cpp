#include "analysis/claims/identity_controls.h"
#include "analysis/results/findings.h"

#include <fmt/format.h>

#include <map>

namespace lmroof {

namespace {

std::string pair_of(const std::string& run_id) { return run_id.substr(0, run_id.find('/')); }

std::string interval_text(const IdentityControl& c) {
  return fmt::format("{:.3f}x (95% {:.3f}\u2013{:.3f}, {} paired rounds)", c.paired.speedup, *c.paired.low,
                     *c.paired.high, c.paired.rounds);
}

}  // namespace

void mark_untrustworthy(std::vector<model::ClaimVerdict>& verdicts, const std::vector<IdentityControl>& controls) {
  std::map<std::string, const IdentityControl*> fault;  // the first faulty control of each pair
  for (const auto& c : controls)
    if (c.beyond_floor) fault.try_emplace(c.pair, &c);
  if (fault.empty()) return;
  for (auto& v : verdicts) {
    if (v.evidence_kind != model::EvidenceKind::measured) continue;  // the cost model's verdicts do not rest on a time
    for (const auto& e : v.evidence) {
      if (!e.run) continue;
      const auto it = fault.find(pair_of(*e.run));
      if (it == fault.end()) continue;
      const IdentityControl& c = *it->second;
      v.untrustworthy =
          c.kind == ControlKind::identity
              ? fmt::format("{}'s identity control ({}: the same work on both sides) measured {}, beyond the "
                            "pair's noise floor of \u00b1{:.1f}%: a measurement fault",
                            c.pair, c.label, interval_text(c), *c.floor * 100)
              : fmt::format("{}'s less-work control ({}: the baseline does strictly less work) measured {}, the "
                            "baseline slower beyond the pair's noise floor of \u00b1{:.1f}%: a measurement fault",
                            c.pair, c.label, interval_text(c), *c.floor * 100);
      break;
    }
  }
}

std::string format_identity_controls(const std::vector<IdentityControl>& controls) {
  std::string out;
  std::optional<ControlKind> heading;
  for (const auto& c : controls) {
    if (heading != c.kind)
      out += c.kind == ControlKind::identity
                 ? "identity controls (the same work on both sides by the cost model; their speedup should be 1):\n"
                 : "less-work controls (the baseline does strictly less work by the cost model; it should not be "
                   "slower):\n";
    heading = c.kind;
    const std::string floor = c.floor ? fmt::format("floor \u00b1{:.1f}%", *c.floor * 100) : "no floor measured";
    out += fmt::format("  {} {}: {}, {}: {}\n", c.pair, c.label, interval_text(c), floor,
                       c.beyond_floor ? (c.kind == ControlKind::identity
                                             ? "MEASUREMENT FAULT, beyond the floor: this pair's verdicts are untrustworthy"
                                             : "MEASUREMENT FAULT, the baseline slower beyond the floor: this pair's "
                                               "verdicts are untrustworthy")
                       : c.floor ? (c.kind == ControlKind::identity ? "within" : "not slower beyond the floor")
                                 : "not judged");
  }
  return out;
}

nlohmann::json identity_controls_json(const std::vector<IdentityControl>& controls) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : controls)
    out.push_back({{"kind", c.kind == ControlKind::identity ? "identity" : "less_work"},
                   {"pair", c.pair}, {"baseline", c.baseline}, {"candidate", c.candidate}, {"label", c.label},
                   {"speedup", c.paired.speedup}, {"low", *c.paired.low}, {"high", *c.paired.high},
                   {"rounds", c.paired.rounds}, {"floor", c.floor ? nlohmann::json(*c.floor) : nlohmann::json(nullptr)},
                   {"beyond_floor", c.beyond_floor}});
  return out;
}

}  // namespace lmroof
