#include "analysis/trace/trace_document.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "analysis/model/input_error.h"

namespace lmroof::trace {

namespace {

using nlohmann::json;

// What a field holds, for the message.
std::string_view type_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

enum class Want { string, object, array, array_or_null, time, number, number_or_null, boolean };

class Checker {
 public:
  explicit Checker(const std::string& file) : file_(file) {}

  // `parent`'s `key`, which must be present and of the kind wanted; `at` names `parent`.
  const json& field(const json& parent, const char* key, Want want, const std::string& at) const {
    const std::string name = at.empty() ? key : at + "." + key;
    const auto it = parent.find(key);
    if (it == parent.end()) fail(name, "missing");
    const json& v = *it;
    const bool ok = want == Want::string           ? v.is_string()
                    : want == Want::object         ? v.is_object()
                    : want == Want::array          ? v.is_array()
                    : want == Want::array_or_null  ? v.is_array() || v.is_null()
                    : want == Want::number_or_null ? v.is_null() || v.is_number()
                    : want == Want::boolean        ? v.is_boolean()
                                                   : v.is_number();
    if (!ok) fail(name, fmt::format("is {}, not {}", type_of(v), wanted(want)));
    // A time is a duration: never negative; JSON numbers are finite, but checked
    // anyway should the document come from elsewhere than the parser.
    if (want == Want::time && !(v.get<double>() >= 0 && std::isfinite(v.get<double>())))
      fail(name, fmt::format("{} is not a time (a finite number of seconds, 0 or more)", v.dump()));
    return v;
  }
  // `doc`'s array `key`, each element an object whose fields `row(element, "key[i]")` checks.
  template <typename Row>
  void rows(const json& doc, const char* key, Row row) const {
    const json& array = field(doc, key, Want::array, "");
    for (size_t i = 0; i < array.size(); ++i) {
      const std::string at = fmt::format("{}[{}]", key, i);
      if (!array[i].is_object()) fail(at, fmt::format("is {}, not an object", type_of(array[i])));
      row(array[i], at);
    }
  }
  [[noreturn]] void fail(const std::string& name, const std::string& why) const {
    throw model::InputError(fmt::format("{}: {}: {}; not a trace.json lmroof trace wrote (docs/trace.schema.json)", file_,
                                        name, why));
  }

 private:
  static std::string_view wanted(Want want) {
    switch (want) {
      case Want::string: return "a string";
      case Want::object: return "an object";
      case Want::array: return "an array";
      case Want::array_or_null: return "an array or null";
      case Want::time: return "a time in seconds";
      case Want::number: return "a number";
      case Want::number_or_null: return "a number or null";
      case Want::boolean: return "a boolean";
    }
    return "";
  }
  const std::string& file_;
};

}  // namespace

void require_trace_document(const json& doc, const std::string& file) {
  const Checker check(file);
  if (!doc.is_object()) check.fail("the top level", fmt::format("is {}, not an object", type_of(doc)));
  check.field(check.field(doc, "device", Want::object, ""), "name", Want::string, "device");
  check.field(doc, "total_time_s", Want::time, "");
  const json& window = check.field(doc, "window", Want::object, "");
  check.field(window, "kind", Want::string, "window");
  check.field(window, "step_count", Want::number, "window");
  check.field(window, "total_s", Want::time, "window");
  check.rows(doc, "classes", [&](const json& row, const std::string& at) {
    check.field(row, "class", Want::string, at);
    check.field(row, "time_s", Want::time, at);
    for (const char* metric : {"flop_share", "byte_share", "time_share"}) check.field(row, metric, Want::number, at);
    check.field(row, "fraction_of_roof", Want::number_or_null, at);
  });
  check.rows(doc, "ops", [&](const json& row, const std::string& at) {
    for (const char* key : {"name", "class"}) check.field(row, key, Want::string, at);
    for (const char* key : {"input_dims", "input_types"}) check.field(row, key, Want::array_or_null, at);
    check.field(row, "time_s", Want::time, at);
    check.field(row, "roof_time_s", Want::number_or_null, at);
  });
  // A folder of ranks: compare takes its step time from the slowest rank.
  if (!doc.contains("ranks")) return;
  check.rows(doc, "ranks", [&](const json& row, const std::string& at) {
    check.field(row, "step_time_s", Want::number_or_null, at);
    check.field(row, "slowest", Want::boolean, at);
  });
}

}  // namespace lmroof::trace
