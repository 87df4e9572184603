#pragma once
// Text from an input shown on a terminal: a control character in it (ESC of a
// colour or cursor sequence, a newline, a backspace) would act on the terminal or
// forge a line, so it is shown escaped ("\x1b", "\n") instead (issue 47: device and
// op names of a trace).
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace lmroof::report {

// `text` with each control character (below 0x20, and 0x7F) escaped: "\n", "\x1b".
std::string printable(std::string_view text);

// `doc` with every string in it (keys too) made printable: for a summary rendered
// from a JSON document whose strings came from an input.
nlohmann::json printable_strings(const nlohmann::json& doc);

}  // namespace lmroof::report
