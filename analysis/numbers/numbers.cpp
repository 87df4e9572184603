#include "analysis/numbers/numbers.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace lmroof::numbers {

namespace {

// Rounds |value| to `digits` significant digits and returns its decimal exponent
// after rounding (so 999.7 at three digits has exponent 3).
int rounded_exponent(double value, int digits) {
  const double a = std::fabs(value);
  int e = static_cast<int>(std::floor(std::log10(a)));
  const double step = std::pow(10.0, e - digits + 1);
  if (std::round(a / step) * step >= std::pow(10.0, e + 1)) ++e;
  return e;
}

}  // namespace

std::string sig(double value, int digits) {
  if (!std::isfinite(value)) return std::string(kDash);
  if (value == 0) return "0";
  const int e = rounded_exponent(value, digits);
  if (e >= 15 || e <= -15) return fmt::format("{:.{}e}", value, digits - 1);
  const int decimals = std::max(0, digits - 1 - e);
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.starts_with("-") && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);  // "-0.00"
  return s;
}

std::string si(double value, std::string_view unit) {
  if (!std::isfinite(value)) return std::string(kDash);
  if (value == 0) return fmt::format("0 {}", unit);
  static constexpr std::array<std::string_view, 11> prefixes = {"p", "n", "\u00b5", "m", "", "k", "M", "G", "T", "P", "E"};
  constexpr int kOffset = 4;  // prefixes[4] is no prefix
  int e3 = static_cast<int>(std::floor(rounded_exponent(value, 3) / 3.0));
  e3 = std::clamp(e3, -kOffset, static_cast<int>(prefixes.size()) - 1 - kOffset);
  const double mantissa = value / std::pow(1000.0, e3);
  return fmt::format("{} {}{}", sig(mantissa), prefixes[e3 + kOffset], unit);
}

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return std::string(kDash);
  return sig(fraction * 100.0) + "%";
}

std::string ratio(double value) {
  if (!std::isfinite(value)) return std::string(kDash);
  return sig(value) + "\u00d7";
}

std::string integer_or_sig(double value) {
  if (!std::isfinite(value)) return std::string(kDash);
  if (std::fabs(value) < 1e6 && value == std::floor(value)) return fmt::format("{}", static_cast<long long>(value));
  if (std::fabs(value) >= 1e6) return si(value, "");
  return sig(value);
}

}  // namespace lmroof::numbers
