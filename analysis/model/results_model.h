#pragma once
// results.json as C++ types (docs/results-schema.md). Analysis builds a Results and
// writes it with to_json; the report, the claims checker and the CLI read it back
// with results_from_json and use the fields, never string look-ups.
//
// results_from_json validates every field once: type, finiteness, range, non-negative
// counters, positive times, unique run ids, known schema, string lengths. Unknown keys
// are ignored (adding a field does not bump the schema version); a missing optional
// field reads as "not measured". Problems throw model::InputError, one line:
//   "FILE: /runs/3/time_s/median: must be a positive number (is -1)".
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/model_config/model_config.h"  // PairModelMapping (kernels/model_config.h, data only)
#include "kernels/run_names/pair_catalogue.h"   // VariantImpl, ComparisonDef, IntensityPrediction (data only)
#include "kernels/run_names/op_class.h"        // OpClass

#include "analysis/model/contention_model.h"
#include "analysis/model/declared_fields.h"
#include "analysis/model/input_error.h"
#include "analysis/model/schema.h"
#include "analysis/rules/rules.h"

namespace lmroof::model {

// Named problem-size dimensions ("tokens" -> 4096). Display order comes from the
// catalogue (Catalogue::dimension_order), not from this map.
using Shape = std::map<std::string, int64_t>;

// ---- where the numbers came from ------------------------------------------------

struct Gpu {
  std::string name;
  std::string compute_capability;  // "9.0"
  int64_t sm_count = 0;
  double memory_bytes = 0;
  double l2_bytes = 0;
  std::string driver;
};

// The model config a suite was sized from (`lmroof run --model NAME|config.json`).
struct ModelConfig {
  std::string name;    // "llama-3-8b"
  std::string source;  // "built-in" or the config file given
  std::map<std::string, int64_t> dims;  // d_model, d_ff, q_heads, ...
};

struct Suite {
  std::optional<std::vector<std::string>> pairs;  // nullopt: every pair
  bool quick = false;
  std::optional<ModelConfig> model;
};

struct Machine {
  std::string backend;  // "cpu" | "cuda"
  std::string cpu_model;
  int64_t cores = 0;
  int64_t threads = 0;
  std::string host_pages;  // page size the host buffers asked for (common/host_buffer.h)
  std::string blas;        // the BLAS build and the kernels it ran (bench/machine_context.h)
  std::optional<double> cpu_mhz;
  std::optional<Gpu> gpu;
  std::string compiler, build_type, build_flags;
  std::optional<std::string> cuda_compiler;
  std::string lmroof_version, git_commit;
  std::optional<std::string> bench_date;  // when the benchmarks ran
  std::string date;                        // when analysis wrote the file (ISO 8601 UTC)
  std::string hostname;
  Suite suite;
};

struct Metrics {
  std::string source = "analytic";  // "analytic" | "cupti"
  std::optional<std::string> reason;
  std::optional<std::string> chip;
  std::vector<std::string> metrics;
  std::vector<std::string> dropped_metrics;
  std::optional<int64_t> passes;
};

// ---- the catalogue of pairs (kernels/registry, exported at analysis time) -------

// The pair vocabulary (VariantImpl, ComparisonDef, IntensityPrediction) is the
// registry's own, defined once in kernels/run_names/pair_catalogue.h (data only).
using lmroof::ComparisonDef;
using lmroof::IntensityPrediction;
using lmroof::VariantImpl;
inline constexpr std::string_view kShazeerDecodeModel = "shazeer-decode";

struct CataloguePair {
  std::string name;     // may hold any characters ("moe(top2)"); never used as a path or a CSS id
  std::string title;    // "Norm pair: LayerNorm vs RMSNorm"
  std::string summary;
  std::string chart;    // its report chart id: [a-z0-9-]+, unique ("pair-norm")
  std::vector<VariantImpl> combos;
  std::vector<std::string> dims;          // shape dimensions in display order
  std::vector<std::string> variant_dims;  // dimensions the variant decides (decode's kv_heads)
  std::vector<ComparisonDef> comparisons;
  std::vector<IntensityPrediction> intensity_predictions;  // absent in catalogues older than 2026-12-03
  // PairDef::model_mapping (kernels/model_config.h); absent in catalogues older than
  // 2026-12-04 (predictions are made by `lmroof run --model`, on the catalogue it writes).
  std::optional<PairModelMapping> model_mapping;

  std::vector<std::string> variants() const;  // in combo order, unique
  std::vector<std::string> impls() const;
};

struct Catalogue {
  std::vector<CataloguePair> pairs;          // registry order
  std::vector<std::string> dimension_order;  // every dimension any pair uses
  std::vector<std::string> charts;           // every chart id a claim may link to, page order

