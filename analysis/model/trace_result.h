#pragma once
// trace.json (schema lmroof.trace/2, docs/trace.schema.json): what `lmroof trace` found
// in a profiler trace, as one typed model (issue 43, "one model, one checker"). Each
// field is declared once, in its type's fields() (analysis/model/declared_fields.h), and
// the one reader and the one writer come from that list: `lmroof trace` builds the model
// (analysis/trace/trace_output.h) and writes it; its page and its text read the fields
// by name (reports/trace_report.h, reports/text/trace_text.h); `check` and `compare`
// read a file back through read_trace_result, which checks every field's presence, type
// and range once: a hand-edited or truncated file is one line naming the file and the
// field, never a library's "key not found" (issue 47, defect 7).
//
// Numbers are finite and at least 0 unless declared Range::any. Required (`f(...)`): the
// fields `check` and `compare` read, as every file of schema 2 holds them. Every other
// field is `defaulted`: written always, and a file without it (an older lmroof's, or a
// hand-made one) reads as the default (empty, zero, null); present, it is checked as the
// required ones are. `optional`: written only when there is something to say.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model/declared_fields.h"
#include "analysis/model/results_model.h"

namespace lmroof::model {

// The roofs the ops were judged on: a device-table entry, measured ceilings, or none.
struct TraceDevice {
  std::string name;                  // the trace's device, or "A (rank 0), B (rank 1)" for mixed ranks
  std::optional<std::string> source;  // "table", "measured", "per_rank"; null: none
  std::optional<std::string> table_name;  // the entry judged against; null: roofs unknown
  // With a table entry only:
  std::optional<double> bandwidth_bytes_per_s;
  std::optional<std::map<std::string, double>> peak_flops;  // dense peak by dtype
  std::optional<double> launch_s;
  std::optional<std::string> launch_source, datasheet;
  std::optional<std::string> why_unknown;  // without one
  template <class F>
  void fields(F& f) {
    f("name", name).defaulted("source", source).defaulted("table_name", table_name)
        .optional("bandwidth_bytes_per_s", bandwidth_bytes_per_s).optional("peak_flops", peak_flops)
        .optional("launch_s", launch_s).optional("launch_source", launch_source).optional("datasheet", datasheet)
        .optional("why_unknown", why_unknown);
  }
};

struct TraceStep {
  int64_t number = 0;
  double start_s = 0;  // from the window's start
  double duration_s = 0, busy_s = 0, idle_s = 0;
  bool host_bound = false;  // idle more than half the step
  template <class F>
  void fields(F& f) {
    f("number", number, Range::any)("start_s", start_s, Range::any)("duration_s", duration_s)("busy_s", busy_s)
        ("idle_s", idle_s)("host_bound", host_bound);
  }
};

struct TraceWindow {
  std::string kind;  // "steps" (ProfilerStep ranges) or "whole" (the capture)
  std::vector<TraceStep> steps;
  uint64_t step_count = 0;
  double total_s = 0;
  std::optional<double> busy_s;  // absent in the oldest files
  double idle_s = 0, idle_host_bound_s = 0, idle_other_s = 0;
  std::optional<std::string> step_source;  // where the steps came from; null: no steps
  uint64_t host_bound_steps = 0, outside_window_device_events = 0;
  template <class F>
  void fields(F& f) {
    f("kind", kind).defaulted("steps", steps)("step_count", step_count)("total_s", total_s).optional("busy_s", busy_s)
        .defaulted("idle_s", idle_s).defaulted("idle_host_bound_s", idle_host_bound_s)
        .defaulted("idle_other_s", idle_other_s).defaulted("step_source", step_source)
        .defaulted("host_bound_steps", host_bound_steps)
        .defaulted("outside_window_device_events", outside_window_device_events);
  }
};

// Communication in the window and the part of it no compute kernel overlapped; null on
// a CPU-only trace.
struct TraceCommunication {
  std::optional<double> time_s, exposed_s, exposed_share;
  template <class F>
  void fields(F& f) {
    f("time_s", time_s)("exposed_s", exposed_s)("exposed_share", exposed_share);
  }
};

// One op shape: an op by name, input shapes, dtypes and strides (one row per module,
// device or layout: compare sums the rows of a shape).
struct TraceOpRow {
  std::string name;
  nlohmann::json input_dims, input_types;  // arrays as the trace wrote them, or null
  std::optional<std::string> input_strides;
  std::optional<std::vector<double>> call_time_range_s;  // fastest and slowest call
  uint64_t calls = 0;
  std::optional<std::string> module;
  std::optional<std::string> device;  // a folder of ranks on different devices only
  std::string op_class, class_source, ivanov_class;
  std::optional<bool> pseudo_op;
  std::optional<std::string> model;  // the cost model; null: none
  std::optional<double> flops, bytes;  // per call; null: unknown
  double device_time_s = 0, self_cpu_time_s = 0, time_s = 0;
  uint64_t kernel_launches = 0;
  std::vector<std::string> kernels;
  std::string bound;
  std::optional<double> peak_flops;
  std::optional<double> roof_time_s;        // all its calls at the roof; null when unknown
  std::optional<double> time_above_roof_s;  // below 0: faster than the roof (an anomaly)
  std::optional<double> fraction_of_roof;
  std::string note;
  // Communication ops only: message bytes and nccl-tests' bandwidths, each may be null.
  std::optional<std::string> collective;
  std::optional<std::optional<double>> message_bytes, algbw_bytes_per_s, busbw_bytes_per_s;
  template <class F>
  void fields(F& f) {
    f("name", name)("input_dims", input_dims)("input_types", input_types).defaulted("input_strides", input_strides)
        .optional("call_time_range_s", call_time_range_s).defaulted("calls", calls).defaulted("module", module)
        .optional("device", device)("class", op_class).defaulted("class_source", class_source)
        .defaulted("ivanov_class", ivanov_class).optional("pseudo_op", pseudo_op).defaulted("model", model)
        .defaulted("flops", flops).defaulted("bytes", bytes).defaulted("device_time_s", device_time_s)
        .defaulted("self_cpu_time_s", self_cpu_time_s)("time_s", time_s).defaulted("kernel_launches", kernel_launches)
        .defaulted("kernels", kernels).defaulted("bound", bound).defaulted("peak_flops", peak_flops)
        ("roof_time_s", roof_time_s).defaulted("time_above_roof_s", time_above_roof_s, Range::any)
        .defaulted("fraction_of_roof", fraction_of_roof).defaulted("note", note).optional("collective", collective)
        .optional("message_bytes", message_bytes).optional("algbw_bytes_per_s", algbw_bytes_per_s)
        .optional("busbw_bytes_per_s", busbw_bytes_per_s);
  }
};

// One row of a class table: lmroof's classes or Ivanov et al.'s three groups.
struct TraceClassRow {
  std::string op_class;  // "normalization", "tensor_contraction", ...
  double flops = 0, bytes = 0;
  double device_time_s = 0, time_s = 0;
  double flop_share = 0, byte_share = 0, time_share = 0;
  std::optional<double> fraction_of_roof;  // null: no roof judges the class
  template <class F>
  void fields(F& f) {
    f("class", op_class).defaulted("flops", flops).defaulted("bytes", bytes).defaulted("device_time_s", device_time_s)
        ("time_s", time_s)("flop_share", flop_share)("byte_share", byte_share)("time_share", time_share)
        ("fraction_of_roof", fraction_of_roof);
  }
};

// Each module type's time (kernels under their innermost nn.Module).
struct TraceModuleRow {
  std::string type;
  std::optional<std::string> op_class;  // the class it gives a generic op; null: none
  double time_s = 0, time_share = 0, flops = 0, bytes = 0;
  uint64_t kernels = 0;
  std::optional<double> fraction_of_roof;
  template <class F>
  void fields(F& f) {
    f("type", type)("class", op_class)("time_s", time_s)("time_share", time_share)("flops", flops)("bytes", bytes)
        ("kernels", kernels)("fraction_of_roof", fraction_of_roof);
  }
};

struct TraceNamedTime {
  std::string name;
  double time_s = 0;
  template <class F> void fields(F& f) { f("name", name)("time_s", time_s); }
};

// What stays in class "other", with its largest names.
struct TraceOther {
  double time_s = 0, time_share = 0;
  std::vector<TraceNamedTime> by_name;
  template <class F> void fields(F& f) { f("time_s", time_s)("time_share", time_share)("by_name", by_name); }
};

// One item of the fix-first list (docs/trace.md, "Fix first").
struct TraceFix {
  std::string kind, target;
  double current_s = 0, estimate_s = 0, saving_s = 0;
  std::string assumption;
  template <class F>
  void fields(F& f) {
    f("kind", kind)("target", target)("current_s", current_s)("estimate_s", estimate_s)("saving_s", saving_s)
        ("assumption", assumption);
  }
};

// The fusion estimate checked on a results.json's measured fused pairs (trace --ceilings).
struct TraceFusionCheckRow {
  std::string unfused_run, fused_run;
  double unfused_s = 0, fused_s = 0, unique_bytes = 0, estimate_s = 0;
  double error = 0;  // estimate / measured fused - 1; below 0: the estimate is optimistic
  template <class F>
  void fields(F& f) {
    f("unfused_run", unfused_run)("fused_run", fused_run)("unfused_s", unfused_s)("fused_s", fused_s)
        ("unique_bytes", unique_bytes)("estimate_s", estimate_s)("error", error, Range::any);
  }
};

struct TraceFusionCheck {
  std::string results;  // the results.json
  std::vector<TraceFusionCheckRow> rows;
  std::optional<double> median_abs_error, min_error, max_error;  // null without rows
  std::vector<std::string> left_out;  // "RUN: why"
  template <class F>
  void fields(F& f) {
    f("results", results)("rows", rows)("median_abs_error", median_abs_error)("min_error", min_error, Range::any)
        ("max_error", max_error, Range::any)("left_out", left_out);
  }
};

struct TraceUnattributedKernel {
  std::string name;
  double device_time_s = 0;
  template <class F> void fields(F& f) { f("name", name)("device_time_s", device_time_s); }
};

// Device events whose launch is not in the trace.
struct TraceUnattributed {
  uint64_t kernels = 0;
  double device_time_s = 0;
  std::vector<TraceUnattributedKernel> by_name;
  template <class F> void fields(F& f) { f("kernels", kernels)("device_time_s", device_time_s)("by_name", by_name); }
};

// Kernels shorter than two launch times.
struct TraceLaunchBound {
  std::optional<double> threshold_s;  // null: no launch time for the device
  uint64_t kernels = 0;
  double device_time_s = 0, time_share = 0;
  template <class F>
  void fields(F& f) {
    f("threshold_s", threshold_s)("kernels", kernels)("device_time_s", device_time_s)("time_share", time_share);
  }
};

struct TraceGap {
  double start_s = 0, duration_s = 0;
  template <class F> void fields(F& f) { f("start_s", start_s)("duration_s", duration_s); }
};

struct TraceAnomaly {
  std::string kind;
  uint64_t count = 0;
  std::string first;
  template <class F> void fields(F& f) { f("kind", kind)("count", count)("first", first); }
};

struct TraceRankRow {
  int64_t rank = 0;
  std::string file;
  std::optional<std::string> device, roofs;
  std::optional<int64_t> world_size;
  uint64_t steps = 0;
  std::optional<double> step_time_s;  // null: the rank has no steps
  double total_s = 0, busy_s = 0, idle_s = 0, communication_share = 0;
  TraceCommunication communication;
  bool slowest = false;  // the rank with the longest step time
  template <class F>
  void fields(F& f) {
    f.defaulted("rank", rank, Range::any).defaulted("file", file).defaulted("device", device)
        .defaulted("roofs", roofs).defaulted("world_size", world_size).defaulted("steps", steps)
        ("step_time_s", step_time_s).defaulted("total_s", total_s).defaulted("busy_s", busy_s)
        .defaulted("idle_s", idle_s).defaulted("communication_share", communication_share)
        .defaulted("communication", communication)("slowest", slowest);
  }
};

struct TraceRankWarning {
  std::string kind, message;  // "mixed_devices", "mixed_world_sizes"
  template <class F> void fields(F& f) { f("kind", kind)("message", message); }
};

// How long the reading took.
struct TraceReaderCost {
  uint64_t events = 0, json_bytes = 0;
  double read_cpu_s = 0, analysis_cpu_s = 0, read_wall_s = 0, analysis_wall_s = 0;
  template <class F>
  void fields(F& f) {
    f("events", events)("json_bytes", json_bytes)("read_cpu_s", read_cpu_s)("analysis_cpu_s", analysis_cpu_s)
        ("read_wall_s", read_wall_s)("analysis_wall_s", analysis_wall_s);
  }
};

// A --what-if prediction for one target device (docs/trace.md, "What if").
struct TraceWhatIf {
  struct Interval {  // per step
    double source = 0, predicted = 0, low = 0, high = 0;
    template <class F>
    void fields(F& f) {
      f.defaulted("source", source)("predicted", predicted)("low", low)("high", high);
    }
  };
  struct Window {  // the whole window
    double source_total_s = 0, predicted_total_s = 0, source_busy_s = 0, predicted_busy_s = 0, kept_gaps_s = 0;
    template <class F>
    void fields(F& f) {
      f("source_total_s", source_total_s)("predicted_total_s", predicted_total_s)("source_busy_s", source_busy_s)
          ("predicted_busy_s", predicted_busy_s)("kept_gaps_s", kept_gaps_s);
    }
  };
  struct Naive {  // per step: the same time, and the datasheet ratio's answer
    double same_time_busy_s = 0, datasheet_ratio = 1, datasheet_busy_s = 0;
    template <class F>
    void fields(F& f) {
      f("same_time_busy_s", same_time_busy_s).defaulted("datasheet_ratio", datasheet_ratio)
          ("datasheet_busy_s", datasheet_busy_s);
    }
  };
  struct Kernels {
    uint64_t kernels = 0;
    double source_s = 0;
    template <class F> void fields(F& f) { f("kernels", kernels)("source_s", source_s); }
  };
  struct Class {  // over the whole window
    std::string op_class;
    double source_s = 0, predicted_s = 0, low_s = 0, high_s = 0;
    template <class F>
    void fields(F& f) {
      f("class", op_class).defaulted("source_s", source_s)("predicted_s", predicted_s).defaulted("low_s", low_s)
          .defaulted("high_s", high_s);
    }
  };
  struct Op {  // over the whole window
    std::string name;
    nlohmann::json input_dims, input_types;
    std::string op_class;
    uint64_t calls = 0;
    double source_s = 0, predicted_s = 0, low_s = 0, high_s = 0;
    std::string source_bound, target_bound;
    std::optional<double> source_fraction_of_roof;
    bool kept = false;
    std::string why;
    template <class F>
    void fields(F& f) {
      f("name", name)("input_dims", input_dims)("input_types", input_types).defaulted("class", op_class)
          .defaulted("calls", calls).defaulted("source_s", source_s)("predicted_s", predicted_s)
          .defaulted("low_s", low_s).defaulted("high_s", high_s).defaulted("source_bound", source_bound)
          .defaulted("target_bound", target_bound).defaulted("source_fraction_of_roof", source_fraction_of_roof)
          .defaulted("kept", kept).defaulted("why", why);
    }
  };
  struct Range {  // an op's share of the interval's width
    std::string op;
    double range_s = 0, share = 0;
    template <class F> void fields(F& f) { f("op", op)("range_s", range_s)("share", share); }
  };
  std::string device, origin, device_source, source_device;
  uint64_t step_count = 1;
  Interval step_time_s, busy_s;
  Window window;
  Naive naive;
  Kernels kept, launch_bound;
  std::vector<Class> classes;
  std::vector<Op> ops;
  std::vector<Range> widest_range;
  std::vector<std::string> notes;
  template <class F>
  void fields(F& f) {
    f("device", device).defaulted("origin", origin).defaulted("device_source", device_source)
        .defaulted("source_device", source_device).defaulted("step_count", step_count)("step_time_s", step_time_s)
        ("busy_s", busy_s).defaulted("window", window)("naive", naive).defaulted("kept", kept)
        .defaulted("launch_bound", launch_bound)("classes", classes)("ops", ops)
        .defaulted("widest_range", widest_range).defaulted("notes", notes);
  }
  double steps() const { return step_count > 0 ? static_cast<double>(step_count) : 1.0; }
};

struct TraceResult {
  std::string file;  // where it was read from or is written to: not a field of the file
  std::string schema;
  std::vector<std::string> files;  // the profiler traces read
  TraceDevice device;
  TraceWindow window;
  TraceCommunication communication;
  bool cpu_only = false;
  std::string time_basis;   // "device" or "self_cpu"
  double total_time_s = 0;  // busy time: the ops' device time (self time on a CPU-only trace)
  std::vector<TraceOpRow> ops;
  std::vector<TraceClassRow> classes;
  std::optional<std::vector<TraceClassRow>> ivanov_classes;  // absent from files written before it
  std::vector<TraceModuleRow> modules;
  TraceOther other;
  std::vector<TraceFix> fix_first;
  double known_cost_time_share = 0;
  TraceUnattributed unattributed;
  TraceLaunchBound launch_bound;
  std::vector<TraceGap> idle_gaps;
  std::vector<TraceAnomaly> anomalies;
  // A folder of ranks only:
  std::optional<std::vector<TraceRankRow>> ranks;
  std::optional<std::optional<int64_t>> slowest_rank;  // null inside: no rank has steps
  std::optional<std::vector<TraceRankWarning>> rank_warnings;
  TraceReaderCost reader;
  // Asked for: --what-if, --ceilings (fix_first_check), --claims.
  std::optional<std::vector<TraceWhatIf>> what_if;
  std::optional<TraceFusionCheck> fix_first_check;
  std::optional<std::vector<ClaimVerdict>> claims;  // results.json's verdict objects (docs/claims.md#check-output)

