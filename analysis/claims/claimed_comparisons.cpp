// The pairs of runs the claims compare that the catalogue does not (claims.h:
// claimed_comparisons): listed before anything is measured, so that `lmroof run` times
// them in paired rounds, in both sittings, like every declared comparison (issue #45).
#include <algorithm>
#include <string>
#include <vector>

#include "analysis/claims/check_common.h"
#include "analysis/claims/speedup_evidence.h"

namespace lmroof {

namespace {

// Whether the claim's verdict rests on the speedup of two runs: `faster`, and `ratio`
// of a time or an achieved rate (claims_detail::rides_on_speedup).
bool judged_on_speedup(const Claim& claim, const std::vector<const model::Run*>& runs) {
  if (claim.check.kind == CheckKind::faster) return true;
  if (claim.check.kind != CheckKind::ratio) return false;
  return claims_detail::rides_on_speedup(claims_detail::resolve_metric(claim.check.metric, runs));
}

}  // namespace

std::vector<model::ClaimedComparison> claimed_comparisons(const std::vector<Claim>& claims, const model::Results& planned) {
  std::vector<model::ClaimedComparison> out;
  for (const Claim& claim : claims) {
    const claims_detail::Context ctx{claim, planned};
    std::vector<std::string> notes;
    std::string none;
    std::vector<claims_detail::RunPair> pairs;
    try {
      pairs = claims_detail::pair_runs(ctx, notes, none);
    } catch (const ClaimsFileError&) {
      continue;  // a selector that matches two runs: check_claims says so on the results
    }
    for (const auto& p : pairs) {
      if (!judged_on_speedup(claim, {p.candidate, p.baseline}) || p.baseline->pair != p.candidate->pair) continue;
      const std::string& base = p.baseline->id;
      const std::string& cand = p.candidate->id;
      if (planned.comparison(base, cand) || planned.comparison(cand, base)) continue;  // the catalogue's
      auto same = std::find_if(out.begin(), out.end(), [&](const model::ClaimedComparison& c) {
        return (c.baseline == base && c.candidate == cand) || (c.baseline == cand && c.candidate == base);
      });
      if (same == out.end())
        out.push_back({base, cand, {claim.id}});
      else if (std::find(same->claims.begin(), same->claims.end(), claim.id) == same->claims.end())
        same->claims.push_back(claim.id);
    }
  }
  return out;
}

}  // namespace lmroof
