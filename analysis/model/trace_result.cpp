#include "analysis/model/trace_result.h"

#include <fmt/format.h>

#include "analysis/model/json_input.h"

namespace lmroof::model {

namespace {

// An op's input_dims or input_types: arrays as PyTorch's profiler wrote them, or null.
void require_shapes(const JsonCursor& row, std::string_view key) {
  const JsonCursor c = row.at(key);
  if (!c.is_null() && !c.json().is_array())
    c.fail("must be an array or null (schema lmroof.trace/2; a file of lmroof.trace/1 holds text: `lmroof migrate` "
           "rewrites it)");
}

// A class name, shown in check's reasons ("has: ..."): one line on a terminal.
void require_one_line_classes(const JsonCursor& list) {
  for (const auto& row : list.items()) (void)row.at("class").one_line();
}

void require_op_shapes(const JsonCursor& list) {
  for (const auto& op : list.items()) {
    require_shapes(op, "input_dims");
    require_shapes(op, "input_types");
  }
}

}  // namespace

const TraceClassRow* find_class(const std::vector<TraceClassRow>& table, const std::string& op_class) {
  for (const auto& row : table)
    if (row.op_class == op_class) return &row;
  return nullptr;
}

std::optional<double> TraceResult::step_time_s() const {
  if (ranks) {
    for (const auto& r : *ranks)
      if (r.slowest && r.step_time_s) return r.step_time_s;
    return std::nullopt;
  }
  if (window.kind != "steps" || window.step_count < 1) return std::nullopt;
  return window.total_s / static_cast<double>(window.step_count);
}

TraceResult read_trace_result(const nlohmann::json& json, const std::string& file) {
  const JsonCursor doc(json, file);
  TraceResult t = read_fields<TraceResult>(doc);
  t.file = file;
  // Checked beyond their type: the shapes (trace/1 wrote them as text) and the class names.
  require_op_shapes(doc.at("ops"));
  require_one_line_classes(doc.at("classes"));
  if (t.ivanov_classes) require_one_line_classes(doc.at("ivanov_classes"));
  if (t.what_if)
    for (const auto& w : doc.at("what_if").items()) require_op_shapes(w.at("ops"));
  return t;
}

nlohmann::json to_json(const TraceResult& result) { return write_fields(result); }

}  // namespace lmroof::model