  const CataloguePair* find(std::string_view pair) const;
  // The shape's dimensions in dimension_order, unknown names after them.
  std::vector<std::pair<std::string, int64_t>> ordered(const Shape& shape) const;
  // The one text of a run's shape on every surface (`lmroof list`, the report's tables,
  // key results and charts, CSV, `lmroof compare`, `lmroof check`, the fleet report):
  // "batch=2 q_heads=16 kv_heads=16 head_dim=64 context=128", in ordered()'s order,
  // the names in `skip` left out, `separator` between dimensions.
  std::string label(const Shape& shape, std::string_view separator = " ",
                    const std::vector<std::string>& skip = {}) const;
};

// The catalogue of a file that measured ceilings only: the charts that are no pair's.
Catalogue catalogue_without_pairs();

// One dimension order that keeps the relative order of every given sequence (each a
// shape's dimensions as its benchmark name lists them) where they agree; ties, and
// any cycle between sequences that disagree, are broken by first appearance.
// registry_catalogue() builds Catalogue::dimension_order with it, so that every
// surface shows a registry shape's dimensions in its run id's order.
std::vector<std::string> merge_dimension_orders(const std::vector<std::vector<std::string>>& sequences);

// Report chart ids that are not a pair's.
inline constexpr std::string_view kRooflineChart = "roofline";
inline constexpr std::string_view kBlockSharesChart = "block-shares";
inline constexpr std::string_view kRunsTableChart = "runs-table";
// "pair-" + the name reduced to [a-z0-9-] (other characters become '-'); the caller
// makes it unique.
std::string chart_id_for_pair(std::string_view pair);

// ---- measurements --------------------------------------------------------------

// latency: a fixed cost per kernel launch, in seconds (the launch ceilings: an empty
// OpenMP region on the CPU, an empty kernel on CUDA; docs/results-schema.md#ceilings).
enum class CeilingKind { bandwidth, compute, latency };

struct Ceiling {
  std::string name;
  CeilingKind kind = CeilingKind::bandwidth;
  std::string backend;
  double value = 0;  // best repetition, B/s or FLOP/s, > 0; latency: the median, seconds
  std::string source = "measured";  // "measured" | "datasheet"
  // How `value` summarises the repetitions: "best" (bandwidth and compute: the best a
  // machine sustains is its roof, as STREAM reports) or "median" (latency: a fixed cost
  // whose best would be the luckiest call, not what a kernel pays).
  std::string statistic = "best";
  std::string detail;
  int64_t samples = 0;
  // CPU ceilings (bench/ceilings_cpu.cpp): the bytes the benchmark touched, the
  // capacity of the cache level it measures, and the threads it ran.
  std::optional<double> working_set_bytes, cache_bytes;
  std::optional<int64_t> threads;
  // DRAM ceilings measured before and again after the suite: the best repetition of
  // each (value is the larger). Absent for a ceiling measured once.
  std::optional<double> best_before_suite, best_after_suite;
  // read and copy_nt: the best repetition of the same loop probed during the suite
  // (bench/dram_probe.h), when the machine was faster then than at either end; value
  // is the best of all three. Absent when no probe beat them.
  std::optional<double> best_probed_during_suite;
  // Repeats of the whole ceiling measurement (issue #34): how many, and (best - worst)
  // / best over them. unstable: the repeats still disagreed beyond kCeilingSpreadBound
  // after a re-measurement; runs judged against it say so.
  std::optional<int64_t> repeats;
  std::optional<double> spread;
  bool unstable = false;
  // 1 - smaller/larger of the two bests (the larger being a probe's when one raised
  // the roof): how far the roof moved during the run.
  std::optional<double> drift() const {
    if (!best_before_suite || !best_after_suite) return std::nullopt;
    const double top = std::max({*best_before_suite, *best_after_suite, best_probed_during_suite.value_or(0.0)});
    return 1.0 - std::min(*best_before_suite, *best_after_suite) / top;
  }
  std::string_view unit() const {
    return kind == CeilingKind::bandwidth ? "B/s" : kind == CeilingKind::compute ? "FLOP/s" : "s";
  }
};

// A roof whose two bests differ by more than this is called out (run summary, report):
// the fractions of it of the runs measured in between are uncertain by about as much.
inline constexpr double kNotableRoofDrift = rules::kNotableRoofDrift;  // why: analysis/rules/rules.h
// Why: analysis/rules/rules.h.
inline constexpr double kCeilingSpreadBound = rules::kCeilingSpreadBound;
// One point of the memory-bandwidth curve (issue #34): the best read (and copy) rate
// sustained over a working set of `working_set_bytes` on the curve's threads. Runs are
// judged at the rate interpolated at their own working set (BandwidthCurve::read_at).
struct BandwidthPoint {
  double working_set_bytes = 0;
  double read = 0;             // B/s, best repetition
  std::optional<double> copy;  // B/s, best repetition; absent when not measured
  // (best - worst) / best over the repetitions of its last attempt, the largest of its
  // phases (before and after the suite: minutes apart, so only one phase's repeats are
  // compared), as for a ceiling (Ceiling::spread).
  double spread = 0;
  int64_t repetitions = 0;
  // Its repeats spread beyond kCeilingSpreadBound, were measured again, and still did.
  bool unstable = false;
};

// The level ceiling a curve level is checked against ("L2" -> "l2_read"; "DRAM" ->
// "read" on the CPU, "HBM" -> "dram_read" on CUDA); nullopt for a name it does not know.
// Here, with the data, because both the analysis (analysis/roofs/curve_agreement) and
// the reader of results.json (an agreement names the pair) apply it.
inline std::optional<std::string> level_ceiling_name(const std::string& level, const std::string& backend) {
  if (level == "L1" || level == "L2" || level == "L3") return std::string("l") + level[1] + "_read";
  if (level == "DRAM" && backend == "cpu") return std::string("read");
  if (level == "HBM" && backend == "cuda") return std::string("dram_read");
  return std::nullopt;
}

// The curve checked against a level's ceiling (analysis/roofs/curve_agreement.h): the
// curve's read rate at the ceiling's own working set against the ceiling's value. They
// time the same loop over the same set on the same threads, so they differ only by the
// machine's state between them (issue #34: a whole curve 40% low).
struct CurveAgreement {
  std::string level;    // "L1" | "L2" | "L3" | "DRAM"; GPU: "L2" | "HBM"
  std::string ceiling;  // "l1_read" | "l2_read" | "l3_read" | "read"
  double ceiling_value = 0;       // B/s, the ceiling (its best)
  double working_set_bytes = 0;   // the ceiling's
  double curve_value = 0;         // B/s, the curve's read rate there
  double ratio = 0;               // curve_value / ceiling_value
  double tolerance = 0;           // rules::kCurveCeilingAgreement + the larger repeat spread
  // The level's own rate (MemoryLevel::bandwidth, its plateau's median) against the same
  // ceiling: a plateau read off the wrong points (a DRAM level from the L3's, issue 47
  // #17) disagrees here while the curve at the ceiling's set agrees. Absent in files
  // written before it.
  std::optional<double> level_value;  // B/s
  bool agrees = false;            // |ratio - 1| <= tolerance, and |level_value / ceiling_value - 1| too
  // Whether the values above say it agrees (the reader holds `agrees` to it).
  bool values_agree() const {
    return std::abs(ratio - 1) <= tolerance && (!level_value || std::abs(*level_value / ceiling_value - 1) <= tolerance);
  }
};

// A plateau of the curve: a cache level (or DRAM / HBM) and the read rate inside it.
struct MemoryLevel {
  std::string name;                      // "L1" | "L2" | "L3" | "DRAM"; GPU: "L2" | "HBM"
  std::optional<double> capacity_bytes;  // absent for DRAM / HBM
  double bandwidth = 0;                  // B/s
};

struct BandwidthCurve {
  std::string backend;                 // "cpu" | "cuda"
  int64_t threads = 0;
  std::vector<BandwidthPoint> points;  // ascending working_set_bytes, at least two
  std::vector<MemoryLevel> levels;     // ascending capacity, DRAM / HBM last
  // The curve against the level ceilings, one entry per level that has both.
  std::vector<CurveAgreement> agreement;
  // A level's curve disagreed with its ceiling beyond the tolerance: the curve is not
  // used to judge runs, which are judged at the level ceilings instead; the reason says
  // which level and by how much. (A curve from a file written before the check: false.)
  bool unstable = false;
  std::optional<std::string> unstable_reason;
  // Read rate (B/s) at a working set of `bytes`: linear in log(bytes) between the two
  // nearest points; the end point's rate outside the measured range.
  double read_at(double bytes) const {
    if (points.empty()) return 0;
    if (bytes <= points.front().working_set_bytes) return points.front().read;
    for (size_t i = 1; i < points.size(); ++i) {
      const BandwidthPoint& a = points[i - 1];
      const BandwidthPoint& b = points[i];
      if (bytes <= b.working_set_bytes) {
        const double t = std::log(bytes / a.working_set_bytes) / std::log(b.working_set_bytes / a.working_set_bytes);
        return a.read + t * (b.read - a.read);
      }
    }
    return points.back().read;
  }
};

// The ceilings the roofline uses, by name (each names an entry of Results::ceilings).
struct Roofs {
  std::optional<std::string> bandwidth, vector, matrix, l2_bandwidth;
  // t0, the launch ceiling (a latency ceiling): runs within kLatencyBoundFactor of it
  // are latency-bound. Absent: `launch_reason` says why (a file written before lmroof
  // measured one, or the ceiling was skipped); never a made-up value.
  std::optional<std::string> launch;
  std::optional<std::string> launch_reason;
};

// A run whose median time is at most this many times the launch ceiling t0 is
// latency-bound: the fixed cost per launch, not bytes or FLOPs, holds most of it.
inline constexpr double kLatencyBoundFactor = rules::kLatencyBoundFactor;  // why: analysis/rules/rules.h

struct TimeStats {
  double median = 0, min = 0, max = 0, mean = 0, cv = 0;
  std::vector<double> samples;  // seconds per repetition, each > 0
  template <class F>
  void fields(F& f) {
    f("median", median, Range::positive)("min", min, Range::positive)("max", max, Range::positive)
        ("mean", mean, Range::positive)("cv", cv)("samples", samples, Range::positive);
  }
  void check(const JsonCursor& c) const;  // min at most max; at least one sample
};

struct Flops {
  double total = 0, matrix = 0, vector = 0, special = 0;
  std::string source = "analytic";  // "analytic" | "cupti"
  double analytic_total = 0;
  template <class F>
  void fields(F& f) {
    f("total", total)("matrix", matrix)("vector", vector)("special", special)("source", source)
        .defaulted("analytic_total", analytic_total);
  }
  // Reading: source is one of the two; analytic_total, absent in older files, is the total.
  void check(const JsonCursor& c);
};

struct Bytes {
  double minimum = 0;
  double model = 0;
  std::optional<double> measured;  // DRAM bytes from counters
  std::optional<std::string> measured_source;
  std::optional<std::string> measured_reason;  // why not measured
  std::optional<double> measured_l2;
  std::optional<double> model_over_minimum;
  std::optional<double> measured_over_minimum;
  template <class F>
  void fields(F& f) {
    f("minimum", minimum)("model", model, Range::positive).defaulted("measured", measured)
        .defaulted("measured_source", measured_source).defaulted("measured_reason", measured_reason)
        .defaulted("measured_l2", measured_l2).defaulted("model_over_minimum", model_over_minimum)
        .defaulted("measured_over_minimum", measured_over_minimum);
  }
  void check(const JsonCursor& c) const;  // measured_source "cupti"
};

enum class BytesBasis { model, measured };

struct Intensity {
  double value = 0;  // FLOPs per byte, bytes of kind `bytes`
  BytesBasis bytes = BytesBasis::model;
  std::optional<double> minimum;  // null when bytes.minimum is 0
  double model = 0;
  std::optional<double> measured;
  std::optional<double> measured_l2;
  template <class F>
  void fields(F& f) {
    f("value", value)("bytes", bytes).defaulted("minimum", minimum)("model", model).defaulted("measured", measured)
        .defaulted("measured_l2", measured_l2);
  }
};

struct Achieved {
  double flop_per_s = 0, byte_per_s = 0, byte_per_s_minimum = 0;
  template <class F>
  void fields(F& f) {
    f("flop_per_s", flop_per_s)("byte_per_s", byte_per_s)("byte_per_s_minimum", byte_per_s_minimum);
  }
};

struct RooflinePlacement {
  std::optional<std::string> bandwidth_roof;
  std::optional<double> bandwidth;
  std::optional<std::string> compute_roof;
  std::optional<double> compute;
  std::optional<double> ridge;
  std::optional<double> attainable_flop_per_s;
  std::optional<double> efficiency;
  std::optional<double> bandwidth_utilization;
  std::optional<std::string> l2_bandwidth_roof;
  std::optional<double> l2_bandwidth;
  std::optional<double> l2_bandwidth_utilization;
  // The launch ceiling t0 (seconds) the run's time is held against: latency-bound at
  // or below kLatencyBoundFactor x launch.
  std::optional<std::string> launch_roof;
  std::optional<double> launch;
  template <class F>
  void fields(F& f) {
    f.defaulted("bandwidth_roof", bandwidth_roof).defaulted("bandwidth", bandwidth, Range::positive)
        .defaulted("compute_roof", compute_roof).defaulted("compute", compute, Range::positive)
        .defaulted("ridge", ridge, Range::positive).defaulted("attainable_flop_per_s", attainable_flop_per_s)
        .defaulted("efficiency", efficiency).defaulted("bandwidth_utilization", bandwidth_utilization)
        .defaulted("l2_bandwidth_roof", l2_bandwidth_roof).defaulted("l2_bandwidth", l2_bandwidth, Range::positive)
        .defaulted("l2_bandwidth_utilization", l2_bandwidth_utilization).defaulted("launch_roof", launch_roof)
        .defaulted("launch", launch, Range::positive);
  }
  void check(const JsonCursor& c) const;  // each roof's name and value go together
};

// latency: the median time is within kLatencyBoundFactor of the launch ceiling.
enum class Bound { memory, compute, latency };

// The speed of light `lmroof predict` gives this run from the ceilings of the same
// results (analysis/predict/run_prediction.h): per op max(F/P, B/W) + t0, summed.
struct PredictedTime {
  double time_s = 0;      // > 0
  std::string bound;      // "memory" | "compute" | "latency": the term holding most of it
  double error = 0;       // (time_s - measured median) / measured median; negative: optimistic
  std::string ops;        // the ops predicted, "qkv+rope+attention+o_proj"
  std::string basis;      // the roofs and model used, one line
  // results.json's fields, declared once (declared_fields.h): the reader and the writer.
  template <class F>
  void fields(F& f) {
    f("time_s", time_s, Range::positive)("bound", bound)("error", error, Range::any)("ops", ops)("basis", basis);
  }
  void check(const JsonCursor& c) const;  // bound is one of the three
};

// "Speed of light": the roof this run is judged against by its traffic and working
// set (analysis/roofs/roof_choice.h, docs/cost-model.md), and its fraction of it.
struct JudgedAgainst {
  std::optional<std::string> roof;  // nullopt: not judged, `reason` says why
  std::string unit;                 // "B/s" | "FLOP/s"
  double value = 0;                 // the roof's rate for this run's traffic
  double seconds = 0;               // the run's time at that roof
  double fraction = 0;              // seconds / measured median
  std::string rule;
  std::optional<std::string> reason;
  // Where its bytes are judged to come from ("L1" | "L2" | "L3" | "DRAM"; GPU "L2" |
  // "HBM"): the bandwidth curve's level that holds its working set, or, in files without
  // a curve, the cache roof the nominal rule chose. Absent in files from before #34.
  std::optional<std::string> level;
  std::optional<double> working_set_bytes;  // the working set it was judged at, bytes
  // Judged against the sum of its steps' roof times, one step per operator class
  // (Σ max(F_i/P, B_i/W), the time-based roofline): a composite run (the block).
  bool composite = false;
  // The ceilings this judgement uses that are marked unstable (Ceiling::unstable).
  std::vector<std::string> unstable_ceilings;
};

// Why: analysis/rules/rules.h.
inline constexpr double kAboveRoofFault = rules::kAboveRoofFault;
inline bool above_roof(const std::optional<JudgedAgainst>& j) { return j && j->roof && j->fraction > kAboveRoofFault; }

// A judgement's fraction of its roof (the speed of light), nullopt when it has no roof
// (not judged) or there is no judgement.
inline std::optional<double> sol_fraction(const std::optional<JudgedAgainst>& j) {
  return j && j->roof ? std::optional(j->fraction) : std::nullopt;
}

// The DRAM roofs probed right after each repetition of a CPU run that streams from
// DRAM (bench/dram_probe.h): medians over the repetitions, B/s.
struct DramProbe {
  double read = 0;
  double copy_nt = 0;
  int64_t samples = 0;
  // The best probe of the repetitions (B/s): a roof is a peak, so the run is judged
  // against these (judged_against_probe); absent in files written before they were kept.
  std::optional<double> read_best{}, copy_nt_best{};  // {}: an initializer may leave them out
  template <class F>
  void fields(F& f) {
    f("read", read, Range::positive)("copy_nt", copy_nt, Range::positive)("samples", samples, Range::positive)
        .optional("read_best", read_best, Range::positive).optional("copy_nt_best", copy_nt_best, Range::positive);
  }
  void check(const JsonCursor& c) const;  // samples at most 2^30; the best at least the median
};

struct ClassShare {
  OpClass op_class = OpClass::other;  // JSON "class"
  double flops = 0, flop_share = 0, bytes_model = 0;
  std::optional<double> time_s, time_share;
  template <class F>
  void fields(F& f) {
    f("class", op_class)("flops", flops)("flop_share", flop_share, Range::fraction)("bytes_model", bytes_model)
        .defaulted("time_s", time_s).defaulted("time_share", time_share, Range::fraction);
  }
};

struct Breakdown {
  std::string time_source;  // "phase_timers" | "cupti" | "none"
  std::vector<ClassShare> classes;
  template <class F> void fields(F& f) { f("time_source", time_source)("classes", classes); }
  void check(const JsonCursor& c) const;  // time_source is one of the three
};

struct KernelTime {
  std::string name;
  OpClass op_class = OpClass::other;  // JSON "class"
  std::vector<int64_t> grid, block;
  double time_s = 0, share = 0;
  template <class F>
  void fields(F& f) {
    f("name", name)("class", op_class)("grid", grid)("block", block)("time_s", time_s)
        ("share", share, Range::fraction);
  }
  void check(const JsonCursor& c) const;  // grid and block: launch dimensions (json_input.h)
};

struct Kernels {
  std::string source = "cupti_trace";
  bool available = false;
  std::optional<std::string> reason;
  int64_t dropped_records = 0;
  double total_s = 0;
  std::vector<KernelTime> list;
  template <class F>
  void fields(F& f) {
    f("source", source)("available", available).defaulted("reason", reason)
        .defaulted("dropped_records", dropped_records)("total_s", total_s)("list", list);
  }
  void check(const JsonCursor& c) const;  // dropped_records a count (at most 2^50)
};

// The kernel's check against its float64 reference, on small fresh inputs, before it
// was timed (bench/validate_before_timing.h): a run that failed it was not timed.
struct Validated {
  double error = 0;  // the worst norm-wise relative error over the shapes checked
  double tolerance = 0;
  int64_t shapes = 0;  // how many shapes were checked
  Shape shape;         // the one with the worst error over tolerance
};

struct Run {
  std::string id;
  std::string pair, variant, impl, backend, dtype;
  Shape shape;
  TimeStats time_s;
  Flops flops;
  Bytes bytes;
  Intensity intensity;
  Achieved achieved;
  RooflinePlacement roofline;
  std::optional<Bound> bound;
  std::optional<JudgedAgainst> judged_against;
  // The same judgement against the DRAM roofs as probed next to this run (read and
  // copy_nt replaced by dram_probe's medians): what the machine allowed while it ran.
  std::optional<DramProbe> dram_probe;
  std::optional<JudgedAgainst> judged_against_probe;
  // An analytic prediction of this run's intensity, where the pair has one (the
  // attention pair's decode: Shazeer 2019, analysis/roofs/attention_intensity.h). FLOP/byte.
  std::optional<double> predicted_intensity;
  std::optional<Breakdown> breakdown;
  std::optional<Kernels> kernels;
  std::optional<Validated> validated;  // absent in files from before 2026-12-03
  // `lmroof run --model M`: this run predicted by `lmroof predict`'s per-op model from
  // the ceilings of the same file; absent for other runs and older files.
  std::optional<PredictedTime> predicted;
  // What the machine gave its repetitions (contention_model.h); absent: not measured.
  std::optional<RunContention> contention;
};

struct Skipped {
  std::string id;
  std::string reason;
};

struct ComparedRun {
  std::string variant, impl, run;
};

// A comparison timed in paired, interleaved rounds (bench/paired_rounds.h): the
// speedup from the per-round log-ratios, exp of their Hodges-Lehmann estimate, with
// the Wilcoxon signed-rank interval (analysis/stats/paired_statistics.h, docs/claims.md#paired).
struct PairedRounds {
  int64_t rounds = 0;
  double speedup = 0;
  std::optional<double> low, high;  // absent: too few rounds for an interval
  // How many of `rounds` the re-measurement added (`lmroof run --remeasure-budget`,
  // docs/claims.md#re-measurement); 0 without one.
  int64_t extra_rounds = 0;
  // With extra rounds, each sitting's own speedup (the suite's rounds, then the
  // re-measurement's, taken at the end of the run): the machine's state can move a
  // ratio between sittings by more than the rounds of one sitting vary (fused RMSNorm
  // vs LayerNorm measured 1.08x in one default run and 1.14x in the next), so [low,
  // high] is stretched to cover each of them (docs/claims.md#sittings). Empty with one
  // sitting ({}: an initializer may leave it out).
  std::vector<double> sittings{};
  // What the machine gave the rounds (contention_model.h); absent: not measured.
  std::optional<RunContention> contention{};
  bool has_interval() const { return low && high; }
};

// A pair's A/A noise floor: one run timed against a second workload of itself in
// paired rounds. `floor` is the interval's relative half-width, max(high, 1/low) - 1:
// a difference within ±floor is one this machine cannot tell from none.
struct NoiseFloor {
  std::string pair;
  std::string run;  // the run id timed against itself
  PairedRounds rounds;
  double floor = 0;
};

struct Comparison {
  std::string pair, question;
  // Not a catalogue comparison: the ids of the claims that asked for these two runs to
  // be timed in paired rounds (model::ClaimedComparison); empty for the catalogue's.
  std::vector<std::string> claimed_by;
  ComparedRun baseline, candidate;
  Shape shape;
  std::string backend, dtype;
  double speedup = 0;      // baseline median time / candidate median time
  double bytes_ratio = 0;  // candidate / baseline bytes (basis below)
  BytesBasis bytes_basis = BytesBasis::model;
  double flops_ratio = 0;
  // The speedup's statistics from the two runs' repetitions (stats::estimate_speedup,
  // docs/claims.md#noise): the one noise figure of this comparison, shown wherever it is.
  // noise: relative half-width of the interval (infinity, JSON null, when either run has
  // fewer than 3 repetitions: no interval).
  double noise = 0;
  std::optional<double> speedup_low, speedup_high;  // 95% bootstrap interval of the speedup
  std::optional<double> p_value;                     // two-sided Mann-Whitney U test
  std::optional<double> hodges_lehmann;              // median of baseline_i / candidate_j
  int64_t repetitions = 0;                           // the smaller side's
  // How far the machine's DRAM read bandwidth moved between the two runs, from their
  // probes (probed_drift); nullopt unless both were probed. The claims widen the
  // interval by it (docs/claims.md#noise).
  std::optional<double> machine_drift;
  // The same comparison timed in paired rounds, when `lmroof run` took them (CPU). The
  // claims judge by it where present: drift common to both sides cancels in it.
  std::optional<PairedRounds> paired;
  // The two sides judged at different memory levels (JudgedAgainst::level, issue #34):
  // how much of the speedup the bytes ratio explains and how much the change of level,
  // one sentence ("of which ~2x is a change of level: mha from DRAM, gqa from L3 ...").
  std::optional<std::string> level_change;
  bool has_interval() const { return speedup_low && speedup_high; }
};

// max/min - 1 of two runs' probed DRAM read bandwidths (Run::dram_probe): drift
// between the runs that their own repetitions cannot show. nullopt unless both have one.
// larger / smaller - 1 of two positive bandwidths.
inline double drift_between(double a, double b) { return std::max(a, b) / std::min(a, b) - 1; }

inline std::optional<double> probed_drift(const Run& a, const Run& b) {
  if (!a.dram_probe || !b.dram_probe || !(a.dram_probe->read > 0) || !(b.dram_probe->read > 0)) return std::nullopt;
  return drift_between(a.dram_probe->read, b.dram_probe->read);
}

// The run's ridge point with its DRAM roof as probed next to it (Run::dram_probe: the
// best probe of its repetitions, else their median) instead of the ceiling measured
// before or after the suite: compute roof / the probed rate of its bandwidth roof. The
// DRAM rate of a shared machine moves 30-45% within minutes (issue 45), and a bound
// verdict judged at a ceiling taken minutes away flipped with it (decode at batch 16:
// 1.21x, 1.26x, 1.40x, 1.47x the ceilings' ridge in four default runs; 1.10-1.24x
// the probed one). nullopt unless the run has a probe and its bandwidth roof is one
// the probe measures (read, copy_nt) and a compute roof.
inline std::optional<double> probed_ridge(const Run& run) {
  const auto& r = run.roofline;
  if (!run.dram_probe || !r.compute || !(*r.compute > 0) || !r.compute_roof || !r.bandwidth_roof) return std::nullopt;
  const DramProbe& p = *run.dram_probe;
  double rate = 0;
  if (*r.bandwidth_roof == "read")
    rate = p.read_best.value_or(p.read);
  else if (*r.bandwidth_roof == "copy_nt")
    rate = p.copy_nt_best.value_or(p.copy_nt);
  if (!(rate > 0)) return std::nullopt;
  return *r.compute / rate;
}

// The speedup baseline time / candidate time widened for the machine's move between
// the two runs, on the side that move can explain: ratio = candidate's probed read
// bandwidth / baseline's. A machine faster during the candidate (ratio > 1) can
// shorten the candidate's time by up to that factor, so the true speedup may be as
// low as speedup / ratio; a slower one (ratio < 1) can only hide a speedup, up to
// speedup / ratio. A move cannot explain a change the other way.
inline void widen_for_drift(double speedup, double baseline_read, double candidate_read, double& low, double& high) {
  if (!(baseline_read > 0) || !(candidate_read > 0)) return;
  const double ratio = candidate_read / baseline_read;
  if (ratio == 1) return;
  if (ratio > 1)
    low = std::min(low, speedup / ratio);
  else
    high = std::max(high, speedup / ratio);
}

// ---- claim verdicts (docs/claims.md) ---------------------------------------------

enum class Verdict { holds, fails, inconclusive, not_measured };
// What decided a claim (docs/claims.md#evidence): "measured" (times or hardware counters
// of this machine) or "model" (the cost model's FLOPs and bytes, which a run cannot
// contradict). Counted apart.
enum class EvidenceKind { measured, model };
// What decided a fails or inconclusive verdict (analysis/claims/verdict_cause.h,
// docs/claims.md#causes), in the order the rules are tried.
enum class Cause { architecture, implementation, machine, noise };

struct Evidence {
  std::optional<std::string> run;  // null for derived numbers (speedup, slope)
  std::string metric;
  std::optional<double> value;
};

// How many of a claim's cases (shapes, run pairs or series) came out each way; the
// claim's verdict follows from them by the rule in docs/claims.md#aggregation.
struct CaseTally {
  int64_t holds = 0, fails = 0, inconclusive = 0, not_measured = 0;
  int64_t judged() const { return holds + fails + inconclusive; }
};

struct ClaimVerdict {
  std::string id, statement, source, kind;
  Verdict verdict = Verdict::not_measured;
  EvidenceKind evidence_kind = EvidenceKind::measured;  // JSON: "measured" | "model"
  CaseTally cases;
  std::string expected, measured;
  std::vector<Evidence> evidence;
  std::optional<std::string> reason;
  // fails and inconclusive: what decided it (JSON "architecture" | "implementation" |
  // "machine" | "noise"), and one clause why.
  std::optional<Cause> cause;
  std::optional<std::string> cause_detail;
  // Set when a pair of its evidence has an identity control beyond that pair's noise
  // floor (Findings::controls), or rests on a run above its roof: why the verdict cannot be trusted.
  std::optional<std::string> untrustworthy;
  std::string chart;
  std::string claims_file;
};

// The claims in the order the report and `lmroof check` show them: failing first, then
// inconclusive, not measured, holding (file order within each). Part of the check
// JSON's definition (docs/claims.md#check-output), so it sits with the type.
inline std::vector<const ClaimVerdict*> verdicts_in_report_order(const std::vector<ClaimVerdict>& claims) {
  auto rank = [](Verdict v) {
    switch (v) {
      case Verdict::fails: return 0;
      case Verdict::inconclusive: return 1;
      case Verdict::not_measured: return 2;
      case Verdict::holds: return 3;
    }
    return 4;
  };
  std::vector<const ClaimVerdict*> out;
  for (const auto& c : claims) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [&](const auto* a, const auto* b) { return rank(a->verdict) < rank(b->verdict); });
  return out;
}

