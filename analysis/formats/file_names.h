#pragma once
// The files lmroof writes and reads between its stages, named once: every surface
// (bench/, analysis/, reports/, cli/) spells a file name or schema id through here,
// so a renamed file or a new schema version is one edit.
//   bench.json          Google Benchmark JSON with lmroof's counters and context
//                       (analysis/model/schema.h): the one contract between
//                       measuring and analysing.
//   bench.kernels.json  beside it: the CUPTI kernel traces (kKernelTracesSchema).
//   results.json        the analysis (kResultsSchema, docs/results-schema.md).
#include <filesystem>
#include <string_view>

namespace lmroof::formats {

inline constexpr std::string_view kBenchJson = "bench.json";
inline constexpr std::string_view kKernelTracesJson = "bench.kernels.json";
inline constexpr std::string_view kResultsJson = "results.json";
// `lmroof trace`'s set (docs/trace.md): its outputs are named "trace.*", so a folder's
// set tells which command wrote it (analysis/io/output_set.h, SetKind).
inline constexpr std::string_view kTracePrefix = "trace.";
inline constexpr std::string_view kTraceJson = "trace.json";
inline constexpr std::string_view kTraceCsv = "trace.csv";
inline constexpr std::string_view kTraceHtml = "trace.html";

// The schema ids a reader accepts, exactly.
inline constexpr std::string_view kResultsSchema = "lmroof.results/1";
inline constexpr std::string_view kKernelTracesSchema = "lmroof.kernels/1";

// The kernel traces beside a Google Benchmark JSON file: "out/bench.json" ->
// "out/bench.kernels.json" (its name without the extension + ".kernels.json").
std::filesystem::path kernel_traces_path(const std::filesystem::path& bench_json);

}  // namespace lmroof::formats
