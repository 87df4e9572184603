#include "analysis/trace/trace_reader.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "analysis/model/input_error.h"
#include "analysis/numbers/numbers.h"

namespace lmroof::trace {

uint32_t StringPool::intern(std::string_view text) {
  if (text.empty()) return 0;
  const auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(text);
  bytes_ += text.size();
  ids_.emplace(std::string_view(strings_.back()), id);
  return id;
}

void TraceFile::note(const std::string& kind, const std::string& where) {
  Anomaly& a = anomalies[kind];
  if (a.count++ == 0) a.first = where;
}

namespace {

using model::InputError;

// The file's bytes, inflated when gzipped: fill() returns 0 at the end and throws
// on a read or inflate error (a truncated gzip stream among them).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual size_t fill(char* buffer, size_t capacity) = 0;
};

class GzSource final : public ByteSource {
 public:
  GzSource(const std::filesystem::path& path, bool gzipped) : path_(path.string()), gzipped_(gzipped) {
    file_ = gzopen(path_.c_str(), "rb");
    if (!file_) throw InputError(fmt::format("{}: cannot be opened: {}", path_, std::strerror(errno)));
    gzbuffer(file_, 1 << 18);
  }
  ~GzSource() override { gzclose(file_); }
  size_t fill(char* buffer, size_t capacity) override {
    const int n = gzread(file_, buffer, static_cast<unsigned>(capacity));
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
      if (gzipped_)
        throw InputError(fmt::format("{}: byte {} of the compressed file: not a valid gzip stream ({}){}", path_,
                                     gzoffset(file_), message,
                                     code == Z_BUF_ERROR ? ": the file is truncated" : ""));
      throw InputError(fmt::format("{}: read error: {}", path_, message));
    }
    return static_cast<size_t>(n);
  }

 private:
  std::string path_;
  bool gzipped_;
  gzFile file_ = nullptr;
};

// Reads ahead on a second thread: up to kQueued chunks inflated while the parser works.
class PrefetchSource final : public ByteSource {
 public:
  static constexpr size_t kChunk = 1 << 20;
  static constexpr size_t kQueued = 4;
  explicit PrefetchSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {
    worker_ = std::thread([this] { run(); });
  }
  ~PrefetchSource() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }
  size_t fill(char* buffer, size_t capacity) override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !ready_.empty() || done_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return 0;
    }
    std::string& front = ready_.front();
    const size_t n = std::min(capacity, front.size() - offset_);
    std::memcpy(buffer, front.data() + offset_, n);
    offset_ += n;
    if (offset_ == front.size()) {
      ready_.pop_front();
      offset_ = 0;
      changed_.notify_all();
    }
    return n;
  }

 private:
  void run() {
    try {
      for (;;) {
        std::string chunk(kChunk, '\0');
        const size_t n = inner_->fill(chunk.data(), chunk.size());
        chunk.resize(n);
        std::unique_lock lock(mutex_);
        if (n == 0 || stop_) break;
        changed_.wait(lock, [&] { return ready_.size() < kQueued || stop_; });
        if (stop_) break;
        ready_.push_back(std::move(chunk));
        changed_.notify_all();
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    done_ = true;
    changed_.notify_all();
  }

  std::unique_ptr<ByteSource> inner_;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> ready_;
  size_t offset_ = 0;
  bool done_ = false, stop_ = false;
  std::exception_ptr error_;
};

// RapidJSON's input-stream concept over a ByteSource, modelled on its FileReadStream.
class ChunkStream {
 public:
  using Ch = char;
  ChunkStream(ByteSource& source, uint64_t total_hint, bool progress, std::string path)
      : source_(source), total_hint_(total_hint), progress_(progress), path_(std::move(path)) {
    read();
  }
  Ch Peek() const { return *current_; }
  Ch Take() {
    const Ch c = *current_;
    read();
    return c;
  }
  size_t Tell() const { return count_ + static_cast<size_t>(current_ - buffer_.data()); }
  // Whether the input is used up: Peek() is then '\0', which a NUL byte in the file also is.
  bool at_end() const { return eof_; }
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

 private:
  void read() {
    if (current_ < last_) {
      ++current_;
      return;
    }
    if (eof_) return;
    count_ += read_count_;
    read_count_ = source_.fill(buffer_.data(), buffer_.size() - 1);
    last_ = buffer_.data() + read_count_ - 1;
    current_ = buffer_.data();
    if (read_count_ == 0) {
      buffer_[0] = '\0';
      last_ = buffer_.data();
      eof_ = true;
    }
    if (progress_) report();
  }
  void report() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report_ < std::chrono::seconds(2)) return;
    last_report_ = now;
    std::fprintf(stderr, "lmroof trace: %s: %.0f MB read%s\n", path_.c_str(), count_ / 1e6,
                 total_hint_ ? fmt::format(" (file {:.0f} MB)", total_hint_ / 1e6).c_str() : "");
  }

  ByteSource& source_;
  std::array<char, (1 << 20) + 1> buffer_{};
  char* current_ = buffer_.data();
  char* last_ = buffer_.data();
  size_t read_count_ = 0, count_ = 0;
  bool eof_ = false;
  uint64_t total_hint_;
  bool progress_;
  std::string path_;
  std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
};

