// A plain Google Benchmark executable over lmroof's suites: every standard flag
// (--benchmark_filter, --benchmark_format=json, --benchmark_out, --benchmark_repetitions...)
// works. lmroof's own flags choose the suite and are removed before Google
// Benchmark sees the command line:
//   --lmroof_suite=norm,decode   pairs (default: all)
//   --lmroof_quick               small shapes
//   --lmroof_backend=cpu|cuda    (default cpu)
//   --lmroof_dtype=fp32|bf16     (default fp32 on cpu, bf16 on cuda)
//   --lmroof_no_ceilings         skip the ceiling micro-benchmarks
// With --benchmark_out=FILE, the CUDA runs' kernel traces go beside it
// (FILE without extension + ".kernels.json", profiler/kernel_trace_file.h).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/kernel_trace_store.h"
#include "bench/suite.h"

int main(int argc, char** argv) {
  using namespace lmroof;
  bench::SuiteOptions options;
  bool ceilings = true, dtype_given = false;
  std::vector<char*> rest;
  std::string benchmark_out;
  try {
    for (int i = 0; i < argc; ++i) {
      const std::string_view arg = argv[i];
      auto value_of = [&](std::string_view flag) { return arg.substr(flag.size()); };
      if (arg.starts_with("--lmroof_suite=")) {
        std::stringstream list{std::string(value_of("--lmroof_suite="))};
        for (std::string item; std::getline(list, item, ',');)
          if (!item.empty()) options.pairs.push_back(item);
      } else if (arg == "--lmroof_quick") {
        options.quick = true;
      } else if (arg.starts_with("--lmroof_backend=")) {
        options.backend = parse_backend(value_of("--lmroof_backend="));
      } else if (arg.starts_with("--lmroof_dtype=")) {
        options.dtype = parse_dtype(value_of("--lmroof_dtype="));
        dtype_given = true;
      } else if (arg == "--lmroof_no_ceilings") {
        ceilings = false;
      } else if (arg == "--help" || arg == "-h") {
        std::puts(
            "lmroof_bench: Google Benchmark over lmroof's operator pairs and ceilings.\n"
            "  --lmroof_suite=norm,bias,block,decode  --lmroof_quick  --lmroof_backend=cpu|cuda\n"
            "  --lmroof_dtype=fp32|bf16  --lmroof_no_ceilings\n"
            "plus every --benchmark_* flag (see below).\n");
        rest.push_back(argv[i]);
      } else {
        if (arg.starts_with("--benchmark_out=")) benchmark_out = std::string(value_of("--benchmark_out="));
        rest.push_back(argv[i]);
      }
    }
    if (!dtype_given && options.backend == Backend::cuda) options.dtype = DType::bf16;
    if (options.backend == Backend::cuda) options.repetitions = bench::kCudaRepetitions;
    if (options.quick)
      options.repetitions = bench::kQuickRepetitions.repetitions,
      options.min_time_s = bench::kQuickRepetitions.min_time_s;
    if (ceilings) bench::register_ceiling_benchmarks(options);
    bench::register_pair_benchmarks(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lmroof_bench: error: %s\n", e.what());
    return 2;
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  try {
    if (!benchmark_out.empty()) bench::write_kernel_traces(benchmark_out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lmroof_bench: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
