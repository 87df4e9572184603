#include "analysis/trace/trace_schema.h"

#include <fmt/format.h>

#include "analysis/model/input_error.h"

namespace lmroof::trace {

using nlohmann::json;

json shapes_json(const std::string& raw) {
  if (raw.empty()) return nullptr;
  // The reader kept a slice of JSON it had already parsed, so this cannot fail on a
  // trace lmroof read; anything else is a bug, said as one.
  json v = json::parse(raw, nullptr, false);
  if (v.is_discarded() || !v.is_array()) throw std::logic_error(fmt::format("kept Input Dims/type '{}' is not a JSON array", raw));
  return v;
}

namespace {

// One /1 field (JSON text of an array, "" or null where absent) as /2 holds it.
json shapes_from_text(const json& v, const std::string& file, const std::string& at) {
  if (v.is_null()) return nullptr;
  const auto fail = [&](const std::string& why) {
    return model::InputError(fmt::format("{}: {}: {}; not a {} trace.json lmroof trace wrote", file, at, why, kTraceSchemaV1));
  };
  if (!v.is_string()) throw fail(fmt::format("is {}, not the JSON text of an array", v.is_array() ? "already an array" : v.type_name()));
  const std::string& text = v.get_ref<const std::string&>();
  if (text.empty()) return nullptr;
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_array()) throw fail("is not the JSON text of an array");
  return parsed;
}

void migrate_rows(json& rows, const std::string& file, const std::string& at) {
  if (!rows.is_array()) return;  // model::read_trace_result names what is missing
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].is_object()) continue;
    for (const char* key : {"input_dims", "input_types"})
      if (rows[i].contains(key)) rows[i][key] = shapes_from_text(rows[i][key], file, fmt::format("{}[{}].{}", at, i, key));
  }
}

}  // namespace

json migrate_trace_v1(json doc, const std::string& file) {
  if (doc.contains("ops")) migrate_rows(doc["ops"], file, "ops");
  if (doc.contains("what_if") && doc["what_if"].is_array())
    for (size_t i = 0; i < doc["what_if"].size(); ++i)
      if (doc["what_if"][i].is_object() && doc["what_if"][i].contains("ops"))
        migrate_rows(doc["what_if"][i]["ops"], file, fmt::format("what_if[{}].ops", i));
  doc["schema"] = kTraceSchema;
  return doc;
}

}  // namespace lmroof::trace
