#include "analysis/numbers/markdown.h"

namespace lmroof::model {

std::string markdown_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '`': out += "&#96;"; break;
      case '|': out += "\\|"; break;
      case '\n':
      case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace lmroof::model
