#pragma once
// `lmroof trace` and `lmroof compare A/trace.json B/trace.json` for a person: the
// terminal summary (text or markdown) of trace.json's model (analysis/model/trace_result.h).
#include <nlohmann/json.hpp>

#include "analysis/model/trace_result.h"

#include <optional>
#include <string>
#include <vector>

namespace lmroof::trace {

// "host-bound: ..." when a step leaves the GPU idle more than half of it, else "".
std::string host_bound_line(const model::TraceResult& t);
// A figure the trace may lack, as the text and the page print it: "12.5%" / "3.00 ms", or "unknown".
std::string percent_or_unknown(const std::optional<double>& v);
std::string seconds_or_unknown(const std::optional<double>& v);
// "communication: T, E of it exposed ..." when the window holds communication, else "".
std::string communication_line(const model::TraceResult& t);
// "warning: ..." for each of trace.json's rank_warnings (a folder of ranks on mixed
// devices or world sizes); none for one trace.
std::vector<std::string> rank_warning_lines(const model::TraceResult& t);
// What sets an op row apart beyond its name and shapes: "on DEVICE" (ranks on different
// devices) and "strides S, calls A to B" (a row split by layout, docs/trace.md "Layouts"); "" when neither.
std::string op_row_detail(const model::TraceOpRow& op);
// An op's input_dims or input_types (trace.json: an array, or null where the trace has
// none) as the text a person reads: "[[2,2],[2,2]]", "" for none.
std::string shapes_text(const nlohmann::json& shapes);
// "fusion estimate checked on RESULTS's N fused pairs: median |error| X%, from A% to B%"
// where trace.json has a fix_first_check (trace --ceilings), else "".
std::string fusion_check_line(const model::TraceResult& t);
// "device: NAME (roofs from ...)": the device and where its roofs come from.
std::string device_line(const model::TraceResult& t);
// The summary of one trace (analysis/trace/trace_output.h: to_trace_result); its texts
// as given (the caller makes them printable: model::visit_strings).
std::string to_text(const model::TraceResult& t, bool markdown);
// The change between two traces (analysis/trace/trace_compare.h: compare_traces).
std::string compare_text(const nlohmann::json& report, bool markdown);
// Its cells, shared with the page (reports/trace_compare_report.h): a side's step time
// ("no steps" where it has none), a new/base ratio ("-" where base is 0), a fraction of
// the roof ("-" where unknown or the shape is absent on that side).
std::string compare_side_time(const nlohmann::json& seconds);
std::string compare_ratio(const nlohmann::json& ratio);
std::string compare_fraction_of_roof(const nlohmann::json& fraction);

}  // namespace lmroof::trace
