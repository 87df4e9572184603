#pragma once
// trace.json's schema versions (docs/trace.schema.json). lmroof.trace/2 holds each op's
// input_dims and input_types as the arrays the trace has (Input Dims: an array per
// argument, [] for a non-tensor one; Input type: an array of strings), null where the
// op has none; lmroof.trace/1 held them as the trace's JSON text inside a string, so a
// script had to parse them twice. `lmroof migrate` turns a /1 file into /2; check and
// compare refuse /1 with one line naming that command.
#include <nlohmann/json.hpp>

#include <string>

namespace lmroof::trace {

inline constexpr const char* kTraceSchema = "lmroof.trace/2";
inline constexpr const char* kTraceSchemaV1 = "lmroof.trace/1";

// The trace's Input Dims or Input type as kept (its raw JSON text, "" where absent), as
// the value trace.json /2 holds: the parsed array, or null where absent.
nlohmann::json shapes_json(const std::string& raw);

// `doc`, an lmroof.trace/1 document, as lmroof.trace/2: every ops[] and what_if[].ops[]
// input_dims and input_types parsed from its text. Throws model::InputError naming
// `file` and the field where one is not the JSON text of an array (or "" / null).
nlohmann::json migrate_trace_v1(nlohmann::json doc, const std::string& file);

}  // namespace lmroof::trace
