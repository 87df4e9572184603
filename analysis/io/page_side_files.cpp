#include "analysis/io/page_side_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "analysis/io/output_file.h"

namespace lmroof {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kRecordStart = "<!-- lmroof-side-files:";
constexpr std::string_view kRecordEnd = " -->";
// A page is a few MB; a file far larger at the page's name is no page of lmroof's.
constexpr std::uintmax_t kMaxPageBytes = 512ull << 20;

std::string encode(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7F || c == '%' || c == '<' || c == '>') out += fmt::format("%{:02X}", byte);
    else out += c;
  }
  return out;
}

std::optional<std::string> decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    unsigned value = 0;
    if (std::sscanf(std::string(text.substr(i + 1, 2)).c_str(), "%2X", &value) != 1) return std::nullopt;
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}

}  // namespace

std::string side_files_record(const std::vector<OutputContents>& files) {
  std::string record(kRecordStart);
  if (files.empty()) return "";
  const fs::path& page = files.back().path;
  const std::string prefix = page.stem().string() + ".";
  for (size_t i = 0; i + 1 < files.size(); ++i)
    if (files[i].path.parent_path() == page.parent_path() && files[i].path.filename().string().starts_with(prefix))
// GCC 12 warns, falsely, that "x" + std::string copies overlap (GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
      record += " " + encode(files[i].path.filename().string());
#pragma GCC diagnostic pop
  return record + std::string(kRecordEnd) + "\n";
}

std::vector<std::string> recorded_side_files(const fs::path& page) {
  std::error_code ec;
  if (why_not_replaceable(page) || !fs::is_regular_file(page, ec) || fs::file_size(page, ec) > kMaxPageBytes || ec) return {};
  std::ifstream in(page, std::ios::binary);
  std::ostringstream buffer;
  if (!in || !(buffer << in.rdbuf())) return {};
  const std::string text = buffer.str();
  const size_t start = text.rfind(kRecordStart);
  if (start == std::string::npos) return {};
  const size_t end = text.find(kRecordEnd, start);
  if (end == std::string::npos) return {};
  const std::string prefix = page.stem().string() + ".";
  std::vector<std::string> names;
  std::istringstream words(text.substr(start + kRecordStart.size(), end - start - kRecordStart.size()));
  for (std::string word; words >> word;) {
    const auto name = decode(word);
    if (!name || name->find('/') != std::string::npos || name->find('\0') != std::string::npos ||
        !name->starts_with(prefix) || *name == page.filename().string())
      continue;
    names.push_back(*name);
  }
  return names;
}

void write_page_and_side_files(const std::vector<OutputContents>& files) {
  if (files.empty()) return;
  const fs::path page = files.back().path;
  const std::vector<std::string> earlier = recorded_side_files(page);
  write_files_as_set(files);
  const fs::path folder = page.parent_path();
  for (const auto& name : earlier) {
    const bool kept = std::any_of(files.begin(), files.end(), [&](const OutputContents& f) {
      return f.path.parent_path() == folder && f.path.filename() == name;
    });
    std::error_code ec;
    if (!kept && fs::symlink_status(folder / name, ec).type() == fs::file_type::regular) fs::remove(folder / name, ec);
  }
  sync_folder(folder);
}

}  // namespace lmroof
