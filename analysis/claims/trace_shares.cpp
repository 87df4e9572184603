// A trace's class tables read for class_share claims (trace_shares.h).
#include "analysis/claims/trace_shares.h"

#include "analysis/model/json_input.h"

namespace lmroof {

const TraceClassRow* TraceClassTable::find(const std::string& op_class) const {
  for (const auto& row : rows)
    if (row.op_class == op_class) return &row;
  return nullptr;
}

namespace {

// A share absent or null stays absent: lmroof trace writes null where it has no figure
// (a class without a roof has no fraction_of_roof).
std::optional<double> share(const model::JsonCursor& row, std::string_view key) {
  const auto c = row.opt(key);
  if (!c) return std::nullopt;
  return c->non_negative();
}

void read_table(const model::JsonCursor& doc, TraceClassTable& table, bool required) {
  const auto list = required ? std::optional(doc.at(table.field)) : doc.opt(table.field);
  if (!list) return;
  table.present = true;
  for (const auto& row : list->items()) {
    row.require_object();
    table.rows.push_back({row.at("class").one_line(), share(row, "flop_share"), share(row, "byte_share"),
                          share(row, "time_share"), share(row, "fraction_of_roof")});
  }
}

}  // namespace

TraceShares read_trace_shares(const nlohmann::json& trace_doc, const std::string& file) {
  const model::JsonCursor doc(trace_doc, file);
  doc.require_object();
  TraceShares out;
  out.total_time_s = doc.at("total_time_s").non_negative();
  read_table(doc, out.lmroof, /*required=*/true);
  read_table(doc, out.ivanov, /*required=*/false);
  return out;
}

}  // namespace lmroof
