// Number formatting and HTML escaping for the report; see reports/format.h.
#include "reports/format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace lmroof::report {

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

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

const nlohmann::json* find(const nlohmann::json& j, std::initializer_list<std::string_view> path) {
  const nlohmann::json* at = &j;
  for (auto key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

std::optional<double> number(const nlohmann::json& j, std::initializer_list<std::string_view> path) {
  const auto* v = find(j, path);
  if (!v || !v->is_number()) return std::nullopt;
  const double d = v->get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::string text(const nlohmann::json& j, std::initializer_list<std::string_view> path, std::string_view fallback) {
  const auto* v = find(j, path);
  if (!v || !v->is_string()) return std::string(fallback);
  return v->get<std::string>();
}

std::string shape_label(const nlohmann::json& shape, std::initializer_list<std::string_view> skip) {
  static constexpr std::array<std::string_view, 10> order = {"tokens",       "batch",   "d_model",  "d_ff",     "in_features",
                                                             "out_features", "q_heads", "kv_heads", "head_dim", "context"};
  if (!shape.is_object()) return "";
  auto skipped = [&](std::string_view k) { return std::find(skip.begin(), skip.end(), k) != skip.end(); };
  auto value_of = [](const nlohmann::json& v) {
    if (v.is_number()) return integer_or_sig(v.get<double>());
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
  };
  std::vector<std::string> parts;
  for (auto k : order)
    if (!skipped(k) && shape.contains(k)) parts.push_back(fmt::format("{}={}", k, value_of(shape.at(std::string(k)))));
  for (const auto& [k, v] : shape.items())
    if (!skipped(k) && std::find(order.begin(), order.end(), k) == order.end()) parts.push_back(fmt::format("{}={}", k, value_of(v)));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

}  // namespace lmroof::report
