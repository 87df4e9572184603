#pragma once
// From a read trace to the answers of `lmroof trace` (docs/trace.md): every kernel,
// memcpy and memset attributed to the innermost op that launched it (or counted as
// unattributed), the step windows, busy and idle time, one row per unique (op,
// input shapes, dtypes) with its cost and place under the device's roofs, and the
// class table after Ivanov et al.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/predict/devices.h"
#include "analysis/trace/cost_models.h"
#include "analysis/trace/op_classes.h"
#include "analysis/trace/trace_events.h"

namespace lmroof::trace {

// Where the roofs come from: "trace" (deviceProperties matched in the table),
// "flag" (--device), "measured" (--ceilings), or none (fractions unknown, why says so).
struct Roofs {
  std::string name;         // the trace's device name, or the flag's
  std::string source;       // trace | flag | measured | "" (unknown)
  std::string why_unknown;  // when no device matched
  std::optional<predict::Device> device;
  std::string trace_name;   // the trace's own deviceProperties name, whatever gave the roofs ("": none)
  // The device's name for the reader: the table entry judged against, else the name given.
  std::string label() const { return device ? device->name : name; }
};

struct AnalysisOptions {
  std::optional<int64_t> step;  // analyse ProfilerStep#N only; nullopt: all steps
  bool keep_timeline = false;   // fill TraceAnalysis::timeline (for --what-if)
};

// One device event in the window, as `--what-if` replays it (analysis/trace/what_if.h).
struct KernelSpan {
  static constexpr uint32_t kNoRow = UINT32_MAX;
  double start_us = 0, dur_us = 0;
  int32_t stream = -1, device = -1;
  uint32_t row_id = kNoRow;  // OpRow::row_id of the op that launched it; kNoRow: unattributed
  uint32_t grid_blocks = 0;  // x·y·z of its grid; 0: not in the trace (memcpy, memset, old exporters)
  bool is_kernel = true;     // false: a memcpy or memset
};

// One row per (op, input shapes, dtypes, innermost module type, class): the same op
// shape in an RMSNorm and in an MLP are two rows, as are a compiled graph's GEMM and
// triton kernels. A launch inside a user annotation with no op is a row named after the
// annotation (a pseudo-op).
struct OpRow {
  uint32_t row_id = 0;  // the row's place before the rows are sorted by time (KernelSpan::row_id)
  std::string name, input_dims, input_types;  // as in the trace
  std::string module;                         // innermost nn.Module type, "" when none
  std::string device;  // ranks on different devices: the device (Roofs::label) this row was judged on; else ""
  // A row split by layout (docs/trace.md, "Layouts"): its `Input Strides` as written ("; "
  // between several that run alike), and its calls' fastest and slowest time. "" and
  // nullopt on a row that is not split.
  std::string input_strides;
  std::optional<double> fastest_call_s, slowest_call_s;

