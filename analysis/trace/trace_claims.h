#pragma once
// Claims over a trace's class table (docs/trace.md, "Claims"): "normalization is at
// most 1% of the FLOPs and at least 10% of the time", "matmul is at least 50% of the
// time". A YAML file like claims/*.yaml with `kind: class_share`; checked against a
// trace.json document, each claim holds, fails, or is not measured (no time at all).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lmroof::trace {

struct ShareRange {
  std::string metric;  // flop_share | byte_share | time_share | fraction_of_roof
  std::optional<double> min, max;
};

struct Claim {
  std::string id, statement, source;
  std::string op_class;  // matmul, attention, ...
  std::vector<ShareRange> ranges;
  int line = 0;
};

struct ClaimVerdict {
  std::string id, statement, verdict;  // holds | fails | not measured
  std::string evidence;                // the numbers, one line
  nlohmann::json values;               // metric -> value
};

// Throws model::InputError "FILE:LINE: problem" for a malformed file, an unknown kind,
// class or metric, or a claim without a range.
std::vector<Claim> load_trace_claims(const std::filesystem::path& path);
std::vector<ClaimVerdict> check_trace_claims(const std::vector<Claim>& claims, const nlohmann::json& trace_doc);
nlohmann::json verdicts_json(const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts, bool markdown);
// 0 none fails; 1 one fails (strict: or is not measured).
int claims_exit(const std::vector<ClaimVerdict>& verdicts, bool strict = false);

}  // namespace lmroof::trace
