#pragma once
// A PyTorch profiler (Kineto) trace as the analysis needs it: only the events that
// carry device time or link it to an op, each in a compact record with its strings
// interned, so that a multi-GB trace fits in a fraction of its size (docs/trace.md).
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace lmroof::trace {

enum class Category : uint8_t {
  cpu_op,               // aten ops ("cpu_op"; PyTorch 1.8: "Operator")
  user_annotation,      // record_function ranges, ProfilerStep#N on the host
  gpu_user_annotation,  // the same ranges on the GPU timeline
  runtime,              // cuda_runtime / cuda_driver / hip runtime: kernel launches
  kernel,
  gpu_memcpy,
  gpu_memset,
  flow,                 // ac2g flow start/end (launch -> kernel)
  module,               // python_function "nn.Module: Type_N" (with_stack / with_modules): encloses its ops
};

// Strings seen in the trace, each stored once; id 0 is "absent".
class StringPool {
 public:
  StringPool() { strings_.emplace_back(); }
  uint32_t intern(std::string_view text);
  std::string_view at(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  size_t bytes() const { return bytes_; }  // the characters held, for the memory bound

 private:
  std::deque<std::string> strings_;  // a deque: the views keyed below stay valid as it grows
  std::unordered_map<std::string_view, uint32_t> ids_;
  size_t bytes_ = 0;
};

struct TraceEvent {
  double ts_us = 0, dur_us = 0;  // µs, fractional as in the trace
  uint64_t external_id = 0, correlation = 0;  // ids as written: up to 2^64-1, never via a double
  int64_t pid = 0, tid = 0;  // 64 bits as written; strings (some exporters write names) are interned and negated
  int32_t stream = -1, device = -1;
  uint32_t name = 0, input_dims = 0, input_types = 0, concrete_inputs = 0;  // StringPool ids (raw JSON of the arrays)
  uint32_t index = 0;  // position in traceEvents, for messages (saturates at 2^32-1); here, not before pid, to pack in 80 bytes
  Category category = Category::cpu_op;
  char ph = 'X';
  bool has_external_id = false, has_correlation = false;
  double end_us() const { return ts_us + dur_us; }
};

// An ac2g flow's start (launch) or end (kernel): only its id is needed, to count the
// flows that link nothing; kept apart from the events to keep them small.
struct FlowEvent {
  uint64_t id = 0;
  uint32_t index = 0;
  char ph = 's';
};

// Args that few events carry (`Module Hierarchy` on ops; the message size, dtype and group
// of collectives on record_param_comms ops and NCCL kernels), kept apart so that the
// common record stays small. 0 / nullopt: absent.
struct EventExtras {
  uint32_t event = 0;             // position in TraceFile::events
  uint32_t module_hierarchy = 0;  // StringPool id
  uint32_t dtype = 0;             // StringPool id of `dtype` ("BFloat16", "Float", ...)
  std::optional<int64_t> in_nelems, out_nelems, group_size;
  bool any() const { return module_hierarchy || dtype || in_nelems || out_nelems || group_size; }
};

struct DeviceProperties {
  int64_t id = -1;
  std::string name;
  std::optional<double> total_global_mem;
  std::optional<int64_t> num_sms, compute_major, compute_minor;
};

// A tolerated oddity: counted, with the first place it was seen.
struct Anomaly {
  uint64_t count = 0;
  std::string first;  // "event 123 (ts 1.5): ..."
};

struct TraceFile {
  std::string path;
  StringPool strings;
  std::vector<TraceEvent> events;  // the kept categories but flows, in file order
  std::vector<FlowEvent> flows;
  std::vector<EventExtras> extras;  // by event position, ascending
  std::vector<DeviceProperties> devices;
  std::optional<int64_t> rank, world_size;
  std::string distributed_backend;
  std::optional<int64_t> base_time_ns;
  std::string runtime;  // "cuda", "hip" or "" (from cuda_runtime_version / hip_runtime_version)
  uint64_t event_count = 0;          // every entry of traceEvents
  uint64_t bytes_read = 0;           // uncompressed JSON bytes
  std::map<std::string, Anomaly> anomalies;  // by kind
  // A kernel's grid size in blocks (x·y·z of its `grid` arg), by its place in `events`;
  // kept apart from the events (only `--what-if` reads it: wave quantisation).
  std::vector<std::pair<uint32_t, uint32_t>> kernel_grids;
  // An op's `Input Strides` (StringPool id of the raw JSON of the arrays), by its place in
  // `events`, ascending; kept apart so that the common record stays 80 bytes (only ops
  // written with record_shapes carry it, and only the strides split reads it).
  std::vector<std::pair<uint32_t, uint32_t>> op_strides;

  void note(const std::string& kind, const std::string& where);
};

}  // namespace lmroof::trace
