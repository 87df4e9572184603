// The verdicts for people: terminal text, the Markdown table, the summary and the
// noise floors' line (reports/text/claims_text.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "reports/text/claims_text.h"

#include "analysis/claims/claims.h"
#include "analysis/claims/verdict_cause.h"
#include "reports/text/markdown.h"

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

struct Tally {
  int counts[4] = {0, 0, 0, 0};  // by model::Verdict
  std::map<std::string, int> causes[4];  // fails and inconclusive, by cause (verdict_cause.h)
  void add(const model::ClaimVerdict& c) {
    ++counts[static_cast<int>(c.verdict)];
    if (c.cause) ++causes[static_cast<int>(c.verdict)][*c.cause];
  }
  int total() const { return counts[0] + counts[1] + counts[2] + counts[3]; }
};

// " (4 architecture, 3 implementation, 3 machine)": the causes of the claims with this
// verdict, in the order verdict_cause.h tries them; empty when none has one.
std::string by_cause(const Tally& t, model::Verdict v) {
  std::vector<std::string> parts;
  const auto& causes = t.causes[static_cast<int>(v)];
  for (Cause cause : {Cause::architecture, Cause::implementation, Cause::machine, Cause::noise})
    if (auto it = causes.find(to_string(cause)); it != causes.end()) parts.push_back(fmt::format("{} {}", it->second, it->first));
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, ", "));
}

std::string tally_text(const Tally& t) {
  std::vector<std::string> parts;
  const model::Verdict order[] = {model::Verdict::holds, model::Verdict::fails, model::Verdict::inconclusive,
                                  model::Verdict::not_measured};
  for (auto v : order)
    if (const int n = t.counts[static_cast<int>(v)])
      parts.push_back(v == model::Verdict::holds   ? fmt::format("{} hold{}", n, n == 1 ? "s" : "")
                      : v == model::Verdict::fails ? fmt::format("{} fail{}", n, n == 1 ? "s" : "") + by_cause(t, v)
                                                   : fmt::format("{} {}", n, model::to_string(v)) + by_cause(t, v));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string markdown_cell(const std::string& text) { return model::markdown_text(text); }

}  // namespace

std::string verdict_summary(const std::vector<model::ClaimVerdict>& claims) {
  Tally measured, model_only;
  for (const auto& c : claims) (c.evidence_kind == "model" ? model_only : measured).add(c);
  std::vector<std::string> parts;
  if (measured.total() || !model_only.total()) parts.push_back("measured: " + tally_text(measured));
  if (model_only.total()) parts.push_back("model: " + tally_text(model_only));
  return fmt::format("{}", fmt::join(parts, " \u00b7 "));
}

std::string format_claims_text(const std::vector<model::ClaimVerdict>& claims, int width, bool colour) {
  width = std::max(width, 60);
  constexpr size_t kVerdict = 14;  // "NOT MEASURED" + gap
  const size_t text_w = static_cast<size_t>(width) - kVerdict;
  std::string out;
  for (const auto* c : verdicts_in_report_order(claims)) {
    std::string verdict(model::to_string(c->verdict));
    std::transform(verdict.begin(), verdict.end(), verdict.begin(), [](unsigned char ch) { return std::toupper(ch); });
    const std::string pad(kVerdict - verdict.size(), ' ');
    const auto head = wrap(fmt::format("{} [{} evidence]", c->id, c->evidence_kind), text_w);
    out += (colour ? std::string(colour_of(c->verdict)) + verdict + "\033[0m" : verdict) + pad + head[0] + "\n";
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
    if (c->cause) field("cause", *c->cause + (c->cause_detail ? ": " + *c->cause_detail : std::string()));
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
      measured += fmt::format(" \u2014 **cause: {}**{}", *c->cause, c->cause_detail ? " (" + *c->cause_detail + ")" : "");
    if (c->untrustworthy) measured += " \u2014 **untrustworthy**: " + *c->untrustworthy;
    out += fmt::format("| {} {} | `{}` {} | {} | {} | {} |\n", icon[static_cast<int>(c->verdict)],
                       model::to_string(c->verdict), markdown_cell(c->id), markdown_cell(c->statement),
                       c->evidence_kind, markdown_cell(c->expected), markdown_cell(measured));
  }
  return out;
}

std::string format_noise_floors(const std::vector<model::NoiseFloor>& floors) {
  if (floors.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& f : floors)
    parts.push_back(floor_measurable(f.floor)
                        ? fmt::format("{} \u00b1{:.1f}%", f.pair, f.floor * 100)
                        : fmt::format("{} \u00b1{:.1f}% (NOT MEASURABLE HERE as set up: beyond the \u00b1{:.0f}% bound; "
                                      "its run timed against itself measured {:.2f}\u2013{:.2f}x over {} paired rounds)",
                                      f.pair, f.floor * 100, kMeasurableFloorBound * 100, *f.rounds.low,
                                      *f.rounds.high, f.rounds.rounds));
  return fmt::format("noise floors (A/A paired rounds, this machine): {}", fmt::join(parts, ", "));
}

}  // namespace lmroof