// ---- what the analysis decided from the above (not in results.json) ----------------
// Derived once, when the analysis builds or reads a Results (lmroof::decide,
// analysis/results/findings.h); the claims, the reports and the CLI read these fields
// and compute none of them again.

// A comparison whose true speedup is known by the cost model (identity: the same work on
// both sides, 1; less_work: the baseline does strictly less work, not slower), timed in
// paired rounds: a control of the measurement (docs/claims.md#identity-controls).
enum class ControlKind { identity, less_work };

struct IdentityControl {
  ControlKind kind = ControlKind::identity;
  std::string pair, baseline, candidate;  // run ids
  std::string label;                      // "sliding vs full, context=2048": the dims its pair's comparisons vary in
  Shape shape;
  PairedRounds paired;                    // has an interval
  std::optional<double> floor;            // the pair's A/A floor; absent: none measured
  // identity: the interval lies wholly outside [1/(1+floor), 1+floor]; less_work: wholly
  // above 1+floor (the less-work baseline slower). A measurement fault either way.
  bool beyond_floor = false;
};

// What a comparison shows by the claims' rule (docs/claims.md#paired).
enum class Shown { faster, slower, within_noise, no_interval };

struct ComparisonEvidence {
  Shown shown = Shown::no_interval;
  bool paired = false;  // from paired rounds; else from the runs' repetitions
  double speedup = 0;
  std::optional<double> low, high;
  int64_t rounds = 0;           // paired rounds, or the smaller side's repetitions
  std::optional<double> floor;  // the pair's A/A floor
  std::vector<double> sittings;  // each sitting's speedup, with two (PairedRounds::sittings)
};

