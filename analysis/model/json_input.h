#pragma once
// Reading JSON that came from outside: parsing with a nesting-depth limit (a deeply
// nested document cannot exhaust the stack of anything that walks it later) and a
// cursor that knows its JSON pointer, so every validation error names file and field:
//   "results.json: /runs/3/time_s/median: must be a positive number (is -1)".
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/input_error.h"
#include "kernels/run_names/op_class.h"

namespace lmroof::model {

inline constexpr int kMaxJsonDepth = 64;
// Identifiers, names and labels; long free text (claim sentences, measured summaries).
inline constexpr size_t kMaxNameLength = 1024;
inline constexpr size_t kMaxTextLength = 64 * 1024;
inline constexpr uintmax_t kMaxInputBytes = uintmax_t{2} << 30;  // 2 GiB

// Parses `text`; malformed JSON or nesting deeper than kMaxJsonDepth throws
// InputError "ORIGIN:LINE:COLUMN: ...".
// A key given twice in one object is refused (lmroof's own files and configs), or, for
// Google Benchmark's JSON, which repeats a built-in field when a user counter has its
// name (lmroof's runs before 2026-12-02 counted "threads"), the last value is kept, as
// every earlier reader did.
enum class DuplicateKeys { refuse, last_wins };
nlohmann::json parse_json(std::string_view text, const std::string& origin,
                          DuplicateKeys duplicates = DuplicateKeys::refuse);
// Google Benchmark writes a value that is not a number as NaN, -NaN, Infinity or
// -Infinity (e.g. the cv aggregate of a counter that is 0 in every repetition), which
// JSON lacks. Outside strings they become null here: analysis never uses them, and an
// iteration's time or counter that is null is then rejected with its path. One
// function for both sides of bench.json: bench (its measurement in memory) and
// analysis (the file read).
std::string nan_tokens_to_null(std::string_view text);
// Reads and parses a file ("FILE: cannot open file", size-limited).
nlohmann::json read_json_file(const std::filesystem::path& path);
// The whole file as text. Every input lmroof reads comes through here: a regular
// file only (a FIFO, /dev/zero or a folder is refused at once: "FILE: is a named
// pipe; give a regular file"), of at most `max_bytes` (docs/results-schema.md, "Input
// limits"); throws InputError naming it.
std::string read_text_file(const std::filesystem::path& path, uintmax_t max_bytes = kMaxInputBytes);

// Where `text` first breaks UTF-8 (a stray continuation byte, a truncated or overlong
// sequence, a surrogate, a code point past U+10FFFF); nothing when it is valid.
std::optional<size_t> first_invalid_utf8(std::string_view text);
// Throws InputError "ORIGIN:LINE:COLUMN: invalid UTF-8 (byte 0xFF)" at the first break.
void require_utf8(std::string_view text, const std::string& origin);

// What makes `text` unfit to print as one line on a terminal: a control character
// (ESC, BEL, CR, newline, ...) or a bidirectional override (U+202A-U+202E,
// U+2066-U+2069), named as "U+001B"; nothing when it is fit.
std::optional<std::string> terminal_unsafe_character(std::string_view text);

// "/runs/3" + "time_s" -> "/runs/3/time_s" (RFC 6901 escaping of ~ and /).
std::string pointer_append(const std::string& pointer, std::string_view key);

// A JSON value and where it is. Accessors check type and range and throw InputError
// "FILE: POINTER: problem".
class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& value, const std::string& file, std::string pointer = "");

  const nlohmann::json& json() const { return *value_; }
  std::string pointer() const;  // "" for the document itself
  const std::string& file() const { return *file_; }
  [[noreturn]] void fail(std::string_view problem) const;

  bool is_null() const { return value_->is_null(); }
  // Object members: `at` requires the key, `opt` gives nullopt when absent or null.
  JsonCursor at(std::string_view key) const;
  std::optional<JsonCursor> opt(std::string_view key) const;
  bool has(std::string_view key) const;
  // Arrays.
  std::vector<JsonCursor> items() const;        // requires an array
  std::vector<std::pair<std::string, JsonCursor>> members() const;  // requires an object
  void require_object() const;

  std::string string(size_t max_length = kMaxNameLength) const;
  // A string shown on a terminal as one line (a host name, a CPU model, a label):
  // no control characters or bidirectional overrides.
  std::string one_line(size_t max_length = kMaxNameLength) const;
  std::string one_of(std::initializer_list<std::string_view> allowed) const;
  std::string one_of(std::span<const std::string_view> allowed) const;
  // An operator class by its name (kernels/run_names/op_class.h; "matrix", the name
  // before 2026-12-07, reads as matmul).
  OpClass op_class() const;
  bool boolean() const;
  double number() const;        // finite
  double positive() const;      // finite, > 0
  double non_negative() const;  // finite, >= 0
  double fraction() const;      // finite, in [0, 1] (with rounding slack)
  int64_t integer(int64_t min, int64_t max) const;
  std::vector<std::string> strings(size_t max_length = kMaxNameLength) const;

 private:
  // The path is kept as segments and spelled out only for a message: reading a results
  // file makes millions of cursors and fails at most once. A key segment views the
  // key inside the document (stable while it lives), so a cursor never allocates.
  struct Segment {
    std::string_view key;  // an object member's key, or
    size_t index = 0;      // an array element's index when key.data() is null
  };
  static constexpr size_t kInlineSegments = 8;
  JsonCursor child(const nlohmann::json& value, Segment segment) const;

  const nlohmann::json* value_;
  const std::string* file_;
  std::string prefix_;  // the pointer given to the constructor and, deeper than 8, what precedes segments_
  std::array<Segment, kInlineSegments> segments_{};
  size_t depth_ = 0;  // segments in use
};

// A kernel launch's grid or block dimensions: at most 3 whole numbers in [0, 2^32], as
// bench.json and results.json both spell them.
std::vector<int64_t> launch_dims(const JsonCursor& c);

}  // namespace lmroof::model
