#pragma once
// Claims: sentences such as "RMSNorm is faster than LayerNorm" written down in a
// claims file (YAML, or JSON which is YAML too), checked against a results.json,
// each with a verdict (holds / fails / inconclusive / not measured) and the numbers
// behind it. The file format and every rule a check applies are in docs/claims.md;
// the output is results.json's `claims[]` (docs/results-schema.md).
//
//   auto claims  = lmroof::load_claims(path, results.catalogue);  // throws ClaimsFileError
//   auto verdicts = lmroof::check_claims(claims, results);         // results.claims
//   std::cout << lmroof::format_claims_table(verdicts);     // reports/text/claims_text.h
//   return lmroof::claims_exit_code(verdicts);             // 0 none fails, 1 any fails
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/claimed_comparisons.h"
#include "analysis/model/results_model.h"
#include "analysis/model/trace_result.h"
#include "analysis/rules/rules.h"

namespace lmroof {

// A problem in a claims file: unreadable, malformed YAML, an unknown kind, field,
// pair, variant, impl or dimension, a missing or mistyped value, or a selector that
// is ambiguous on the results. what() is one line, "FILE:LINE: problem". Bad input:
// the CLI prints it and exits 2.
class ClaimsFileError : public std::runtime_error {
 public:
  ClaimsFileError(std::string file, int line, const std::string& problem);
  const std::string& file() const { return file_; }
  int line() const { return line_; }  // 1-based; 0 when the problem is the whole file

 private:
  std::string file_;
  int line_;
};

// class_share: an operator class's share of a profiler trace (trace.json's class table,
// docs/trace.md#claims); the others are checked against a results.json.
enum class CheckKind { bound, faster, ratio, share, scaling, class_share };
const char* to_string(CheckKind kind);

// What a claims file is checked against: a results.json (`lmroof check`, `run`,
// `analyze`) or a trace.json (`lmroof trace --claims`, `check CLAIMS trace.json`). A
// claim of a kind the document cannot answer is refused when the file is read.
enum class ClaimsTarget { results, trace };

// How a trace's operators are grouped into classes for a class_share claim (docs/trace.md#claims):
// lmroof's own classes (trace.json `classes`), or Ivanov et al.'s three (`ivanov_classes`).
enum class Grouping { lmroof, ivanov };
const char* to_string(Grouping grouping);
// The classes each grouping has, as trace.json names them.
const std::vector<std::string>& grouping_classes(Grouping grouping);

// Picks runs out of results.json's runs[]. An empty list or unset field matches any.
struct RunSelector {
  std::string pair;
  std::vector<std::string> variants;
  std::vector<std::string> impls;
  std::optional<std::string> backend;  // "cpu" | "cuda"
  std::optional<std::string> dtype;    // "fp32" | "bf16"
  // Partial shape: a run matches when its shape has each of these dims at this value.
  std::vector<std::pair<std::string, int64_t>> shape;
  int line = 0;  // where the selector is written, for messages

  bool matches(const model::Run& run) const;
  std::string describe() const;  // "norm/rmsnorm/unfused", "decode/*/grouped context=4096"
};

// [min, max]; either end may be open.
struct Range {
  std::optional<double> min;
  std::optional<double> max;
  bool contains(double v) const { return (!min || v >= *min) && (!max || v <= *max); }
  std::string describe(int digits = 3) const;  // "in [0.50, 0.70]", ">= 10", "<= 0.01"
};

struct Check {
  CheckKind kind = CheckKind::bound;

  // bound, share, scaling: the runs the check looks at
  RunSelector run;
  // faster, ratio: candidate against baseline, paired run by run
  RunSelector candidate;
  RunSelector baseline;
  // faster, ratio: shape dims allowed to differ between paired runs (kv_heads, d_ff)
  std::vector<std::string> ignore_dims;

  // bound: either `expect` (each run on its side of the ridge), or `crossing` (the
  // dimension along which the runs turn compute-bound: where the cost model's intensity
  // reaches the ridge, predicted, against where the runs' achieved FLOP/s stops rising
  // with intensity, measured; docs/claims.md#bound-crossing)
  std::string expect;   // "memory" | "compute"
  double margin = rules::kBoundMargin;  // |I - ridge| <= margin * ridge is inconclusive
  std::string crossing;  // "batch"; with it, `factor` (default 2) bounds measured / predicted
                         // both ways and `min_points` (default 3) the runs per series

  // faster: either factor, or within_noise
  std::optional<double> factor;  // speedup = baseline time / candidate time >= factor;
                                 // bound with crossing: measured / predicted in [1/factor, factor]
  bool within_noise = false;     // "not measurably different"
  double max_difference = 0.0;   // within_noise: |speedup - 1| allowed beyond the noise
  // faster, and ratio / scaling of a time: the relative noise of a comparison
  // (docs/claims.md#noise) is at least noise_floor; above max_noise it is inconclusive.
  double noise_floor = rules::kNoiseFloor;
  double max_noise = rules::kMaxNoise;