// A run above kAboveRoofFault of its judged roof: a measurement fault (docs/claims.md#roof-faults).
struct RoofFault {
  std::string run;
  std::string roof;
  double fraction = 0;  // of the judged roof, > kAboveRoofFault
  bool probed = false;  // judged against the DRAM roofs probed next to it (judged_against_probe)
};

// Of a run's judgements (the suite's roof, and the roof probed next to it), the one that
// leaves it the smaller fraction, the more peak-like roof; nullptr when neither has one.
// `probed` says which. A roof fault is a run above kAboveRoofFault of this one
// (decided once: Findings::roof_faults).
inline const JudgedAgainst* kindest_judgement(const Run& r, bool* probed = nullptr) {
  const JudgedAgainst* kindest = nullptr;
  for (const auto* j : {&r.judged_against, &r.judged_against_probe})
    if (sol_fraction(*j) && (!kindest || (*j)->fraction < kindest->fraction)) {
      kindest = &**j;
      if (probed) *probed = j == &r.judged_against_probe;
    }
  return kindest;
}

// The spread of a run's repetitions, slowest / fastest (1 with one repetition).
inline double repetition_spread(const Run& r) { return r.time_s.min > 0 ? r.time_s.max / r.time_s.min : 1.0; }
// A disturbed run (rules::kDisturbedSpread): its median may stand for the disturbance.
// The claims decide nothing on its median alone; the charts mark it.
inline bool is_disturbed(const Run& r) { return repetition_spread(r) > rules::kDisturbedSpread; }