Category* category_of(std::string_view cat, Category& out) {
  static const std::pair<std::string_view, Category> kNames[] = {
      {"cpu_op", Category::cpu_op},          {"Operator", Category::cpu_op},
      {"user_annotation", Category::user_annotation}, {"gpu_user_annotation", Category::gpu_user_annotation},
      {"cuda_runtime", Category::runtime},   {"cuda_driver", Category::runtime},
      {"Runtime", Category::runtime},        {"hip_runtime", Category::runtime},
      {"kernel", Category::kernel},          {"Kernel", Category::kernel},
      {"gpu_memcpy", Category::gpu_memcpy},  {"Memcpy", Category::gpu_memcpy},
      {"gpu_memset", Category::gpu_memset},  {"Memset", Category::gpu_memset},
      {"ac2g", Category::flow},
  };
  for (const auto& [name, category] : kNames)
    if (name == cat) {
      out = category;
      return &out;
    }
  return nullptr;
}

// The SAX handler: a small state machine over the few places of the document it
// reads; everything else is skipped by depth.
class Handler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Handler> {
  int nesting_ = 0;  // every open object and array, captured ones included

 public:
  explicit Handler(TraceFile& trace) : trace_(trace) {}

  bool saw_trace_events = false;
  std::string not_an_array;  // what traceEvents was instead of an array ("an object")
  std::string refusal;       // why the handler stopped the parse (a bad string, a bound), for the message
  std::string where() const {
    if (in_events_ && depth_ >= 3) {
      std::string s = fmt::format("traceEvents[{}]", trace_.event_count);
      if (!event_key_.empty()) s += "." + event_key_;
      if (depth_ >= 4 && !args_key_.empty()) s += "." + args_key_;
      return s;
    }
    return top_key_.empty() ? "the top level" : top_key_;
  }

