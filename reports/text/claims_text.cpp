// The verdicts for people: terminal text, the Markdown table, the summary and the
// noise floors' line (reports/text/claims_text.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "reports/text/claims_text.h"

#include "analysis/claims/claims.h"
#include "analysis/claims/verdict_cause.h"
#include "analysis/numbers/markdown.h"
#include "reports/text/verdict_text.h"

namespace lmroof {

namespace {

// Word-wraps `text` to `width`; a word longer than the width (a run id) is split after
// a '/' where one fits, else at the width. Nothing is left out.
std::vector<std::string> wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word, line;
  while (words >> word) {
    while (word.size() > width) {
      if (!line.empty()) lines.push_back(line), line.clear();
      size_t cut_at = word.rfind('/', width - 1);
      cut_at = cut_at == std::string::npos || cut_at < width / 2 ? width : cut_at + 1;
      lines.push_back(word.substr(0, cut_at));
      word = word.substr(cut_at);
    }
    if (line.empty())
      line = word;
    else if (line.size() + 1 + word.size() <= width)
      line += " " + word;
    else
      lines.push_back(line), line = word;
  }
  if (!line.empty()) lines.push_back(line);
  if (lines.empty()) lines.emplace_back();
  return lines;
}

const char* colour_of(model::Verdict v) {
  switch (v) {
    case model::Verdict::holds: return "\033[32m";
    case model::Verdict::fails: return "\033[1;31m";
    case model::Verdict::inconclusive: return "\033[33m";
    case model::Verdict::not_measured: return "\033[2m";
  }
  return "";
}

std::string markdown_cell(const std::string& text) { return model::markdown_text(text); }

}  // namespace

std::string format_claims_text(const std::vector<model::ClaimVerdict>& claims, int width, bool colour) {
  width = std::max(width, 60);
  constexpr size_t kVerdict = 14;  // "NOT MEASURED" + gap
  const size_t text_w = static_cast<size_t>(width) - kVerdict;
  std::string out;
  for (const auto* c : verdicts_in_report_order(claims)) {
    std::string verdict(model::to_string(c->verdict));
    std::transform(verdict.begin(), verdict.end(), verdict.begin(), [](unsigned char ch) { return std::toupper(ch); });
    // An untrustworthy "holds" is not a hold (issue 45): marked, and never green.
    const bool untrusted_hold = c->untrustworthy && c->verdict == model::Verdict::holds;
    if (untrusted_hold) verdict += "?";
    const std::string pad(kVerdict - verdict.size(), ' ');
    const auto head = wrap(fmt::format("{} [{} evidence]", c->id, model::to_string(c->evidence_kind)), text_w);
    const char* shade = colour_of(untrusted_hold ? model::Verdict::inconclusive : c->verdict);
    out += (colour ? std::string(shade) + verdict + "\033[0m" : verdict) + pad + head[0] + "\n";
    for (size_t i = 1; i < head.size(); ++i) out += std::string(kVerdict, ' ') + head[i] + "\n";
    auto field = [&](const char* label, const std::string& text) {
      if (text.empty() || text == "-") return;
      const std::string lead = fmt::format("{:<10}", label);
      const auto lines = wrap(text, text_w - lead.size());
      for (size_t i = 0; i < lines.size(); ++i)
        out += std::string(kVerdict, ' ') + (i == 0 ? lead : std::string(lead.size(), ' ')) + lines[i] + "\n";
    };
    field("claim", c->statement);
    field("expected", c->expected);
    field("measured", c->measured);
    if (c->reason) field(c->verdict == model::Verdict::inconclusive ? "why" : "reason", *c->reason);
    if (c->cause) field("cause", std::string(model::to_string(*c->cause)) + (c->cause_detail ? ": " + *c->cause_detail : std::string()));
    if (c->untrustworthy) field("untrusted", *c->untrustworthy);
    out += "\n";
  }
  for (const auto& l : wrap(fmt::format("{} claim{}: {}", claims.size(), claims.size() == 1 ? "" : "s",
                                       verdict_summary(claims)),
                           static_cast<size_t>(width)))
    out += l + "\n";
  return out;
}

std::string format_claims_table(const std::vector<model::ClaimVerdict>& claims, int width) {
  return format_claims_text(claims, width, false);
}

std::string format_claims_markdown(const std::vector<model::ClaimVerdict>& claims, const model::ModelConfig* model) {
  static const char* icon[] = {"\u2705", "\u274c", "\u26a0\ufe0f", "\u2796"};  // by model::Verdict
  std::string out = fmt::format("**lmroof claims** \u2014 {}\n\n", verdict_summary(claims));
  // As the report says it: the claims judged the runs of this model's shapes.
  if (model) {
    std::string source;  // a code span: no backticks or line breaks inside
    for (char c : model->source) source += c == '`' || c == '\n' || c == '\r' ? '\'' : c;
    out += fmt::format("Checked on runs whose shapes come from the model **{}** (`{}`).\n\n", markdown_cell(model->name),
                       source);
  }
  out += "| verdict | claim | evidence | expected | measured |\n|---|---|---|---|---|\n";
  for (const auto* c : verdicts_in_report_order(claims)) {
    std::string measured = c->measured;
    if (c->reason) measured += (measured.empty() || measured == "-" ? "" : " \u2014 ") + *c->reason;
    if (c->cause)
      measured += fmt::format(" \u2014 **cause: {}**{}", model::to_string(*c->cause), c->cause_detail ? " (" + *c->cause_detail + ")" : "");
    if (c->untrustworthy) measured += " \u2014 **untrustworthy**: " + *c->untrustworthy;
    out += fmt::format("| {} {} | `{}` {} | {} | {} | {} |\n", icon[static_cast<int>(c->verdict)],
                       model::to_string(c->verdict), markdown_cell(c->id), markdown_cell(c->statement),
                       model::to_string(c->evidence_kind), markdown_cell(c->expected), markdown_cell(measured));
  }
  return out;
}

}  // namespace lmroof