// A run judged against ceilings marked unstable (Ceiling::unstable).
struct UnstableJudgement {
  std::string run;
  std::vector<std::string> ceilings;
};

// How far `lmroof predict`'s model is from the measurements (runs[].predicted), over the
// runs that took at least rules::kPredictionCheckMinTime.
struct PredictionErrors {
  int64_t predicted = 0;        // runs with a prediction
  int64_t long_runs = 0;        // of them, at least the minimum time measured
  int64_t within_25pct = 0;     // long runs with |error| <= 25%
  double median_abs_error = 0;  // over the long runs
  double worst_error = 0;       // the long run with the largest |error| (signed)
  std::string worst_run;
};

struct Interval {
  double low = 0, high = 0;
};

// The bounds the findings were decided by (analysis/rules/rules.h says why each), kept
// with them so that the reports say a bound without reading a rule.
struct DecisionBounds {
  double roof_fault = kAboveRoofFault;                     // a run above this fraction of its roof: a fault
  double measurable_floor = rules::kMeasurableFloorBound;  // an A/A floor beyond it: not measurable here
  double ceiling_spread = kCeilingSpreadBound;             // repeats spread beyond it: an unstable ceiling
  double latency_bound = kLatencyBoundFactor;              // within this many times the launch ceiling: latency-bound
};

