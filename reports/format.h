#pragma once
// Readable numbers and safe text for the HTML report: SI prefixes with three
// significant digits ("1.27 ms", "30.4 GB/s", "201 GFLOP/s"), HTML escaping, and
// null-tolerant access into results.json.
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace lmroof::report {

// `digits` significant digits, fixed notation: sig(0.0123) == "0.0123", sig(1.5) == "1.50".
std::string sig(double value, int digits = 3);
// SI prefix (p n µ m k M G T P) and unit: si(1.27e-3, "s") == "1.27 ms".
std::string si(double value, std::string_view unit);
// A fraction as a percentage with three significant digits: percent(0.0123) == "1.23%".
std::string percent(double fraction);
// "1.52×"
std::string ratio(double value);
// Dimensionless number, SI-prefixed when large: count(4096) == "4096", count(3.4e10) == "34.0 G".
std::string integer_or_sig(double value);

// Escapes & < > " ' for text and attribute values.
std::string html_escape(std::string_view text);

// Dash shown for values that were not measured.
inline constexpr std::string_view kDash = "\u2014";

// The value at `path` inside `j`, or nullptr when any step is missing or not an object.
const nlohmann::json* find(const nlohmann::json& j, std::initializer_list<std::string_view> path);
// The number at `path`, or nullopt when absent, null or not a number.
std::optional<double> number(const nlohmann::json& j, std::initializer_list<std::string_view> path);
// The string at `path`, or `fallback` when absent or not a string.
std::string text(const nlohmann::json& j, std::initializer_list<std::string_view> path, std::string_view fallback = "");

// "tokens=4096 d_model=1024": dimensions in the canonical order of the results schema
// (tokens, batch, d_model, d_ff, in_features, out_features, q_heads, kv_heads,
// head_dim, context; unknown names after them), skipping the names in `skip`.
std::string shape_label(const nlohmann::json& shape, std::initializer_list<std::string_view> skip = {});

}  // namespace lmroof::report