  bool Null() { return scalar(Value{}); }
  bool Bool(bool b) {
    if (capturing()) return capture(b ? "true" : "false");
    return scalar(Value{});
  }
  bool Int(int i) { return integer(i < 0, i < 0 ? uint64_t(-int64_t(i)) : uint64_t(i), i); }
  bool Uint(unsigned u) { return integer(false, u, double(u)); }
  bool Int64(int64_t i) {
    return integer(i < 0, i < 0 ? uint64_t(0) - uint64_t(i) : uint64_t(i), double(i));
  }
  bool Uint64(uint64_t u) { return integer(false, u, double(u)); }
  bool Double(double d) {
    if (capturing()) return capture(fmt::format("{}", d));
    Value v;
    v.kind = Value::number;
    v.d = d;
    return scalar(v);
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (!valid_text(std::string_view(s, n))) return false;
    if (capturing()) {
      std::string quoted = "\"";
      for (rapidjson::SizeType i = 0; i < n; ++i) {
        if (s[i] == '"' || s[i] == '\\') quoted += '\\';
        quoted += s[i];
      }
      quoted += '"';
      return capture(quoted);
    }
    Value v;
    v.kind = Value::string;
    v.s = std::string_view(s, n);
    return scalar(v);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    const std::string_view key(s, n);
    if (!valid_text(key)) return false;
    if (capturing()) return true;  // captured arrays hold no objects in practice; keys dropped
    if (depth_ == 1) top_key_.assign(key);
    else if (in_events_ && depth_ == 3) event_key_.assign(key);
    else if (in_events_ && depth_ == 4 && in_args_) args_key_.assign(key);
    else if (in_devices_ && depth_ == 3) event_key_.assign(key);
    else if (in_distributed_ && depth_ == 2) event_key_.assign(key);
    return true;
  }
  // A trace nests five levels (traceEvents, event, args, Input Dims, a shape); deeper
  // is no profiler output, and is refused before it costs memory.
  static constexpr int kMaxNesting = 64;
  bool too_deep = false;
  bool nest() {
    if (++nesting_ <= kMaxNesting) return true;
    too_deep = true;
    return false;
  }
  bool StartObject() {
    if (!nest()) return false;
    if (capturing()) return capture_open('{');
    ++depth_;
    if (depth_ == 1) return true;
    if (depth_ == 2 && top_key_ == "traceEvents") not_an_array = "an object";
    if (depth_ == 2 && top_key_ == "distributedInfo") in_distributed_ = true, event_key_.clear();
    if (depth_ == 3 && in_events_) {
      event_ = TraceEvent{};
      event_.index = static_cast<uint32_t>(std::min<uint64_t>(trace_.event_count, UINT32_MAX));
      flow_id_ = grid_blocks_ = 0;
      input_strides_ = 0;
      has_ts_ = has_dur_ = has_cat_ = false;
      cat_.clear();
      ph_ = 0;
      extras_ = EventExtras{};
      event_key_.clear();
    }
    if (depth_ == 3 && in_devices_) device_ = DeviceProperties{}, event_key_.clear();
    if (depth_ == 4 && in_events_ && event_key_ == "args") in_args_ = true, args_key_.clear();
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    --nesting_;
    if (capturing()) return capture_close('}');
    if (depth_ == 3 && in_events_) {
      finish_event();
      if (stop_) return false;
    }
    if (depth_ == 3 && in_devices_) trace_.devices.push_back(std::move(device_));
    if (depth_ == 4 && in_args_) in_args_ = false;
    if (depth_ == 2 && in_distributed_) in_distributed_ = false;
    --depth_;
    return true;
  }
  bool StartArray() {
    if (!nest()) return false;
    if (capturing()) return capture_open('[');
    ++depth_;
    if (depth_ == 2 && top_key_ == "traceEvents") in_events_ = true, saw_trace_events = true;
    if (depth_ == 2 && top_key_ == "deviceProperties") in_devices_ = true;
    if (depth_ == 5 && in_args_ &&
        (args_key_ == "Input Dims" || args_key_ == "Input type" || args_key_ == "Concrete Inputs" ||
         args_key_ == "Input Strides")) {
      capture_depth_ = 1;
      captured_ = "[";
      need_comma_ = false;
    }
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --nesting_;
    if (capturing()) return capture_close(']');
    if (depth_ == 2) in_events_ = in_devices_ = false;
    --depth_;
    return true;
  }

 private:
  struct Value {
    enum Kind { none, number, integer, string } kind = none;
    bool negative = false;
    uint64_t u = 0;
    double d = 0;
    std::string_view s;
  };

  bool capturing() const { return capture_depth_ > 0; }

