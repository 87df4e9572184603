#include "analysis/claims/identity_controls.h"

#include <fmt/format.h>

#include <algorithm>
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
    const model::Comparison& c = *from[i];
    // (the two sides of a less-work control may be one variant at two levels: "attn_softcap fused vs without")
    const std::string sides = c.candidate.variant == c.baseline.variant
                                  ? fmt::format("{} {} vs {}", c.candidate.variant, c.candidate.impl, c.baseline.impl)
                                  : fmt::format("{} vs {}", c.candidate.variant, c.baseline.variant);
    controls[i].label = sides + (shape.empty() ? "" : ", " + shape);
  }
}

// The strictly-less-work test: no more FLOPs and bytes on the baseline's side, and less
// of one by more than equal_work's tolerance. The ratios are candidate / baseline.
bool baseline_does_less(const model::Comparison& c) {
  return c.flops_ratio >= 1 && c.bytes_ratio >= 1 && (!equal_work(c.flops_ratio) || !equal_work(c.bytes_ratio));
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

bool is_less_work_control(const model::Comparison& c, const model::Catalogue& catalogue) {
  const model::CataloguePair* pair = catalogue.find(c.pair);
  if (!pair || c.bytes_basis != model::BytesBasis::model || !baseline_does_less(c)) return false;
  return std::any_of(pair->comparisons.begin(), pair->comparisons.end(), [&](const model::ComparisonDef& d) {
    return d.less_work_control && d.baseline.variant == c.baseline.variant && d.baseline.impl == c.baseline.impl &&
           d.candidate.variant == c.candidate.variant && d.candidate.impl == c.candidate.impl;
  });
}

namespace {

std::vector<IdentityControl> controls_of(const model::Results& results, ControlKind kind) {
  std::vector<IdentityControl> out;
  std::vector<const model::Comparison*> from;
  for (const model::Comparison& c : results.comparisons) {
    const bool control =
        kind == ControlKind::identity ? is_identity_control(c) : is_less_work_control(c, results.catalogue);
    if (!control || !c.paired || !c.paired->has_interval()) continue;
    IdentityControl x{kind, c.pair, c.baseline.run, c.candidate.run, "", c.shape, *c.paired, std::nullopt, false};
    from.push_back(&c);
    if (const model::NoiseFloor* f = results.noise_floor(c.pair)) {
      x.floor = f->floor;
      const bool baseline_slower = *c.paired->low > 1 + f->floor;
      x.beyond_floor = baseline_slower || (kind == ControlKind::identity && *c.paired->high < 1 / (1 + f->floor));
    }
    out.push_back(x);
  }
  name_controls(out, from, results.comparisons);
  return out;
}

}  // namespace

std::vector<IdentityControl> identity_controls(const model::Results& results) {
  return controls_of(results, ControlKind::identity);
}

std::vector<IdentityControl> less_work_controls(const model::Results& results) {
  return controls_of(results, ControlKind::less_work);
}

std::vector<IdentityControl> measurement_controls(const model::Results& results) {
  std::vector<IdentityControl> out = identity_controls(results);
  for (IdentityControl& c : less_work_controls(results)) out.push_back(std::move(c));
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