  // ratio, scaling: the metric (docs/claims.md#metrics)
  std::string metric;
  Range range;  // ratio

  // share, class_share
  std::string op_class;  // "normalization"
  Range flop_share;
  Range time_share;
  Range time_over_flop_share;
  // class_share only: the grouping its class belongs to, and the two figures a trace
  // has that a run's breakdown lacks
  Grouping grouping = Grouping::lmroof;
  Range byte_share;
  Range fraction_of_roof;

  // scaling
  std::string dimension;  // "context"
  double exponent = 1.0;  // metric ~ dimension^exponent
  double tolerance = rules::kScalingTolerance;
  std::vector<std::string> across;  // selector fields the series may span: "variant", "impl"
  int min_points = rules::kMinSeriesPoints;  // scaling; bound with crossing
};

// The chart a class_share claim points at: the trace page's class table (reports/trace_report.cpp).
inline constexpr const char* kTraceClassesChart = "classes";

struct Claim {
  std::string id;
  std::string statement;
  std::string source;
  std::string chart;    // report chart id; derived from the check when the file has none
  std::string pending;  // non-empty: the pair it needs is not in lmroof yet (why)
  Check check;
  std::string file;  // the claims file, as given to load_claims
  int line = 0;      // where the claim starts
};

// Reads and validates a claims file: every field known and typed, every metric one a
// run has, every pair, variant, impl, shape dimension and chart in the catalogue (a
// claim marked `pending` may name a pair the catalogue lacks). Throws ClaimsFileError.
// A file meant for the other target (a bound check in a trace's claims, a class_share
// check in a results' claims) is refused at the claim's kind. The file is read whole
// and checked (size, UTF-8, aliases, every field) before anything else is read: call
// it before a multi-GB trace.
std::vector<Claim> load_claims(const std::filesystem::path& file, const model::Catalogue& catalogue,
                               ClaimsTarget target = ClaimsTarget::results);
// The same from text already in memory; `file` only names it in messages.
std::vector<Claim> parse_claims(const std::string& text, const std::string& file, const model::Catalogue& catalogue,
                                ClaimsTarget target = ClaimsTarget::results);

// Checks every claim against the results, one verdict per claim in order. Throws
// ClaimsFileError when a claim cannot be applied to them (a selector that matches
// several runs where one is needed).
std::vector<model::ClaimVerdict> check_claims(const std::vector<Claim>& claims, const model::Results& results);

// Checks class_share claims (loaded with ClaimsTarget::trace) against a trace's class
// tables (trace.json as model::read_trace_result reads it), one verdict per claim in
// order, by the same share rule as a run's breakdown.
std::vector<model::ClaimVerdict> check_trace_claims(const std::vector<Claim>& claims, const model::TraceResult& trace);

// The pairs of runs in `planned` (runs not yet measured, with the catalogue's
// comparisons among them: analysis/results/results.h planned_results) that the claims
// judge on a speedup (`faster`; `ratio` of a time or an achieved rate) and that the
// catalogue does not compare either way, each with the claims that ask for it, in
// claims order: what `lmroof run` times in paired rounds beside the catalogue's
// comparisons, so that every such claim has its pair's paired estimate (issue #45).
// Pairs across two pairs of the catalogue are left out (paired rounds time one pair's
// runs), and so is a claim whose selectors match ambiguously (check_claims says why).
std::vector<model::ClaimedComparison> claimed_comparisons(const std::vector<Claim>& claims, const model::Results& planned);

using model::verdicts_in_report_order;  // analysis/model/results_model.h
// `lmroof check --format json`: schema lmroof.check/1 (docs/claims.md#check-output,
// docs/check-output.schema.json). `model`: {name, source, dims} of the model the runs'
// shapes came from, null without one.
inline constexpr const char* kCheckOutputSchema = "lmroof.check/1";
// From `results` (none: empty lists): `noise_floors`, its A/A floors as they are, each
// with `measurable`; `unmeasurable_pairs`, those beyond kMeasurableFloorBound;
// `controls`, its identity and less-work controls, and `untrustworthy_pairs`, the pairs
// whose control lies beyond the floor: all read from results->findings (analysis/results/findings.h), never recomputed.
nlohmann::json claims_check_json(const std::vector<model::ClaimVerdict>& claims, const std::string& results_file,
                                 const std::string& claims_file, bool strict, const model::ModelConfig* model = nullptr,
                                 const model::Results* results = nullptr);

// 0 when no claim fails, 1 when any fails; with `strict`, 1 also when any is inconclusive.
int claims_exit_code(const std::vector<model::ClaimVerdict>& claims, bool strict = false);

// claims/cs336-lecture3.yaml: the lecture's claims, built in.
std::filesystem::path builtin_claims_path();

}  // namespace lmroof
