#include "analysis/model/trace_result.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/model/json_input.h"

namespace lmroof::model {

namespace {

// A number that may be null (trace.json writes null where it has no figure), at least 0.
std::optional<double> non_negative_or_null(const JsonCursor& row, std::string_view key) {
  const JsonCursor c = row.at(key);  // present, even when null
  if (c.is_null()) return std::nullopt;
  return c.non_negative();
}

// An op's input_dims or input_types: arrays as PyTorch's profiler wrote them, or null.
nlohmann::json shapes(const JsonCursor& row, std::string_view key) {
  const JsonCursor c = row.at(key);
  if (!c.is_null() && !c.json().is_array())
    c.fail("must be an array or null (schema lmroof.trace/2; a file of lmroof.trace/1 holds text: `lmroof migrate` "
           "rewrites it)");
  return c.json();
}

void read_class_table(const JsonCursor& doc, TraceClassTable& table, bool required) {
  const auto list = required ? std::optional(doc.at(table.field)) : doc.opt(table.field);
  if (!list) return;
  table.present = true;
  for (const auto& row : list->items()) {
    row.require_object();
    TraceClassRow r;
    r.op_class = row.at("class").one_line();
    // Times and shares: finite and at least 0, as lmroof trace writes them.
    for (auto [key, field] : {std::pair{"time_s", &TraceClassRow::time_s}, std::pair{"flop_share", &TraceClassRow::flop_share},
                              std::pair{"byte_share", &TraceClassRow::byte_share}, std::pair{"time_share", &TraceClassRow::time_share}})
      r.*field = row.at(key).non_negative();
    r.fraction_of_roof = non_negative_or_null(row, "fraction_of_roof");
    table.rows.push_back(std::move(r));
  }
}

TraceWhatIf read_what_if(const JsonCursor& w) {
  w.require_object();
  TraceWhatIf p;
  p.device = w.at("device").one_line();
  if (const auto steps = w.opt("step_count")) p.step_count = std::max(1.0, steps->non_negative());
  const JsonCursor busy = w.at("busy_s");
  p.busy_predicted_s = busy.at("predicted").non_negative();
  p.busy_low_s = busy.at("low").non_negative();
  p.busy_high_s = busy.at("high").non_negative();
  const JsonCursor naive = w.at("naive");
  p.same_time_busy_s = naive.at("same_time_busy_s").non_negative();
  p.datasheet_busy_s = naive.at("datasheet_busy_s").non_negative();
  p.step_predicted_s = w.at("step_time_s").at("predicted").non_negative();
  for (const auto& c : w.at("classes").items()) {
    c.require_object();
    p.classes.push_back({c.at("class").one_line(), c.at("predicted_s").non_negative()});
  }
  for (const auto& o : w.at("ops").items()) {
    o.require_object();
    p.ops.push_back({o.at("name").string(kMaxTextLength), shapes(o, "input_dims"), shapes(o, "input_types"),
                     o.at("predicted_s").non_negative()});
  }
  return p;
}

}  // namespace

const TraceClassRow* TraceClassTable::find(const std::string& op_class) const {
  for (const auto& row : rows)
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
  return window.total_s / window.step_count;
}

TraceResult read_trace_result(const nlohmann::json& json, const std::string& file) {
  const JsonCursor doc(json, file);
  doc.require_object();
  TraceResult t;
  t.file = file;
  const JsonCursor device = doc.at("device");
  t.device_name = device.at("name").string();
  if (const auto table = device.opt("table_name")) t.device_table_name = table->string();
  t.total_time_s = doc.at("total_time_s").non_negative();
  const JsonCursor window = doc.at("window");
  t.window.kind = window.at("kind").one_line();
  t.window.step_count = window.at("step_count").non_negative();
  t.window.total_s = window.at("total_s").non_negative();
  if (const auto busy = window.opt("busy_s")) t.window.busy_s = busy->non_negative();
  read_class_table(doc, t.classes, /*required=*/true);
  read_class_table(doc, t.ivanov_classes, /*required=*/false);
  for (const auto& op : doc.at("ops").items()) {
    op.require_object();
    TraceOpRow r;
    r.name = op.at("name").string(kMaxTextLength);
    r.op_class = op.at("class").one_line();
    r.input_dims = shapes(op, "input_dims");
    r.input_types = shapes(op, "input_types");
    r.time_s = op.at("time_s").non_negative();
    r.roof_time_s = non_negative_or_null(op, "roof_time_s");
    t.ops.push_back(std::move(r));
  }
  // A folder of ranks: compare takes its step time from the slowest rank.
  if (const auto ranks = doc.opt("ranks")) {
    t.ranks.emplace();
    for (const auto& r : ranks->items()) {
      r.require_object();
      t.ranks->push_back({non_negative_or_null(r, "step_time_s"), r.at("slowest").boolean()});
    }
  }
  if (const auto what_if = doc.opt("what_if"))
    for (const auto& w : what_if->items()) t.what_if.push_back(read_what_if(w));
  return t;
}

}  // namespace lmroof::model