  // Every string and key must be UTF-8 that JSON can carry on: no invalid byte (0xFF,
  // a cut sequence, an overlong form) and no UTF-16 surrogate, which a lone "\udc00"
  // escape leaves (RapidJSON 1.1 decodes it into bytes ED B0 80). A name is refused
  // while reading, not when trace.json is written (issue 47, defect 4).
  bool valid_text(std::string_view text) {
    const auto* begin = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = begin + text.size();
    for (const auto* p = begin; p < end;) {
      if (*p < 0x80) {
        ++p;
        continue;
      }
      int extra = 0;
      uint32_t code = 0, least = 0;
      if ((*p & 0xE0) == 0xC0) extra = 1, code = *p & 0x1F, least = 0x80;
      else if ((*p & 0xF0) == 0xE0) extra = 2, code = *p & 0x0F, least = 0x800;
      else if ((*p & 0xF8) == 0xF0) extra = 3, code = *p & 0x07, least = 0x10000;
      bool valid = extra > 0 && end - p > extra;
      for (int i = 1; valid && i <= extra; ++i) {
        valid = (p[i] & 0xC0) == 0x80;
        code = (code << 6) | (p[i] & 0x3F);
      }
      if (!valid || code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return bad_text(*p, p - begin);
      p += extra + 1;
    }
    return true;
  }
  bool bad_text(unsigned char byte, ptrdiff_t at) {
    refusal = fmt::format("{}: a string that is not valid UTF-8 (byte 0x{:02x} at its byte {}{})", where(), byte, at,
                          byte == 0xED ? ", a UTF-16 surrogate such as a lone \\udc00 escape" : "");
    return false;
  }
  bool capture(std::string_view text) {
    if (need_comma_) captured_ += ',';
    captured_ += text;
    need_comma_ = true;
    return true;
  }
  bool capture_open(char c) {
    if (need_comma_) captured_ += ',';
    captured_ += c;
    need_comma_ = false;
    ++capture_depth_;
    return true;
  }
  bool capture_close(char c) {
    captured_ += c;
    need_comma_ = true;
    if (--capture_depth_ == 0) {
      const uint32_t id = trace_.strings.intern(captured_);
      if (args_key_ == "Input Dims") event_.input_dims = id;
      else if (args_key_ == "Input type") event_.input_types = id;
      else if (args_key_ == "Input Strides") input_strides_ = id;
      else event_.concrete_inputs = id;
      captured_.clear();
      --depth_;  // the array's own level, entered in StartArray
    }
    return true;
  }

  bool integer(bool negative, uint64_t magnitude, double as_double) {
    if (capturing()) {
      char digits[24];
      char* p = digits;
      if (negative) *p++ = '-';
      p = std::to_chars(p, digits + sizeof digits, magnitude).ptr;
      return capture(std::string_view(digits, static_cast<size_t>(p - digits)));
    }
    Value v;
    v.kind = Value::integer;
    v.negative = negative;
    v.u = magnitude;
    v.d = negative ? -static_cast<double>(magnitude) : as_double;
    return scalar(v);
  }

  // An id: an integer up to 2^64-1, or a decimal string (some exporters quote them).
  std::optional<uint64_t> id_of(const Value& v, const char* field) {
    if (v.kind == Value::integer && !v.negative) return v.u;
    if (v.kind == Value::string) {
      uint64_t out = 0;
      const auto* end = v.s.data() + v.s.size();
      if (std::from_chars(v.s.data(), end, out).ptr == end && !v.s.empty()) return out;
    }
    if (v.kind != Value::none)
      trace_.note(fmt::format("{} that is not an unsigned integer (ignored)", field),
                  fmt::format("traceEvents[{}]", trace_.event_count));
    return std::nullopt;
  }
  // An integer as written, sign included; none beyond int64 (RapidJSON gives a
  // negative one as int64, so only a large positive one can be beyond it).
  static std::optional<int64_t> signed_of(const Value& v) {
    if (v.kind != Value::integer || (!v.negative && v.u > uint64_t(INT64_MAX))) return std::nullopt;
    return v.negative ? static_cast<int64_t>(0 - v.u) : static_cast<int64_t>(v.u);
  }
  // pid/tid: 64 bits as written (issue 47); a string, or an integer beyond int64, by its
  // interned text, negated, so that it differs from every small number.
  int64_t small_id(const Value& v) {
    if (auto n = signed_of(v)) return *n;
    if (v.kind == Value::string) return -static_cast<int64_t>(trace_.strings.intern(v.s));
    if (v.kind == Value::integer) return -static_cast<int64_t>(trace_.strings.intern(std::to_string(v.u)));
    return 0;
  }

  bool scalar(const Value& v) {
    if (depth_ == 1) {
      if (top_key_ == "baseTimeNanoseconds") trace_.base_time_ns = signed_of(v);
      if (top_key_ == "traceEvents") not_an_array = v.kind == Value::number || v.kind == Value::integer ? "a number"
                                                    : v.kind == Value::none ? "null or a boolean" : "a string";
      if (top_key_ == "cuda_runtime_version" && v.kind != Value::none) trace_.runtime = "cuda";
      if (top_key_ == "hip_runtime_version" && v.kind != Value::none) trace_.runtime = "hip";
      return true;
    }
    if (in_distributed_ && depth_ == 2) {
      if (event_key_ == "rank" && v.kind == Value::integer) {
        trace_.rank = signed_of(v);
        if (!trace_.rank || *trace_.rank < 0) return refuse(fmt::format("distributedInfo.rank: {}{} is no rank (0 or more)",
                                                                         v.negative ? "-" : "", v.u));
      }
      if (event_key_ == "world_size" && v.kind == Value::integer) {
        trace_.world_size = signed_of(v);
        if (!trace_.world_size || *trace_.world_size < 1)
          return refuse(fmt::format("distributedInfo.world_size: {}{} is no world size (1 or more)", v.negative ? "-" : "", v.u));
      }
      if (event_key_ == "backend" && v.kind == Value::string) trace_.distributed_backend.assign(v.s);
      return true;
    }
    if (in_devices_ && depth_ == 3) {
      if (event_key_ == "id" && v.kind == Value::integer) device_.id = signed_of(v).value_or(-1);
      if (event_key_ == "name" && v.kind == Value::string) device_.name.assign(v.s);
      if (event_key_ == "totalGlobalMem" && v.kind >= Value::number && v.kind != Value::string && std::isfinite(v.d))
        device_.total_global_mem = v.d;
      if (event_key_ == "numSms" && v.kind == Value::integer) device_.num_sms = int64_t(v.u);
      if (event_key_ == "computeMajor" && v.kind == Value::integer) device_.compute_major = int64_t(v.u);
      if (event_key_ == "computeMinor" && v.kind == Value::integer) device_.compute_minor = int64_t(v.u);
      return true;
    }
    if (!in_events_) return true;
    if (depth_ == 3) {
      const std::string& k = event_key_;
      if (k == "ph" && v.kind == Value::string && !v.s.empty()) ph_ = v.s[0];
      else if (k == "cat" && v.kind == Value::string) cat_.assign(v.s), has_cat_ = true;
      else if (k == "name" && v.kind == Value::string) event_.name = trace_.strings.intern(v.s);
      else if (k == "ts" && (v.kind == Value::number || v.kind == Value::integer)) event_.ts_us = v.d, has_ts_ = true;
      else if (k == "dur" && (v.kind == Value::number || v.kind == Value::integer)) event_.dur_us = v.d, has_dur_ = true;
      else if (k == "pid") event_.pid = small_id(v);
      else if (k == "tid") event_.tid = small_id(v);
      else if (k == "id") {
        if (auto id = id_of(v, "flow id")) flow_id_ = *id;
      }
      return true;
    }
    if (depth_ == 4 && in_args_) {
      const std::string& k = args_key_;
      if (k == "External id") {
        if (auto id = id_of(v, "External id")) event_.external_id = *id, event_.has_external_id = true;
      } else if (k == "correlation") {
        if (auto id = id_of(v, "correlation")) event_.correlation = *id, event_.has_correlation = true;
      } else if (k == "stream" && v.kind == Value::integer) {
        event_.stream = static_cast<int32_t>(v.u);
      } else if (k == "device" && v.kind == Value::integer) {
        event_.device = static_cast<int32_t>(v.u);
      } else if (k == "Module Hierarchy" && v.kind == Value::string) {
        extras_.module_hierarchy = trace_.strings.intern(v.s);
      } else if (k == "dtype" && v.kind == Value::string) {
        extras_.dtype = trace_.strings.intern(v.s);
      } else if (v.kind == Value::integer && !v.negative && v.u <= uint64_t(INT64_MAX)) {
        if (k == "In msg nelems") extras_.in_nelems = int64_t(v.u);
        else if (k == "Out msg nelems") extras_.out_nelems = int64_t(v.u);
        else if (k == "Group size") extras_.group_size = int64_t(v.u);
      }
    }
    if (depth_ == 5 && in_args_ && args_key_ == "grid" && v.kind == Value::integer && !v.negative)  // [x, y, z]
      grid_blocks_ = std::min<uint64_t>(UINT32_MAX, (grid_blocks_ ? grid_blocks_ : 1) * std::min<uint64_t>(v.u, UINT32_MAX));
    return true;
  }

  void finish_event() {
    const uint64_t index = trace_.event_count++;
    Category category;
    if (has_cat_ && cat_ == "python_function" && trace_.strings.at(event_.name).starts_with("nn.Module: "))
      category = Category::module;  // other Python frames are skipped
    else if (!has_cat_ || !category_of(cat_, category))
      return;  // other python_function frames, metadata, ...
    event_.category = category;
    event_.ph = ph_ ? ph_ : 'X';
    if (category == Category::flow) {
      if (ph_ != 's' && ph_ != 'f' && ph_ != 't') return;
      trace_.flows.push_back(FlowEvent{flow_id_, event_.index, ph_});
      return check_memory();
    }
    if (ph_ != 'X') return;  // instants carry no duration
    if (!has_ts_ || !has_dur_)
      return trace_.note(fmt::format("{} events without {} (ignored)", cat_, has_ts_ ? "dur" : "ts"),
                         fmt::format("traceEvents[{}]", index));
    // NaN, Infinity or a time no profiler writes (Kineto keeps int64 nanoseconds: at
    // most 2^63 ns) would make every sum and trace.json's figures non-finite (issue 47, defect 5).
    if (!(std::abs(event_.ts_us) <= kMaxTimeUs) || !(std::abs(event_.dur_us) <= kMaxTimeUs))
      return trace_.note("ts or dur that is not a finite time within 2^63 ns (event ignored)",
                         fmt::format("traceEvents[{}] ts {} dur {}", index, event_.ts_us, event_.dur_us));
    if ((category == Category::user_annotation || category == Category::gpu_user_annotation) && !step_number_fits()) return;
    if (event_.dur_us < 0) {
      trace_.note("negative durations (taken as 0)", fmt::format("traceEvents[{}] dur {}", index, event_.dur_us));
      event_.dur_us = 0;
    }
    if (event_.name == 0) trace_.note("events without a name", fmt::format("traceEvents[{}]", index));
    if (extras_.any()) {
      extras_.event = static_cast<uint32_t>(trace_.events.size());
      trace_.extras.push_back(extras_);
    }
    trace_.events.push_back(event_);
    if (category == Category::cpu_op && input_strides_ != 0)
      trace_.op_strides.emplace_back(static_cast<uint32_t>(trace_.events.size() - 1), input_strides_);
    if (category == Category::kernel && grid_blocks_ > 0)
      trace_.kernel_grids.emplace_back(static_cast<uint32_t>(trace_.events.size() - 1), static_cast<uint32_t>(grid_blocks_));
    check_memory();
  }

  static constexpr double kMaxTimeUs = 9223372036854775.807;  // 2^63 ns in µs
  bool stop_ = false;  // finish_event refused: EndObject stops the parse

  bool refuse(std::string why) {
    refusal = std::move(why);
    stop_ = true;
    return false;
  }
  // ProfilerStep#N with an N beyond int64 cannot be a step (issue 47, defect 6).
  bool step_number_fits() {
    constexpr std::string_view kPrefix = "ProfilerStep#";
    const std::string_view name = trace_.strings.at(event_.name);
    if (!name.starts_with(kPrefix)) return true;
    int64_t n = 0;
    for (char c : name.substr(kPrefix.size())) {
      if (c < '0' || c > '9') return true;  // not a step name
      if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, c - '0', &n))
        return refuse(fmt::format("traceEvents[{}].name: \"{}\": the step number does not fit in 64 bits", event_.index,
                                  name.substr(0, 48)));
    }
    return true;
  }
  // The kept records (events, flows, the args few events carry, each interned string)
  // at kBytesPerKeptEvent each, plus the strings' characters, against the bound.
  void check_memory() {
    const size_t kept = trace_.events.size() + trace_.flows.size() + trace_.extras.size() + trace_.strings.size();
    const double bytes = static_cast<double>(kept) * kBytesPerKeptEvent + static_cast<double>(trace_.strings.bytes());
    if (memory_limit_bytes_ > 0 && bytes > memory_limit_bytes_)
      refuse(fmt::format("traceEvents[{}]: {} kept events and strings so far, at {:.0f} bytes each while read and analysed, "
                         "would pass the {} available (MemAvailable, or LMROOF_MEMORY_LIMIT); read the trace on a machine "
                         "with more memory, or profile fewer steps",
                         event_.index, kept, kBytesPerKeptEvent, numbers::si(memory_limit_bytes_, "B")));
  }

 public:
  double memory_limit_bytes_ = 0;

 private:

  TraceFile& trace_;
  int depth_ = 0;
  bool in_events_ = false, in_devices_ = false, in_distributed_ = false, in_args_ = false;
  std::string top_key_, event_key_, args_key_, cat_;
  char ph_ = 0;
  uint64_t flow_id_ = 0, grid_blocks_ = 0;
  uint32_t input_strides_ = 0;  // StringPool id of the event's `Input Strides` (0: none)
  bool has_ts_ = false, has_dur_ = false, has_cat_ = false;
  TraceEvent event_;
  EventExtras extras_;
  DeviceProperties device_;
  int capture_depth_ = 0;
  std::string captured_;
  bool need_comma_ = false;
};

