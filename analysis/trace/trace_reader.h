#pragma once
// Reads a Kineto trace (.json or .json.gz) as a stream: RapidJSON's SAX reader over
// chunks of the file (inflated by zlib when gzipped), never a DOM of the whole
// document, so memory grows with the kept events, not with the file (docs/trace.md,
// "Reading"). Bad input (not gzip, not JSON, truncated, no traceEvents, content after
// the document, a string that is not UTF-8, a step number beyond 64 bits, more kept
// events than the memory bound) throws model::InputError, one line naming the file,
// the byte offset and the field.
#include <filesystem>

#include "analysis/trace/trace_events.h"

namespace lmroof::trace {

struct ReadOptions {
  // 1: read, inflate and parse on this thread; 2: a second thread reads and inflates
  // the next chunks while this one parses.
  int threads = 1;
  bool progress = false;  // a progress line on stderr every few seconds
  // The memory the kept events may take (bytes; 0: no bound): reading stops with
  // model::InputError once kept events x kBytesPerKeptEvent exceed it, before the
  // memory is taken (issue 47, defect 18). `lmroof trace` passes the memory available
  // (MemAvailable, or LMROOF_MEMORY_LIMIT).
  double memory_limit_bytes = 0;
};

// The peak resident memory `lmroof trace` takes per kept record (read, then analysed:
// the record, the vector's growth, the analysis's indices and sorts). Measured as the
// slope of peak RSS over two scripts/gen_trace.py traces (--target-mb 50 and 200:
// 314,280 and 1,248,099 kept records, 38.2 and 124.0 MB peak): 94 bytes per record,
// 154 per event when the flows (61% of the records are events) are left out; rounded
// up to 160, so that a trace of events without flows is bounded too (docs/trace.md).
inline constexpr double kBytesPerKeptEvent = 160;

TraceFile read_trace(const std::filesystem::path& path, const ReadOptions& options = {});

}  // namespace lmroof::trace
