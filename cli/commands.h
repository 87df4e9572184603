#pragma once
// The subcommands of `lmroof`. Each returns the process exit code; bad input is
// thrown as an exception and turned into "lmroof: error: ..." + exit 2 by main.
#include <filesystem>
#include <string>
#include <vector>

namespace lmroof::cli {

// Shapes of the user's choosing (docs/models.md); empty strings: not given.
struct ShapeArgs {
  std::string model;  // preset name or config.json
  std::string tokens, batch, context;
  std::vector<std::string> shapes;  // PAIR:key=value[,key=value...], repeatable
};

struct RunArgs {
  std::string suite;  // comma list of pairs
  bool suite_given = false;  // --suite given: it must name a pair ('' and ',,,' do not); else all
  bool quick = false;
  std::filesystem::path out = "out";
  std::string backend = "auto";  // cpu | cuda | auto
  std::string dtype;             // empty: fp32 on cpu, bf16 on cuda
  std::string metrics = "auto";  // auto | cupti | analytic
  int repetitions = 0;           // 0: suite default
  double min_time = 0;
  bool min_time_given = false;  // else the suite default
  double remeasure_budget = 0;        // seconds; cli/remeasure.h
  bool remeasure_budget_given = false;  // else kDefaultRemeasureBudget (kQuickRemeasureBudget with --quick)
  // Hidden, for tests: re-measure every paired comparison within the budget, whatever
  // the claims say (tests/e2e/run_reanalysed.sh needs a re-measurement for sure).
  bool remeasure_every_comparison = false;
  bool claims = true;
  std::filesystem::path claims_file;  // empty: built-in claims
  std::vector<std::string> benchmark_flags;
  ShapeArgs shape_args;
};
int run(const RunArgs& args);

int report(const std::filesystem::path& results, const std::filesystem::path& html);
int ceilings(const std::string& backend, bool quick, const std::filesystem::path& json_out);
struct ListArgs {
  bool json = false;
  bool models = false;  // the built-in model presets instead of the pairs
  bool quick = false;
  std::string backend = "cpu";  // whose shapes to show: cpu | cuda
  std::vector<std::string> suite;  // pairs, empty = all
  ShapeArgs shape_args;
};
int list(const ListArgs& args);
struct AnalyzeArgs {
  std::filesystem::path bench_json, out;
  bool claims = true;
  std::filesystem::path claims_file;  // empty: built-in claims
};
int analyze(const AnalyzeArgs& args);
// Adds this build's pair catalogue to a bench.json measured without one (cli/migrate_command.cpp).
struct MigrateArgs {
  std::filesystem::path bench_json, out;
};
int migrate(const MigrateArgs& args);

struct CheckArgs {
  std::vector<std::string> files;  // [CLAIMS] RESULTS
  std::string format = "text";     // text | json | markdown
  bool strict = false;             // inconclusive -> exit 1
};
int check(const CheckArgs& args);
// Empty chip: the current device. Empty metrics: the roofline metrics.
int counters(const std::string& chip, const std::vector<std::string>& metrics, bool json);

struct CompareArgs {
  std::filesystem::path base, next;
  std::string format = "text";  // text | json | markdown
  std::filesystem::path html;   // also write an HTML page here
  std::string threshold = "5%";
};
// Exit 0: no significant regression beyond the threshold; 1: some; bad input throws (2).
int compare(const CompareArgs& args);

struct MergeArgs {
  std::vector<std::filesystem::path> inputs;  // results files, one per machine
  std::vector<std::string> labels;            // empty, or one per input
  std::filesystem::path html;                 // fleet report
  std::filesystem::path results;              // optional merged file (lmroof.fleet/1)
};
int merge(const MergeArgs& args);

struct PredictArgs {
  std::string model;                 // preset name or config.json
  std::vector<std::string> devices;  // table names, "this", "all", results.json files; empty: H100 SXM
  std::vector<std::filesystem::path> device_files;  // more devices (docs/predict.md)
  std::string context = "1k,8k,32k,128k";
  std::string batch = "1,8,32,128";
  std::string dtype = "bf16";
  std::string format = "text";  // text | json | markdown
  std::filesystem::path html;   // -o: also write the self-contained page here
};
int predict(const PredictArgs& args);

// `lmroof trace` (cli/trace_command.cpp, docs/trace.md).
struct TraceArgs {
  std::vector<std::filesystem::path> inputs;  // traces or folders of per-rank traces
  std::string device;                         // --device NAME (table)
  std::filesystem::path ceilings;             // --ceilings RESULTS.json
  std::string steps = "all";                  // all | N
  std::filesystem::path out = "trace-out";
  std::string format = "text";  // text | json | markdown
  std::filesystem::path claims;
  int threads = 1;
  std::vector<std::string> what_if;  // --what-if DEVICE|RESULTS.json, each a target to retime the step on
};
int trace_command(const TraceArgs& args);
// A trace.json (schema lmroof.trace/2, or /1 to be migrated) rather than a results.json: `check` and `compare` hand it here.
bool is_trace_json(const std::filesystem::path& path);
int check_trace(const CheckArgs& args);
int compare_traces(const CompareArgs& args);
// `lmroof migrate trace.json -o NEW.json`: an lmroof.trace/1 file as lmroof.trace/2 (analysis/trace/trace_schema.h).
int migrate_trace(const MigrateArgs& args);

}  // namespace lmroof::cli
