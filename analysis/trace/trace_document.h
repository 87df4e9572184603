#pragma once
// lmroof trace's own trace.json (schema lmroof.trace/2, docs/trace.schema.json) as
// `check` and `compare` read it back: every field they use is checked for presence
// and type first, so that a hand-edited or truncated file is one line naming the
// file and the field, never a library's "key not found" or a read of an absent key
// (issue 47, defect 7).
#include <nlohmann/json.hpp>

#include <string>

namespace lmroof::trace {

// Throws model::InputError ("FILE: classes[2].time_s: missing") unless `doc` has the
// fields check_trace_claims and compare_traces read, with their types: schema,
// device.name, total_time_s (a finite number >= 0), window {kind, step_count,
// total_s}, classes[] {class, time_s, flop_share, byte_share, time_share,
// fraction_of_roof (or null)}, ops[] {name, input_dims and input_types (arrays or null), class, time_s,
// roof_time_s (or null)}, and where present ranks[] {step_time_s (or null), slowest}.
void require_trace_document(const nlohmann::json& doc, const std::string& file);

}  // namespace lmroof::trace
