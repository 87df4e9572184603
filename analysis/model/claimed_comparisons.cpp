#include "analysis/model/claimed_comparisons.h"

#include <fmt/format.h>

#include "analysis/model/json_input.h"

namespace lmroof::model {

nlohmann::json to_json(const std::vector<ClaimedComparison>& comparisons) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : comparisons) out.push_back({{"baseline", c.baseline}, {"candidate", c.candidate}, {"claims", c.claims}});
  return out;
}

std::vector<ClaimedComparison> claimed_comparisons_from_json(const nlohmann::json& doc, const std::string& file,
                                                             const std::string& pointer) {
  std::vector<ClaimedComparison> out;
  for (const JsonCursor& item : JsonCursor(doc, file, pointer).items()) {
    ClaimedComparison c;
    c.baseline = item.at("baseline").string(kMaxNameLength);
    c.candidate = item.at("candidate").string(kMaxNameLength);
    if (c.baseline.empty()) item.at("baseline").fail("must name a run");
    if (c.candidate.empty()) item.at("candidate").fail("must name a run");
    if (c.baseline == c.candidate) item.at("candidate").fail("names the baseline's run: a claim compares two runs");
    const auto claims = item.at("claims").items();
    if (claims.empty()) item.at("claims").fail("must name the claim that asked for the comparison");
    for (const JsonCursor& id : claims) c.claims.push_back(id.string(kMaxNameLength));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace lmroof::model
