#pragma once
// A trace's class tables as class_share claims read them (docs/trace.md#claims):
// trace.json's `classes` (lmroof's grouping) and `ivanov_classes` (Ivanov et al.'s
// three classes), each row's shares read and checked field by field.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/claims/claims.h"

namespace lmroof {

struct TraceClassRow {
  std::string op_class;
  std::optional<double> flop_share, byte_share, time_share, fraction_of_roof;  // null in trace.json: absent
};

struct TraceClassTable {
  std::string field;  // "classes", "ivanov_classes": where it was read, for evidence and reasons
  bool present = false;
  std::vector<TraceClassRow> rows;
  const TraceClassRow* find(const std::string& op_class) const;
};

struct TraceShares {
  double total_time_s = 0;  // 0: no device time, nothing to share out
  TraceClassTable lmroof{"classes", false, {}}, ivanov{"ivanov_classes", false, {}};
  const TraceClassTable& table(Grouping grouping) const { return grouping == Grouping::ivanov ? ivanov : lmroof; }
};

// Throws model::InputError "FILE: FIELD: problem" (exit 2) for a field of the wrong
// type, a share that is not a finite number at least 0, or a missing total_time_s or
// `classes`. `ivanov_classes` may be absent (a trace.json from before it): its claims
// are then not measured, with the reason.
TraceShares read_trace_shares(const nlohmann::json& trace_doc, const std::string& file);

}  // namespace lmroof