  const char* class_source = "op";            // op | kernel | module (op_classes.h)
  bool softmax = false;                       // for Ivanov's grouping
  bool pseudo_op = false;                     // an annotation standing in for a missing op
  uint64_t calls = 0;
  OpCost cost;
  double device_time_s = 0, self_cpu_time_s = 0;
  uint64_t kernel_launches = 0;
  std::vector<std::string> kernels;  // distinct names
  std::optional<double> roof_time_s;  // all calls at the roof
  std::optional<double> peak_flops;   // the peak it is judged against
  std::string bound;                  // compute | memory | launch | communication | unknown
  std::optional<double> fraction_of_roof;
  std::string roof_note;              // why the fraction is unknown, or the assumption
  std::optional<double> algbw_bytes_per_s, busbw_bytes_per_s;  // collectives
  bool cost_counted = true;  // CPU-only: false when a nested op carries the cost
  double time_s() const;     // device time, or self time on a CPU-only trace
};

struct ClassRow {
  OpClass op_class = OpClass::other;
  double flops = 0, bytes = 0, time_s = 0;
  double flop_share = 0, byte_share = 0, time_share = 0;
  double known_time_s = 0, roof_time_s = 0;  // of the ops with known cost and peak
  std::optional<double> fraction_of_roof;
};

// Ivanov et al.'s grouping of the same time: the fields of ClassRow.
struct IvanovRow {
  IvanovClass group = IvanovClass::other;
  ClassRow totals;  // op_class unused
};

// Per module type: the rows whose innermost module it is.
struct ModuleRow {
  std::string type;
  OpClass module_class = OpClass::other;  // the class the module gives its generic ops, or other
  bool gives_class = false;
  double time_s = 0, flops = 0, bytes = 0;
  uint64_t kernels = 0;
  double known_time_s = 0, roof_time_s = 0;
  std::optional<double> fraction_of_roof;
  double time_share = 0;
};

struct StepWindow {
  int64_t number = 0;
  double start_us = 0, end_us = 0;
  double busy_s = 0, idle_s = 0;
  bool host_bound() const { return idle_s > 0.5 * (end_us - start_us) * 1e-6; }  // idle for more than half the step
};

struct Gap {
  double start_s = 0;  // from the window's start
  double duration_s = 0;
};

struct TraceAnalysis {
  std::string file;
  Roofs roofs;
  bool cpu_only = false;
  std::string window_kind;  // steps | whole
  std::string step_source;  // gpu_user_annotation | user_annotation (host ranges) | "" (whole)
  std::vector<StepWindow> steps;
  double window_start_us = 0, window_end_us = 0;
  double total_s = 0, busy_s = 0, idle_s = 0;
  std::vector<OpRow> ops;  // by time, largest first
  std::vector<ClassRow> classes;
  std::vector<IvanovRow> ivanov_classes;
  std::vector<ModuleRow> modules;  // by time, largest first
  std::map<std::string, uint64_t> module_instances;  // per module type: module events with device work
  std::vector<std::pair<std::string, double>> other_by_name;  // what stays in class other: op or kernel name, time
  double total_time_s = 0;  // device time (self time when CPU-only) of every op and unattributed kernel
  double known_cost_time_share = 0;
  uint64_t unattributed_kernels = 0;
  double unattributed_time_s = 0;
  std::vector<std::pair<std::string, double>> unattributed_by_name;  // largest first
  uint64_t device_events = 0, outside_window = 0;
  std::optional<double> launch_threshold_s;  // kernels shorter are launch-bound
  uint64_t launch_bound_kernels = 0;
  double launch_bound_time_s = 0;
  std::vector<Gap> idle_gaps;  // largest first
  // Idle time split: gaps before a kernel whose launch came after the gap began (the device
  // waited for the host), and the rest (synchronisation, transfers, dependencies).
  double idle_host_bound_s = 0, idle_other_s = 0;
  // Communication in the window: the union of its device events' intervals, and the part of
  // it during which no compute kernel (a kernel of another class, on any stream) ran.
  // nullopt on a CPU-only trace (no device timeline to overlap).
  std::optional<double> communication_s, exposed_communication_s;
  std::map<std::string, Anomaly> anomalies;
  std::optional<int64_t> rank, world_size;
  std::optional<int64_t> sm_count;  // the trace's deviceProperties numSms (for --what-if)
  std::vector<KernelSpan> timeline;  // by start; only with AnalysisOptions::keep_timeline
  uint64_t events_read = 0, bytes_read = 0;
  double read_cpu_s = 0, analysis_cpu_s = 0, read_wall_s = 0, analysis_wall_s = 0;  // set by the caller
};

// Kernels shorter than this many launch times are launch-bound: launched one at a
// time from the host, they leave the device idle between them.
constexpr double kLaunchBoundMultiple = 2;

// Matches the trace's deviceProperties name against the table (or takes --device /
// --ceilings); throws model::InputError for an unknown --device name.
Roofs resolve_roofs(const TraceFile& trace, const std::vector<predict::Device>& table, const std::string& device_flag,
                    const std::optional<predict::Device>& measured);
// The table name a deviceProperties name stands for, if any.
// `memory_bytes`: the device's totalGlobalMem, where a name alone does not tell the entry
// (an A100 named by its board).
std::optional<std::string> match_device_name(std::string_view trace_name, const std::vector<predict::Device>& table,
                                             std::optional<double> memory_bytes = std::nullopt);

// The peak an op of this cost is judged at on `device` (a vector op at the fp32 peak,
// fp32 matmul on TF32 tensor cores, ...); nullopt, with `note` saying why, when none.
std::optional<double> peak_for(const predict::Device& device, const OpCost& cost, std::string& note);

TraceAnalysis analyze(const TraceFile& trace, const Roofs& roofs, const AnalysisOptions& options);

// A row's rates from its times: fraction_of_roof (from roof_time_s) and a collective's
// algbw/busbw (from message_bytes). Each is left unset when its quotient is not finite:
// a time of a few subnormal seconds (a hostile "dur": 1e-317) would make it infinite,
// which trace.json cannot hold (issue 47, defect 5).
void set_rates(OpRow& row);
// num / den when den > 0 and the quotient is finite.
std::optional<double> finite_ratio(double num, double den);

// Op rows by time, largest first (ties by name, shapes, dtypes, module).
bool op_row_order(const OpRow& x, const OpRow& y);
// Fills the class tables (lmroof's and Ivanov's), the module table, other_by_name,
// unattributed_by_name, total_time_s and known_cost_time_share from a.ops and the
// unattributed device time per kernel name.
void summarize(TraceAnalysis& a, std::vector<std::pair<std::string, double>> unattributed);

}  // namespace lmroof::trace
