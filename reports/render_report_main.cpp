// lmroof_render_report RESULTS.json -o FILE: a development tool that renders a
// report without the full `lmroof` CLI (which offers the same as `lmroof report`).
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "reports/html_report.h"

namespace {

constexpr const char* kUsage = "usage: lmroof_render_report RESULTS.json -o FILE.html\n";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot open '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument("'" + path + "' is not valid JSON: " + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if ((arg == "-o" || arg == "--output") && i + 1 < argc) {
      output = argv[++i];
    } else if (!arg.starts_with("-") && input.empty()) {
      input = std::string(arg);
    } else {
      std::fprintf(stderr, "lmroof_render_report: error: unexpected argument '%s'\n%s", argv[i], kUsage);
      return 2;
    }
  }
  if (input.empty() || output.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  try {
    lmroof::write_report(lmroof::model::results_from_json(read_json(input), input), output);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "lmroof_render_report: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lmroof_render_report: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
