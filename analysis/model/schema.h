#pragma once
// The names two programs must agree on, spelled once: the results schema id, the
// counters lmroof's benchmarks publish in Google Benchmark's JSON (bench/ writes
// them, analysis/ reads them) and the context keys that carry the machine facts
// recorded at measurement time (benchmark::AddCustomContext).
#include <string_view>

#include "analysis/formats/file_names.h"

namespace lmroof::model {

// results.json (docs/results-schema.md). A reader accepts exactly this version.
inline constexpr std::string_view kResultsSchema = formats::kResultsSchema;

// Paired benchmarks' names: kPairedPrefix + baseline run id + kPairedSeparator +
// candidate run id; the same run on both sides is the pair's A/A noise-floor control.
inline constexpr std::string_view kPairedPrefix = "paired/";
inline constexpr std::string_view kPairedSeparator = "|";
// The memory-bandwidth curve's points (issue #34): kCurvePrefix + backend + "/read/" +
// the working set in bytes; each repetition one timed read of the set (manual time).
inline constexpr std::string_view kCurvePrefix = "curve/";

namespace counter {
// Ceiling benchmarks: what one iteration moved or computed.
inline constexpr std::string_view kCeilingBytes = "ceiling_bytes";
inline constexpr std::string_view kCeilingFlops = "ceiling_flops";
// Launch (latency) ceilings: the median seconds of one launch over the
// `ceiling_launches` launches one repetition timed one by one (bench/launch_timing.h).
inline constexpr std::string_view kCeilingLaunchSeconds = "ceiling_launch_s";
inline constexpr std::string_view kCeilingLaunches = "ceiling_launches";
// Pair benchmarks: the cost model's numbers for the run, written at measurement time
// so analysis never recomputes them from its own build.
inline constexpr std::string_view kFlops = "flops";
inline constexpr std::string_view kFlopsMatrix = "flops_matrix";
inline constexpr std::string_view kFlopsVector = "flops_vector";
inline constexpr std::string_view kFlopsSpecial = "flops_special";
inline constexpr std::string_view kBytesMinimum = "bytes_minimum";
inline constexpr std::string_view kBytesModel = "bytes_model";
// The model bytes by direction, the distinct bytes touched and the bytes re-read by
// design (kernels/run_names/cost.h): what decides which roof a run is judged against
// (analysis/roofs/roof_choice.h). Absent: not split.
inline constexpr std::string_view kBytesRead = "bytes_read";
inline constexpr std::string_view kBytesWritten = "bytes_written";
inline constexpr std::string_view kWorkingSetBytes = "working_set_bytes";  // also on ceilings
inline constexpr std::string_view kBytesReread = "bytes_reread";
inline constexpr std::string_view kRereadSetBytes = "reread_set_bytes";
inline constexpr std::string_view kRereadSetShared = "reread_set_shared";  // 1: shared by the threads
inline constexpr std::string_view kBytesStreamedOut = "bytes_streamed_out";  // of bytes_written, past the caches
// Ceilings: the capacity of the cache level a cache ceiling measures, and its threads
// (not "threads": Google Benchmark writes its own field of that name, which hid it).
inline constexpr std::string_view kCacheBytes = "cache_bytes";
inline constexpr std::string_view kThreads = "ceiling_threads";
// DRAM ceilings are measured twice, before the suite (0) and again after it (1): the
// roof is the best repetition of both, and the two bests show how far the machine's
// bandwidth moved while the suite ran (a shared VM's can move by 30% in a minute).
inline constexpr std::string_view kCeilingPhase = "ceiling_phase";
// A ceiling measured again because its repetitions spread beyond kCeilingSpreadBound
// (results_model.h) carries 1 here; the first measurement 0 or nothing.
inline constexpr std::string_view kCeilingAttempt = "ceiling_attempt";
// Bandwidth-curve points: the bytes one timed iteration read, the best copy rate over
// the set (B/s; absent: not measured), and the capacity each cache level in front of
// memory offers the curve's threads, kCurveCapacityPrefix + "L1" | "L2" | "L3" (bytes).
// The working set and threads travel in kWorkingSetBytes and kThreads.
inline constexpr std::string_view kCurveReadBytes = "curve_read_bytes";
inline constexpr std::string_view kCurveCopyRate = "curve_copy_bytes_per_s";
inline constexpr std::string_view kCurveCapacityPrefix = "curve_capacity_";
// CPU runs that stream from DRAM: the read and copy_nt bandwidths probed right after
// each repetition (bench/dram_probe.h), B/s, one value per repetition.
inline constexpr std::string_view kProbeReadRate = "probe_read_bytes_per_s";
inline constexpr std::string_view kProbeCopyNtRate = "probe_copy_nt_bytes_per_s";
// Pair benchmarks: the kernel's check against its float64 reference before it was
// timed (bench/validate_before_timing.h): the worst norm-wise relative error over the
// shapes checked, its tolerance, how many shapes, and the worst one's dimensions as
// "<prefix><dim>". Absent in files from before 2026-12-03.
inline constexpr std::string_view kValidatedError = "validated_error";
inline constexpr std::string_view kValidatedTolerance = "validated_tolerance";
inline constexpr std::string_view kValidatedShapes = "validated_shapes";
inline constexpr std::string_view kValidatedShapePrefix = "validated_shape/";
// Paired rounds (bench/paired_rounds.h): one repetition of a "paired/<baseline
// run>|<candidate run>" benchmark is one round; it times both sides back to back and
// publishes each side's seconds per iteration, the round's index and its order
// (0: baseline first, 1: candidate first).
inline constexpr std::string_view kPairedBaselineTime = "paired_baseline_s";
inline constexpr std::string_view kPairedCandidateTime = "paired_candidate_s";
inline constexpr std::string_view kPairedRound = "paired_round";
inline constexpr std::string_view kPairedOrder = "paired_order";
// 1 on a round taken by the re-measurement (`lmroof run --remeasure-budget`), after the
// claims were first checked; absent on the planned rounds.
inline constexpr std::string_view kPairedExtra = "paired_extra";
// What the machine gave lmroof over one timed repetition (bench/contention.h), on CPU
// pair runs, paired rounds and ceilings: the largest run-queue wait of a worker thread
// and the smallest on-CPU time of one, as shares of the repetition's wall time; the
// share of all CPUs' time the hypervisor stole; procs_running (/proc/stat), the larger
// of the samples before and after; how many times the repetition was timed again
// because it was contended (rules::kContendedRetimes); 1 when the kept attempt was
// still contended (rules::is_contended). Absent: not measured (no /proc).
inline constexpr std::string_view kMachineWaitShare = "machine_wait_share";
inline constexpr std::string_view kMachineOnCpuShare = "machine_oncpu_share";
inline constexpr std::string_view kMachineStealShare = "machine_steal_share";
inline constexpr std::string_view kMachineRunnable = "machine_runnable";
inline constexpr std::string_view kMachineRetimes = "machine_retimes";
inline constexpr std::string_view kMachineContended = "machine_contended";
inline constexpr std::string_view kIntensity = "intensity";
inline constexpr std::string_view kFlopRate = "FLOP/s";
inline constexpr std::string_view kByteRate = "bytes/s";
// Composite runs: per operator class "<prefix><class>".
inline constexpr std::string_view kClassFlopsPrefix = "class_flops/";
inline constexpr std::string_view kClassFlopsMatrixPrefix = "class_flops_matrix/";
inline constexpr std::string_view kClassBytesModelPrefix = "class_bytes_model/";
inline constexpr std::string_view kClassTimePrefix = "class_time_s/";         // phase timers
inline constexpr std::string_view kCuptiClassTimePrefix = "cupti_class_time_s/";  // CUPTI kernel trace
// Composite runs whose steps are not operator classes (Cost::steps: the unfused
// stability passes, a window stack's layers): per step "<prefix><step name>", the
// FLOPs and the model bytes, which sum to the run's flops and bytes_model.
inline constexpr std::string_view kStepFlopsPrefix = "step_flops/";
inline constexpr std::string_view kStepBytesModelPrefix = "step_bytes_model/";
// CUPTI hardware counters (CUDA runs measured with --metrics cupti).
inline constexpr std::string_view kCuptiDramBytes = "cupti_dram_bytes";
inline constexpr std::string_view kCuptiDramReadBytes = "cupti_dram_read_bytes";
inline constexpr std::string_view kCuptiDramWriteBytes = "cupti_dram_write_bytes";
inline constexpr std::string_view kCuptiWritebackBytes = "cupti_writeback_bytes";
inline constexpr std::string_view kCuptiL2Bytes = "cupti_l2_bytes";
inline constexpr std::string_view kCuptiFlops = "cupti_flops";
inline constexpr std::string_view kCuptiFlopsTensor = "cupti_flops_tensor";
inline constexpr std::string_view kCuptiFlopsCudaCore = "cupti_flops_cuda_core";
inline constexpr std::string_view kCuptiSmClockHz = "cupti_sm_clock_hz";
inline constexpr std::string_view kCuptiPasses = "cupti_passes";
// The label of a run whose counters could not be read starts with this.
inline constexpr std::string_view kCuptiLabelPrefix = "cupti:";
}  // namespace counter

// bench.json "context" keys lmroof adds (Google Benchmark's own are host_name,
// num_cpus, mhz_per_cpu, date, ...). Each value is a string (AddCustomContext); the
// JSON-valued ones hold a JSON document.
namespace context {
inline constexpr std::string_view kCpuModel = "lmroof_cpu_model";
inline constexpr std::string_view kThreads = "lmroof_threads";
inline constexpr std::string_view kHostPages = "lmroof_host_pages";  // common/host_buffer.h's policy
inline constexpr std::string_view kBlas = "lmroof_blas";  // the BLAS build and the kernels it runs
inline constexpr std::string_view kGpu = "lmroof_gpu";      // JSON object or "null"
inline constexpr std::string_view kBuild = "lmroof_build";  // JSON: compiler, build_type, ...
inline constexpr std::string_view kSuite = "lmroof_suite";      // JSON: model::Suite
inline constexpr std::string_view kMetrics = "lmroof_metrics";  // JSON: model::Metrics
// JSON: model::Catalogue, the pairs as the registry of the measuring build described
// them (bench/catalogue.h). Required by the analysis of pair runs.
inline constexpr std::string_view kCatalogue = "lmroof_catalogue";
// Written by `lmroof migrate` only: which build supplied the catalogue of a bench.json
// measured before the catalogue was recorded ("lmroof 0.x (abc1234)").
inline constexpr std::string_view kCatalogueMigratedBy = "lmroof_catalogue_migrated_by";
// Written by `lmroof run` when a --benchmark_filter chose which benchmarks ran: the flag
// as given. Then a paired round may name a run that was filtered out, and a pair may
// lack its A/A control; without it, analysis refuses both (analysis/paired_results.cpp).
inline constexpr std::string_view kBenchmarkFilter = "lmroof_benchmark_filter";
// JSON: the pairs of runs the claims compare that the catalogue does not, timed in
// paired rounds beside its comparisons (model::ClaimedComparison,
// analysis/model/claimed_comparisons.h). Absent: none, as in files from before it.
inline constexpr std::string_view kClaimedComparisons = "lmroof_claimed_comparisons";
// JSON: the other processes that took the most CPU over the measurement (bench/contention.h):
// {"window_s", "cpus", "steal_share", "load_before", "load_after", "wait_policy",
// "processes": [{"name", "cpu_s", "core_share"}]}, busiest first, lmroof excluded.
inline constexpr std::string_view kContention = "lmroof_contention";
}  // namespace context

}  // namespace lmroof::model
