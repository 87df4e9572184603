#pragma once
// `lmroof trace --what-if DEVICE`: the trace's step retimed on another device's roofs
// (docs/trace.md, "What if"). Each op shape keeps the efficiency it reached on the
// source against its effective roof, max(compute · wave factor, memory) plus one launch
// floor per kernel, and takes the target's effective roof; kernels below a few launch
// floors stay launch-bound. The kernels are then replayed in their streams' order with
// every start-after-end order of the trace and every gap kept, so overlap between
// streams and host-bound gaps survive. The interval spans two readings of the source's
// time above its roof: scaled with the roof (the point) or kept as it was.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/predict/devices.h"
#include "analysis/trace/trace_analysis.h"
#include "analysis/model/trace_result.h"

namespace lmroof::trace {

// How one op shape (all its calls) moves to the target.
struct OpRetime {
  std::string name, input_dims, input_types;
  OpClass op_class = OpClass::other;
  uint64_t calls = 0, kernels = 0;
  double source_s = 0;                          // device time of all calls on the source
  double predicted_s = 0, low_s = 0, high_s = 0;  // on the target
  std::string source_bound, target_bound;       // compute | memory | launch | communication | no cost
  std::optional<double> source_fraction;        // of the source's effective roof
  std::string why;                              // what moves its time most
  bool kept = false;                            // no cost (or communication): kept as on the source
};

// The pure per-op model, for tests and for what_if(): one op shape, its source
// device time, on the source and target devices. `grid_blocks` 0: no wave factor.
struct RetimeInput {
  OpCost cost;
  uint64_t calls = 0, kernels = 0;
  double device_time_s = 0;
  uint32_t grid_blocks = 0;
  bool cpu_only = false;
};
OpRetime retime_op(const RetimeInput& in, const predict::Device& source, std::optional<int64_t> source_sms,
                   const predict::Device& target);

// ceil(blocks / units) · units / blocks: the time a grid of `blocks` one-block-per-unit
// waves takes against a perfectly divided one (1 when blocks fill whole waves).
double wave_factor(uint64_t blocks, int64_t units);

struct ClassWhatIf {
  OpClass op_class = OpClass::other;
  double source_s = 0, predicted_s = 0, low_s = 0, high_s = 0;
};

struct WhatIf {
  std::string target, target_origin;  // the device's name; "table" or "measured"
  std::string target_source;          // its datasheet or results file
  std::string source;                 // the trace's device (its roofs)
  size_t step_count = 0;              // steps in the window (1 for a whole-trace window)
  double source_total_s = 0, predicted_total_s = 0, low_total_s = 0, high_total_s = 0;  // the window
  double source_busy_s = 0, predicted_busy_s = 0, low_busy_s = 0, high_busy_s = 0;      // the window
  double host_gap_s = 0;  // gaps kept as on the source (idle time between the replayed kernels)
  std::vector<OpRetime> ops;           // by |predicted - source|, largest first
  std::vector<ClassWhatIf> classes;    // every class, source beside predicted
  uint64_t kept_kernels = 0;           // no cost, unattributed, memcpy/memset, communication
  double kept_s = 0;
  uint64_t launch_bound_kernels = 0;
  double launch_bound_s = 0;
  double datasheet_ratio = 1;          // the naive answer: each op at the ratio of its datasheet roofs
  std::vector<std::string> notes;      // what was assumed or not known
};

// Needs the analysis's timeline (AnalysisOptions::keep_timeline) and its source roofs;
// throws model::InputError when the source device is unknown.
WhatIf what_if(const TraceAnalysis& analysis, const predict::Device& target, const std::string& target_origin);
// Several ranks: ops summed by shape, the window and busy times summed as the trace's
// are, the step time the slowest rank's.
WhatIf merge_what_if(const std::vector<WhatIf>& ranks);

// trace.json's what_if[] entry (analysis/model/trace_result.h).
model::TraceWhatIf what_if_result(const WhatIf& w);
// trace.csv's extra columns: per target, predicted, low and high seconds per op row of `analysis`.
std::vector<std::pair<std::string, std::vector<std::string>>> what_if_csv_columns(const TraceAnalysis& analysis,
                                                                                  const std::vector<WhatIf>& targets);

// `compare A/trace.json B/trace.json` where A holds a what_if[] entry for B's device:
// predicted against measured per class and per op, and the busy time's error beside
// the two naive answers; null when A holds no prediction for B's device.
nlohmann::json prediction_versus_measured(const model::TraceResult& base, const model::TraceResult& next);

}  // namespace lmroof::trace