// One line of the first screen's warnings box and of `check --format json`'s
// `warnings` (issue 45): what the measurement is worth, each with its figure.
enum class WarningKind {
  contention,            // the machine was busy: share and the busiest other process
  disturbed_runs,        // runs whose slowest repetition took > rules::kDisturbedSpread x the fastest
  roof_faults,           // runs above their roof
  unstable_ceilings,     // ceilings whose repeats disagreed after a re-measurement
  curve_set_aside,       // the bandwidth curve disagreed with a level ceiling
  roofs_moved,           // DRAM roofs that moved during the run
  unmeasurable_pairs,    // A/A floors beyond rules::kMeasurableFloorBound
  untrustworthy_claims,  // verdicts a control or a fault makes untrustworthy
};
std::string_view to_string(WarningKind kind);  // "contention", "disturbed_runs", ...
struct Warning {
  WarningKind kind = WarningKind::contention;
  std::string text;  // one line, with its figure
};

struct Findings {
  // Identity controls first, then less-work controls, each in comparisons order.
  std::vector<IdentityControl> controls;
  std::set<std::string> untrustworthy_pairs;    // a control of theirs beyond its floor
  std::vector<std::string> unmeasurable_pairs;  // A/A floor beyond rules::kMeasurableFloorBound, floors order
  std::vector<ComparisonEvidence> comparison_evidence;  // one per Results::comparisons, same order
  std::vector<RoofFault> roof_faults;                   // results order
  std::vector<UnstableJudgement> unstable_judgements;   // results order
  // Run id -> the memory level its judged roof stands for (judged_against): "L1" ...
  // "DRAM"; runs without one are absent.
  std::map<std::string, std::string, std::less<>> judged_levels;
  // Run id -> the 95% bootstrap interval of its median time (runs of 3 or more repetitions).
  std::map<std::string, Interval, std::less<>> median_intervals;
  PredictionErrors prediction_errors;
  // "read 13%, copy_nt 27%": the ceilings that moved by more than kNotableRoofDrift
  // between before and after the suite; empty when none did.
  std::string roofs_that_moved;
  DecisionBounds bounds;
  // Runs whose repetitions stayed contended (RunContention::is_contended), and the
  // comparisons (by index in Results::comparisons) whose paired rounds did; results order.
  std::vector<std::string> contended_runs;
  std::vector<size_t> contended_comparisons;
  // Runs whose slowest repetition took more than rules::kDisturbedSpread x the fastest.
  std::vector<std::string> disturbed_runs;
  // "busy: 48% of a core taken by `chromium`" (or what else took the cores), the reason
  // verdicts on contended runs give; empty when nothing was contended.
  std::string busy;
  // Everything above that lowers what the measurement is worth, with its figure, in
  // the order the first screen lists them (decide; the claims' line is refreshed when
  // the claims are checked: refresh_warnings).
  std::vector<Warning> warnings;
};

