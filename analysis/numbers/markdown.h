#pragma once
// Text from a results or claims file inside markdown (`check --format markdown`,
// `compare --format markdown`). Forges render markdown as HTML, so a string such as
// `<img src=x onerror=...>` from a results file must arrive as text, not as markup.
#include <string>
#include <string_view>

namespace lmroof::model {

// One table cell or inline text: '<', '>', '&' and '`' as HTML character references
// (inert in text and in code spans), '|' escaped so it cannot split a table row,
// line breaks as spaces so the row stays one line.
std::string markdown_text(std::string_view text);

}  // namespace lmroof::model
