#pragma once
// Comparisons a claim asks for that the catalogue does not declare (issue #45 item 1):
// a claim on the ratio of two timed runs, e.g. an MHA decode layer at batch 4 against
// batch 1, is judged on the same estimator as every declared comparison, the paired
// rounds. `lmroof run` lists these pairs of runs from its claims before anything is
// measured (claims.h: claimed_comparisons), times them in paired rounds beside the
// catalogue's (bench/paired_rounds.h) and records the list in bench.json's context
// (model::context::kClaimedComparisons), from which the analysis makes each a
// Comparison with `claimed_by` set (analysis/results/results.cpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lmroof::model {

struct ClaimedComparison {
  std::string baseline, candidate;  // run ids (RunSpec::bench_name), of one pair
  std::vector<std::string> claims;  // the ids of the claims that compare them, in claims-file order
};

nlohmann::json to_json(const std::vector<ClaimedComparison>& comparisons);
// The list as bench.json's context holds it; throws InputError naming `file` and the
// field (under `pointer`) of anything malformed (not a list, a run id empty or too
// long, no claim id, a run against itself).
std::vector<ClaimedComparison> claimed_comparisons_from_json(const nlohmann::json& doc, const std::string& file,
                                                             const std::string& pointer = "");

}  // namespace lmroof::model
