// HTML escaping and shape labels for the report; see reports/format.h.
#include "reports/text/format.h"

#include <algorithm>

#include <fmt/format.h>

namespace lmroof::report {

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

std::string shape_label(const model::Catalogue& catalogue, const model::Shape& shape, const std::vector<std::string>& skip) {
  return catalogue.label(shape, " ", skip);
}

}  // namespace lmroof::report