  template <class F>
  void fields(F& f) {
    f.defaulted("schema", schema).defaulted("files", files)("device", device)("window", window)
        .defaulted("communication", communication).defaulted("cpu_only", cpu_only).defaulted("time_basis", time_basis)
        ("total_time_s", total_time_s)("classes", classes).optional("ivanov_classes", ivanov_classes)("ops", ops)
        .defaulted("modules", modules).defaulted("other", other).defaulted("fix_first", fix_first)
        .defaulted("known_cost_time_share", known_cost_time_share).defaulted("unattributed", unattributed)
        .defaulted("launch_bound", launch_bound).defaulted("idle_gaps", idle_gaps).defaulted("anomalies", anomalies)
        .optional("ranks", ranks).optional("slowest_rank", slowest_rank, Range::any)
        .optional("rank_warnings", rank_warnings).defaulted("reader", reader).optional("what_if", what_if)
        .optional("fix_first_check", fix_first_check).optional("claims", claims);
  }

  // The class table of lmroof's classes or of Ivanov et al.'s groups; null when the file has none.
  const std::vector<TraceClassRow>* class_table(bool ivanov) const { return ivanov ? (ivanov_classes ? &*ivanov_classes : nullptr) : &classes; }
  // The time per step (docs/trace.md "Ranks"): one trace's window over its ProfilerStep
  // ranges; a folder of ranks, its slowest rank's (the merged window sums the ranks, so
  // it is no step). None where there are no steps: a capture's length is no step time.
  std::optional<double> step_time_s() const;
};

const TraceClassRow* find_class(const std::vector<TraceClassRow>& table, const std::string& op_class);

// A claim verdict inside trace.json: read and written as results.json's (results_model.h).
inline void read_field(const JsonCursor& c, ClaimVerdict& v, Range) { v = claim_verdict_from_json(c); }
inline nlohmann::json write_field(const ClaimVerdict& v) { return to_json(v); }
inline void visit_strings(ClaimVerdict&, const StringRewrite&) {}  // printed by claims_text, which makes them printable

// Reads and checks `doc`, a trace.json of schema lmroof.trace/2; throws InputError
// "FILE: POINTER: problem" ("t/trace.json: /ops/0: missing 'time_s'") for the first
// field that is absent, of the wrong type, or out of range. An op's input_dims and
// input_types must be arrays or null (lmroof.trace/1 held text: `lmroof migrate`).
TraceResult read_trace_result(const nlohmann::json& doc, const std::string& file);
// trace.json's document: the one writer.
nlohmann::json to_json(const TraceResult& result);

}  // namespace lmroof::model