// ---- the document -----------------------------------------------------------------

struct Results {
  Machine machine;
  Metrics metrics;
  Catalogue catalogue;
  std::vector<Ceiling> ceilings;
  // Read bandwidth over working-set sizes (issue #34); absent in files written before it.
  std::optional<BandwidthCurve> bandwidth_curve;
  // What the machine gave the measurement (bench/contention.h); absent in files
  // written before it was measured, or where /proc could not be read.
  std::optional<MachineContention> contention;
  Roofs roofs;
  std::vector<Run> runs;
  std::vector<Skipped> skipped;
  std::vector<Comparison> comparisons;
  // One A/A control per pair with paired rounds (bench/paired_rounds.h); empty for
  // files without them.
  std::vector<NoiseFloor> noise_floors;
  std::vector<ClaimVerdict> claims;
  std::string bench_json = std::string(formats::kBenchJson);
  // Set by lmroof::decide (analysis/results/findings.h): build_results and load_results
  // call it. Not written to results.json.
  std::optional<Findings> findings;

  // The findings; throws std::logic_error when the analysis has not decided them (a
  // Results built by hand: call lmroof::decide first).
  const Findings& decided() const;
  // The evidence of one of this document's comparisons (Findings::comparison_evidence).
  const ComparisonEvidence& evidence(const Comparison& comparison) const;
  // The memory level a run is judged at (Findings::judged_levels), nullopt when none.
  std::optional<std::string> judged_level(const Run& run) const;
  // The run's fault above its roof (Findings::roof_faults), nullptr when it has none.
  const RoofFault* roof_fault(const Run& run) const;

