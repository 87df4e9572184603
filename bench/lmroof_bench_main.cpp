// A plain Google Benchmark executable over lmroof's suites: every standard flag
// (--benchmark_filter, --benchmark_format=json, --benchmark_out, --benchmark_repetitions...)
// works. lmroof's own --lmroof_* flags choose the suite; CLI11 parses them and hands
// everything else to Google Benchmark unchanged. Adding a flag is one add_option /
// add_flag line below.
// With --benchmark_out=FILE, the CUDA runs' kernel traces go beside it
// (FILE without extension + ".kernels.json", profiler/kernel_trace_file.h).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "bench/kernel_trace_store.h"
#include "bench/measurement.h"
#include "bench/paired_rounds.h"
#include "bench/suite.h"
#include "kernels/model_config/model_config.h"
#include "registry.h"

namespace {

std::string pair_names() {
  std::string out;
  for (const auto& pair : lmroof::all_pairs()) out += (out.empty() ? "" : ",") + pair.name;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lmroof;
  CLI::App app{"lmroof_bench: Google Benchmark over lmroof's operator pairs and ceilings.\n"
               "Every --benchmark_* flag is Google Benchmark's (listed after this).",
               "lmroof_bench"};
  app.allow_extras();     // the --benchmark_* flags go to Google Benchmark
  app.set_help_flag();    // --help is answered below, then by Google Benchmark too
  std::string suite, backend = "cpu", dtype, benchmark_out, model;
  bool quick = false, no_ceilings = false, help = false;
  app.add_option("--lmroof_suite", suite, "Pairs to run, a comma list of " + pair_names() + " (default: all)");
  app.add_flag("--lmroof_quick", quick,
               fmt::format("Small shapes, {} repetitions of at least {} s each (bench/adaptive_repetitions.h)",
                           bench::kQuickRepetitions.repetitions, bench::kQuickRepetitions.min_time_s));
  app.add_option("--lmroof_backend", backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
  app.add_option("--lmroof_dtype", dtype, "fp32 or bf16 (default: fp32 on cpu, bf16 on cuda)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_flag("--lmroof_no_ceilings", no_ceilings, "Skip the ceiling micro-benchmarks");
  app.add_option("--lmroof_model", model, "Derive the shapes from a model: a preset name or a config.json (docs/models.md)");
  app.add_flag("-h,--help", help, "This help, then Google Benchmark's");

  std::vector<std::string> rest;
  try {
    app.parse(argc, argv);
    rest = app.remaining();
    bench::SuiteOptions options;
    options.backend = parse_backend(backend);
    options.dtype = !dtype.empty() ? parse_dtype(dtype) : options.backend == Backend::cuda ? DType::bf16 : DType::fp32;
    if (app.count("--lmroof_suite") > 0) {
      std::stringstream list{suite};
      for (std::string item; std::getline(list, item, ',');)
        if (!item.empty()) options.pairs.push_back(item);
      if (options.pairs.empty()) throw std::invalid_argument("--lmroof_suite='" + suite + "' names no pair");
    }
    options.quick = quick;
    if (!model.empty()) options.shapes.model = find_model(model);
    if (options.backend == Backend::cuda) options.repetitions = bench::kCudaRepetitions;
    if (quick)
      options.repetitions = bench::kQuickRepetitions.repetitions,
      options.min_time_s = bench::kQuickRepetitions.min_time_s;
    if (!no_ceilings) bench::register_ceiling_benchmarks(options);
    const bench::SuitePlan plan = bench::plan_suite(options);
    bench::check_memory(plan.runs, options.backend, !no_ceilings);  // before anything is run
    bench::register_pair_benchmarks(options, plan.runs);
    bench::register_paired_benchmarks(options, plan.runs);
    if (!no_ceilings) bench::register_ceiling_rechecks(options);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "lmroof_bench: error: %s (see lmroof_bench --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lmroof_bench: error: %s\n", e.what());
    return 2;
  }
  if (help) {
    std::fputs(app.help().c_str(), stdout);
    std::fflush(stdout);
    rest.push_back("--help");  // Google Benchmark prints its flags and exits 0
  }
  for (const auto& arg : rest)
    if (arg.starts_with("--benchmark_out=")) benchmark_out = arg.substr(std::string("--benchmark_out=").size());

  std::vector<char*> gb_argv = {argv[0]};
  for (auto& arg : rest) gb_argv.push_back(arg.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  try {
    if (!benchmark_out.empty()) bench::write_kernel_traces(bench::take_kernel_traces(), benchmark_out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lmroof_bench: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
