#include "analysis/claims/identity_controls.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace lmroof {

namespace {

// 1e-6: the cost model sums its bytes and FLOPs in floating point, in another order on
// each side (a sliding layer through min(n, W)); no real difference in work is this small.
bool equal_work(double ratio) { return std::abs(ratio - 1) <= 1e-6; }

std::string pair_of(const std::string& run_id) { return run_id.substr(0, run_id.find('/')); }

// "sliding vs full, context=2048": the dimensions in which the pair's comparisons
// differ (the full shape is in the run ids).
void name_controls(std::vector<IdentityControl>& controls, const std::vector<const model::Comparison*>& from,
                   const std::vector<model::Comparison>& all) {
  for (size_t i = 0; i < controls.size(); ++i) {
    std::string shape;
    for (const auto& [dim, value] : from[i]->shape) {
      bool varies = false;
      for (const model::Comparison& other : all)
        if (other.pair == from[i]->pair && other.shape.contains(dim) && other.shape.at(dim) != value) varies = true;
      if (varies) shape += fmt::format("{}{}={}", shape.empty() ? "" : " ", dim, value);
    }
    controls[i].label = fmt::format("{} vs {}{}", from[i]->candidate.variant, from[i]->baseline.variant,
                                    shape.empty() ? "" : ", " + shape);
  }
}

std::string interval_text(const IdentityControl& c) {
  return fmt::format("{:.3f}x (95% {:.3f}\u2013{:.3f}, {} paired rounds)", c.paired.speedup, *c.paired.low,
                     *c.paired.high, c.paired.rounds);
}

}  // namespace

bool is_identity_control(const model::Comparison& c) {
  return c.baseline.impl == c.candidate.impl && c.bytes_basis == model::BytesBasis::model && equal_work(c.bytes_ratio) &&
         equal_work(c.flops_ratio);
}

std::vector<IdentityControl> identity_controls(const model::Results& results) {
  std::vector<IdentityControl> out;
  std::vector<const model::Comparison*> from;
  for (const model::Comparison& c : results.comparisons) {
    if (!is_identity_control(c) || !c.paired || !c.paired->has_interval()) continue;
    IdentityControl control{c.pair, c.baseline.run, c.candidate.run, "", c.shape, *c.paired, std::nullopt, false};
    from.push_back(&c);
    if (const model::NoiseFloor* f = results.noise_floor(c.pair)) {
      control.floor = f->floor;
      control.beyond_floor = *c.paired->low > 1 + f->floor || *c.paired->high < 1 / (1 + f->floor);
    }
    out.push_back(control);
  }
  name_controls(out, from, results.comparisons);
  return out;
}

std::set<std::string> untrustworthy_pairs(const std::vector<IdentityControl>& controls) {
  std::set<std::string> out;
  for (const auto& c : controls)
    if (c.beyond_floor) out.insert(c.pair);
  return out;
}

void mark_untrustworthy(std::vector<model::ClaimVerdict>& verdicts, const std::vector<IdentityControl>& controls) {
  std::map<std::string, const IdentityControl*> fault;  // the first faulty control of each pair
  for (const auto& c : controls)
    if (c.beyond_floor) fault.try_emplace(c.pair, &c);
  if (fault.empty()) return;
  for (auto& v : verdicts) {
    if (v.evidence_kind != "measured") continue;  // the cost model's verdicts do not rest on a time
    for (const auto& e : v.evidence) {
      if (!e.run) continue;
      const auto it = fault.find(pair_of(*e.run));
      if (it == fault.end()) continue;
      const IdentityControl& c = *it->second;
      v.untrustworthy = fmt::format("{}'s identity control ({}: the same work on both sides) measured {}, beyond the "
                                    "pair's noise floor of \u00b1{:.1f}%: a measurement fault",
                                    c.pair, c.label, interval_text(c), *c.floor * 100);
      break;
    }
  }
}

std::string format_identity_controls(const std::vector<IdentityControl>& controls) {
  if (controls.empty()) return "";
  std::string out = "identity controls (the same work on both sides by the cost model; their speedup should be 1):\n";
  for (const auto& c : controls) {
    const std::string floor = c.floor ? fmt::format("floor \u00b1{:.1f}%", *c.floor * 100) : "no floor measured";
    out += fmt::format("  {} {}: {}, {}: {}\n", c.pair, c.label, interval_text(c), floor,
                       c.beyond_floor ? "MEASUREMENT FAULT, beyond the floor: this pair's verdicts are untrustworthy"
                       : c.floor     ? "within"
                                     : "not judged");
  }
  return out;
}

nlohmann::json identity_controls_json(const std::vector<IdentityControl>& controls) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : controls)
    out.push_back({{"pair", c.pair}, {"baseline", c.baseline}, {"candidate", c.candidate}, {"label", c.label},
                   {"speedup", c.paired.speedup}, {"low", *c.paired.low}, {"high", *c.paired.high},
                   {"rounds", c.paired.rounds}, {"floor", c.floor ? nlohmann::json(*c.floor) : nlohmann::json(nullptr)},
                   {"beyond_floor", c.beyond_floor}});
  return out;
}

}  // namespace lmroof
