#pragma once
// Readable numbers, one set for the report, the claims table and the CLI: SI
// prefixes with three significant digits ("1.27 ms", "30.4 GB/s", "201 GFLOP/s").
// A value that is not finite shows as a dash (not measured).
#include <string>
#include <string_view>

namespace lmroof::numbers {

inline constexpr std::string_view kDash = "\u2014";

// `digits` significant digits, fixed notation: sig(0.0123) == "0.0123", sig(1.5) == "1.50".
std::string sig(double value, int digits = 3);
// SI prefix (p n µ m k M G T P E) and unit: si(1.27e-3, "s") == "1.27 ms".
std::string si(double value, std::string_view unit);
// A fraction as a percentage with three significant digits: percent(0.0123) == "1.23%".
std::string percent(double fraction);
// "1.52×"
std::string ratio(double value);
// Dimensionless number, SI-prefixed when large: integer_or_sig(4096) == "4096",
// integer_or_sig(3.4e10) == "34.0 G".
std::string integer_or_sig(double value);

}  // namespace lmroof::numbers
