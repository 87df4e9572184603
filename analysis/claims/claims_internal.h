#pragma once
// Shared by the claims sources; not part of the API (claims.h).
#include <string>
#include <string_view>
#include <vector>

namespace lmroof::claims_detail {

std::string join(const std::vector<std::string>& items, std::string_view sep);

// Whether `metric` names a number a run has (docs/claims.md#metrics); else says why.
bool valid_metric(const std::string& metric, std::string& problem);

}  // namespace lmroof::claims_detail
