// The claims table for the terminal: claim, expected, measured, verdict, each cell
// word-wrapped to its column so the whole table fits `width` columns.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "analysis/claims/claims.h"

namespace lmroof {

namespace {

// Word-wraps `text` to `width`; words longer than the width are cut. At most
// `max_lines` lines, the last ending in "..." when text was left out.
std::vector<std::string> wrap(const std::string& text, size_t width, size_t max_lines) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word, line;
  bool cut = false;
  auto push = [&](std::string l) {
    if (lines.size() < max_lines)
      lines.push_back(std::move(l));
    else
      cut = true;
  };
  while (words >> word) {
    while (word.size() > width) {  // a run id: split it after a '/' where one fits
      if (!line.empty()) {
        push(line);
        line.clear();
      }
      size_t cut_at = word.rfind('/', width - 1);
      cut_at = cut_at == std::string::npos || cut_at < width / 2 ? width : cut_at + 1;
      push(word.substr(0, cut_at));
      word = word.substr(cut_at);
    }
    if (line.empty())
      line = word;
    else if (line.size() + 1 + word.size() <= width)
      line += " " + word;
    else {
      push(line);
      line = word;
    }
  }
  if (!line.empty()) push(line);
  if (cut && !lines.empty()) {
    auto& last = lines.back();
    if (last.size() + 4 > width) last = last.substr(0, width > 4 ? width - 4 : 0);
    last += " ...";
  }
  if (lines.empty()) lines.push_back("");
  return lines;
}

}  // namespace

std::string format_claims_table(const std::vector<model::ClaimVerdict>& claims, int width) {
  width = std::max(width, 72);
  constexpr size_t kGap = 2, kVerdict = 12, kMaxLines = 8;
  size_t id_w = 5;
  for (const auto& c : claims) id_w = std::max(id_w, c.id.size());
  id_w = std::min<size_t>({id_w, 28, static_cast<size_t>(width) * 28 / 100});
  const size_t rest = static_cast<size_t>(width) - id_w - kVerdict - 3 * kGap;  // >= 34
  const size_t exp_w = rest * 2 / 5;
  const size_t meas_w = rest - exp_w;

  std::string out;
  auto row = [&](const std::vector<std::string>& id, const std::vector<std::string>& ex,
                 const std::vector<std::string>& me, const std::vector<std::string>& ve) {
    const size_t n = std::max({id.size(), ex.size(), me.size(), ve.size()});
    auto cell = [](const std::vector<std::string>& c, size_t i) { return i < c.size() ? c[i] : std::string(); };
    for (size_t i = 0; i < n; ++i) {
      std::string line = fmt::format("{:<{}}{:{}}{:<{}}{:{}}{:<{}}{:{}}{}", cell(id, i), id_w, "", kGap, cell(ex, i),
                                     exp_w, "", kGap, cell(me, i), meas_w, "", kGap, cell(ve, i));
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  };
  row({"claim"}, {"expected"}, {"measured"}, {"verdict"});
  out += std::string(static_cast<size_t>(width), '-') + "\n";

  int counts[4] = {0, 0, 0, 0};
  for (const auto& c : claims) {
    ++counts[static_cast<int>(c.verdict)];
    std::string measured = c.measured;
    const std::string reason = c.reason.value_or("");
    if (!reason.empty()) measured = measured.empty() || measured == "-" ? reason : measured + " -- " + reason;
    row(wrap(c.id, id_w, kMaxLines), wrap(c.expected, exp_w, kMaxLines), wrap(measured, meas_w, kMaxLines),
        wrap(std::string(model::to_string(c.verdict)), kVerdict, 2));
  }
  out += std::string(static_cast<size_t>(width), '-') + "\n";
  out += fmt::format("{} claim{}: {} hold{}, {} fail{}, {} inconclusive, {} not measured\n", claims.size(),
                     claims.size() == 1 ? "" : "s", counts[0], counts[0] == 1 ? "s" : "", counts[1],
                     counts[1] == 1 ? "s" : "", counts[2], counts[3]);
  return out;
}

}  // namespace lmroof
