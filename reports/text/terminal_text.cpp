#include "reports/text/terminal_text.h"

#include <fmt/format.h>

namespace lmroof::report {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (byte < 0x20 || byte == 0x7F) out += fmt::format("\\x{:02x}", byte);
    else out += c;
  }
  return out;
}

nlohmann::json printable_strings(const nlohmann::json& doc) {
  if (doc.is_string()) return printable(doc.get_ref<const std::string&>());
  if (doc.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : doc) out.push_back(printable_strings(v));
    return out;
  }
  if (doc.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, v] : doc.items()) out[printable(key)] = printable_strings(v);
    return out;
  }
  return doc;
}

}  // namespace lmroof::report
