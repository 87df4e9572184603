#pragma once
// Reads a Kineto trace (.json or .json.gz) as a stream: RapidJSON's SAX reader over
// chunks of the file (inflated by zlib when gzipped), never a DOM of the whole
// document, so memory grows with the kept events, not with the file (docs/trace.md,
// "Reading"). Bad input (not gzip, not JSON, truncated, no traceEvents) throws
// model::InputError, one line naming the file, the byte offset and the field.
#include <filesystem>

#include "analysis/trace/trace_events.h"

namespace lmroof::trace {

struct ReadOptions {
  // 1: read, inflate and parse on this thread; 2: a second thread reads and inflates
  // the next chunks while this one parses.
  int threads = 1;
  bool progress = false;  // a progress line on stderr every few seconds
};

TraceFile read_trace(const std::filesystem::path& path, const ReadOptions& options = {});

}  // namespace lmroof::trace
