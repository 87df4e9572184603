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

enum class Want { string, object, array, time, number, number_or_null };

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
                    : want == Want::number_or_null ? v.is_null() || v.is_number()
                                                   : v.is_number();
    if (!ok) fail(name, fmt::format("is {}, not {}", type_of(v), wanted(want)));
    // A time is a duration: never negative; JSON numbers are finite, but checked
    // anyway should the document come from elsewhere than the parser.
    if (want == Want::time && !(v.get<double>() >= 0 && std::isfinite(v.get<double>())))
      fail(name, fmt::format("{} is not a time (a finite number of seconds, 0 or more)", v.dump()));
    return v;
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
      case Want::time: return "a time in seconds";
      case Want::number: return "a number";
      case Want::number_or_null: return "a number or null";
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
  const json& classes = check.field(doc, "classes", Want::array, "");
  for (size_t i = 0; i < classes.size(); ++i) {
    const std::string at = fmt::format("classes[{}]", i);
    if (!classes[i].is_object()) check.fail(at, fmt::format("is {}, not an object", type_of(classes[i])));
    check.field(classes[i], "class", Want::string, at);
    check.field(classes[i], "time_s", Want::time, at);
    for (const char* metric : {"flop_share", "byte_share", "time_share"}) check.field(classes[i], metric, Want::number, at);
    check.field(classes[i], "fraction_of_roof", Want::number_or_null, at);
  }
  const json& ops = check.field(doc, "ops", Want::array, "");
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string at = fmt::format("ops[{}]", i);
    if (!ops[i].is_object()) check.fail(at, fmt::format("is {}, not an object", type_of(ops[i])));
    for (const char* key : {"name", "input_dims", "input_types", "class"}) check.field(ops[i], key, Want::string, at);
    check.field(ops[i], "time_s", Want::time, at);
  }
}

}  // namespace lmroof::trace