// A byte for a message: itself when printable ASCII, else its hex.
std::string printable_byte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte >= 0x20 && byte < 0x7F ? std::string(1, c) : fmt::format("\\x{:02x}", byte);
}

bool starts_with_gzip_magic(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(fmt::format("{}: cannot be opened: {}", path.string(), std::strerror(errno)));
  unsigned char magic[2] = {0, 0};
  const size_t n = std::fread(magic, 1, 2, f);
  std::fclose(f);
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace

TraceFile read_trace(const std::filesystem::path& path, const ReadOptions& options) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(fmt::format("{}: no such file", path.string()));
  if (!std::filesystem::is_regular_file(status))
    throw InputError(fmt::format("{}: is not a regular file", path.string()));
  const bool gzipped = starts_with_gzip_magic(path);
  const std::string name = path.filename().string();
  if (!gzipped && name.size() > 3 && name.ends_with(".gz"))
    throw InputError(fmt::format("{}: byte 0: not gzip (the name ends in .gz but the file does not start with the gzip magic 1f 8b)",
                                 path.string()));
  TraceFile trace;
  trace.path = path.string();
  std::unique_ptr<ByteSource> source = std::make_unique<GzSource>(path, gzipped);
  if (options.threads > 1) source = std::make_unique<PrefetchSource>(std::move(source));
  auto stream = std::make_unique<ChunkStream>(*source, std::filesystem::file_size(path, ec), options.progress, trace.path);
  Handler handler(trace);
  handler.memory_limit_bytes_ = options.memory_limit_bytes;
  rapidjson::Reader reader;
  const rapidjson::ParseResult result =
      reader.Parse<rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseNanAndInfFlag | rapidjson::kParseIterativeFlag>(
          *stream, handler);
  trace.bytes_read = stream->Tell();
  if (result.IsError() && handler.too_deep)
    throw InputError(fmt::format("{}: byte {}{}: nested deeper than {} levels, which no profiler trace is (in {})", trace.path,
                                 result.Offset(), gzipped ? " (uncompressed)" : "", Handler::kMaxNesting, handler.where()));
  const std::string uncompressed = gzipped ? " (uncompressed)" : "";
  if (result.IsError() && !handler.refusal.empty())
    throw InputError(fmt::format("{}: byte {}{}: {}", trace.path, result.Offset(), uncompressed, handler.refusal));
  if (result.IsError()) {
    // The end of the input, or a NUL byte in it (which Peek() also shows as '\0').
    const bool at_end = result.Code() == rapidjson::kParseErrorDocumentEmpty || stream->at_end();
    if (!at_end && stream->Peek() == '\0')
      throw InputError(fmt::format("{}: byte {}{}: a NUL byte: not JSON (in {})", trace.path, stream->Tell(), uncompressed,
                                   handler.where()));
    if (result.Code() == rapidjson::kParseErrorDocumentEmpty && trace.bytes_read == 0)
      throw InputError(fmt::format("{}: byte 0: the file is empty, not JSON", trace.path));
    throw InputError(fmt::format("{}: byte {}{}: {}: {}", trace.path, result.Offset(), gzipped ? " (uncompressed)" : "",
                                 at_end ? "truncated, the JSON ends early" : "not JSON",
                                 fmt::format("{} (in {})", rapidjson::GetParseError_En(result.Code()), handler.where())));
  }
  // One document per file: a second document (two JSON texts, or a second gzip member,
  // which zlib inflates as a continuation) would otherwise go unread (issue 47, defect 3).
  while (!stream->at_end() && (stream->Peek() == ' ' || stream->Peek() == '\n' || stream->Peek() == '\r' ||
                               stream->Peek() == '\t'))
    stream->Take();
  if (!stream->at_end())
    throw InputError(fmt::format("{}: byte {}{}: content after the document ({}); a trace file holds one JSON document",
                                 trace.path, stream->Tell(), uncompressed,
                                 stream->Peek() == '\0' ? "a NUL byte" : fmt::format("'{}'", printable_byte(stream->Peek()))));
  trace.bytes_read = stream->Tell();
  if (!handler.not_an_array.empty())
    throw InputError(fmt::format("{}: traceEvents: is {}, not an array of events; not a PyTorch profiler (Chrome trace) file",
                                 trace.path, handler.not_an_array));
  if (!handler.saw_trace_events)
    throw InputError(fmt::format("{}: traceEvents: missing; not a PyTorch profiler (Chrome trace) file", trace.path));
  return trace;
}

}  // namespace lmroof::trace
