#pragma once
// trace.json (schema lmroof.trace/2, docs/trace.schema.json) as lmroof reads it back:
// `check` judges its class tables (class_share claims) and `compare` sets two of them
// side by side (step and busy time, classes, op shapes with their roofs, and a
// --what-if prediction beside a measured trace of the target). One validating reader:
// every field they use is checked for presence, type and range here, once, and read by
// name everywhere after (issue 43, "one model, one checker"); a hand-edited or truncated
// file is one line naming the file and the field, never a library's "key not found"
// (issue 47, defect 7). `lmroof trace` writes the file (analysis/trace/trace_output.h).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace lmroof::model {

// One row of a class table: lmroof's classes or Ivanov et al.'s three groups.
struct TraceClassRow {
  std::string op_class;  // "normalization", "tensor_contraction", ...
  double time_s = 0;
  double flop_share = 0, byte_share = 0, time_share = 0;
  std::optional<double> fraction_of_roof;  // null in trace.json: no roof judges the class
};

struct TraceClassTable {
  std::string field;     // "classes" or "ivanov_classes": where it was read, for evidence and reasons
  bool present = false;  // ivanov_classes is absent from files written before it
  std::vector<TraceClassRow> rows;
  const TraceClassRow* find(const std::string& op_class) const;
};

// One op shape: an op by name, input shapes and dtypes (one row per module, device or
// layout: compare sums the rows of a shape).
struct TraceOpRow {
  std::string name, op_class;
  nlohmann::json input_dims, input_types;  // arrays as the trace wrote them, or null
  double time_s = 0;
  std::optional<double> roof_time_s;  // all its calls at the roof; null when unknown
};

struct TraceRankRow {
  std::optional<double> step_time_s;  // null: the rank has no steps
  bool slowest = false;               // the rank with the longest step time
};

struct TraceWindow {
  std::string kind;  // "steps" (ProfilerStep ranges) or "whole" (the capture)
  double step_count = 0;
  double total_s = 0;
  std::optional<double> busy_s;  // absent in the oldest files
};

// A --what-if prediction for one target device, as compare sets it beside a measured
// trace of that device: per step, the busy time with its interval and the two naive
// answers, the step time, and the time per class and per op shape.
struct TraceWhatIf {
  struct Class {
    std::string op_class;
    double predicted_s = 0;  // over the whole window (step_count steps)
  };
  struct Op {
    std::string name;
    nlohmann::json input_dims, input_types;
    double predicted_s = 0;  // over the whole window
  };
  std::string device;
  double step_count = 1;
  double busy_predicted_s = 0, busy_low_s = 0, busy_high_s = 0;  // per step
  double same_time_busy_s = 0, datasheet_busy_s = 0;               // per step: the naive answers
  double step_predicted_s = 0;                                     // per step
  std::vector<Class> classes;
  std::vector<Op> ops;
};

struct TraceResult {
  std::string file;  // where it was read
  std::string device_name;
  std::optional<std::string> device_table_name;  // the device table's entry judged against; null: none
  double total_time_s = 0;  // busy time: the ops' device time (self time on a CPU-only trace)
  TraceWindow window;
  TraceClassTable classes{"classes", false, {}}, ivanov_classes{"ivanov_classes", false, {}};
  std::vector<TraceOpRow> ops;
  std::optional<std::vector<TraceRankRow>> ranks;  // a folder of ranks only
  std::vector<TraceWhatIf> what_if;

  // The time per step (docs/trace.md "Ranks"): one trace's window over its ProfilerStep
  // ranges; a folder of ranks, its slowest rank's (the merged window sums the ranks, so
  // it is no step). None where there are no steps: a capture's length is no step time.
  std::optional<double> step_time_s() const;
};

// Reads and checks `doc`, a trace.json of schema lmroof.trace/2; throws InputError
// "FILE: POINTER: problem" ("t/trace.json: /ops/0: missing 'time_s'") for the
// first field that is absent, of the wrong type, or out of range (a time or share below
// 0; JSON numbers are finite).
TraceResult read_trace_result(const nlohmann::json& doc, const std::string& file);

}  // namespace lmroof::model
