// libFuzzer target: the bench.json reader (Google Benchmark JSON with lmroof's
// context), and the machine facts analysis reads from its context. Bad input must
// end in model::InputError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/results/bench_json.h"
#include "analysis/results/machine_info.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto bench = lmroof::parse_bench_text(text, "bench.json");
    (void)lmroof::machine_from_context(bench, "cpu", "2026-01-01T00:00:00Z");
    (void)lmroof::metrics_from_context(bench);
  } catch (const lmroof::model::InputError&) {
  }
  return 0;
}