  const NoiseFloor* noise_floor(std::string_view pair) const;
  // The comparison of exactly these two runs, baseline first; nullptr when none.
  const Comparison* comparison(std::string_view baseline_run, std::string_view candidate_run) const;

  const Ceiling* ceiling(std::string_view name) const;
  const Run* run(std::string_view id) const;  // O(log n) after index(); linear before
  // Builds the id index (from_json calls it); false when two runs share an id.
  bool index();
  // Pairs that have runs, in catalogue order, then any the catalogue lacks.
  std::vector<std::string> pairs_present() const;

 private:
  std::map<std::string, size_t, std::less<>> run_index_;
};

// ---- names -------------------------------------------------------------------------

std::string_view to_string(CeilingKind kind);
std::string_view to_string(BytesBasis basis);
// Intensity's "bytes": "model" or "measured".
void read_field(const JsonCursor& c, BytesBasis& basis, Range);
inline nlohmann::json write_field(BytesBasis basis) { return std::string(to_string(basis)); }
inline void visit_strings(BytesBasis&, const StringRewrite&) {}
std::string_view to_string(Bound bound);
std::string_view to_string(Verdict verdict);  // "not measured" with a space
std::string_view to_string(EvidenceKind kind);  // "measured" | "model"
std::string_view to_string(Cause cause);        // "architecture" | "implementation" | "machine" | "noise"
std::string_view to_string(Shown shown);      // "faster" | "slower" | "within noise" | "no interval"

// ---- JSON ------------------------------------------------------------------------

// Validates and converts; `file` names the document in errors. Throws InputError.
Results results_from_json(const nlohmann::json& doc, const std::string& file);
// Reads, parses (depth- and size-limited) and validates a results file.
Results load_results(const std::filesystem::path& path);

nlohmann::json to_json(const Results& results);
nlohmann::json to_json(const Run& run);
nlohmann::json to_json(const Catalogue& catalogue);
nlohmann::json to_json(const ClaimVerdict& verdict);
nlohmann::json to_json(const Suite& suite);
nlohmann::json to_json(const Metrics& metrics);
nlohmann::json to_json(const Machine& machine);

// A claim verdict as to_json wrote it (results.json's claims[], trace.json's claims[]).
ClaimVerdict claim_verdict_from_json(const JsonCursor& c);
Catalogue catalogue_from_json(const nlohmann::json& doc, const std::string& file);
Suite suite_from_json(const nlohmann::json& doc, const std::string& file);
Metrics metrics_from_json(const nlohmann::json& doc, const std::string& file);

// ---- a run's numbers by name (claims metrics, docs/claims.md#metrics) ----------------

// Every "object.field" name a claim may use ("time_s.median", "bytes.model", ...).
const std::vector<std::string>& run_metric_names();
bool is_run_metric(std::string_view name);
// The value of a named metric on a run; nullopt when it was not measured. Throws
// std::invalid_argument for a name run_metric_names() lacks.
std::optional<double> run_metric(const Run& run, std::string_view name);

}  // namespace lmroof::model
