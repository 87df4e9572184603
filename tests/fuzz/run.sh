#!/usr/bin/env bash
# Builds lmroof's libFuzzer targets with clang (ASan + UBSan) and runs each for a
# bounded time; exits non-zero when a target finds a crash. Separate from the CMake
# build so the normal g++ build is unaffected.
#   tests/fuzz/run.sh [TOTAL_SECONDS]   (default 180, shared evenly by the targets)
# A total, not a time per target, so that a new target does not lengthen CI's stage:
# 180 s is what the first three targets had (60 s each). The build of the five targets
# (48 sources) took 6-7 min of CPU (user) on 2026-12-07, spread over nproc compilers.
# Seed corpora: real outputs (tests/data: results files and a cut-down bench.json of a
# quick run; docs/examples), the claims fixtures (results' and traces' claims), and for the trace targets a
# generated Kineto trace (scripts/gen_trace.py) and lmroof trace's own trace.json
# (docs/examples/*/trace.json when present).
# Findings are left in build-fuzz/findings/ (crash-*, with the input that crashed).
set -euo pipefail
cd "$(dirname "$0")/../.."
total_seconds="${1:-180}"
targets=(results bench claims trace trace_json)
seconds=$(( total_seconds / ${#targets[@]} ))
[ "$seconds" -ge 1 ] || seconds=1
cxx=$(command -v clang++-14 || command -v clang++ || true)
[ -n "$cxx" ] || { echo "fuzz: clang++ not found (scripts/install-deps.sh --test installs it)" >&2; exit 2; }
out=build-fuzz
mkdir -p "$out/findings"
# (-Ikernels: results_model.h's PairModelMapping lives in kernels/model_config.h, data only)
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. -Ikernels
       "-DLMROOF_TEST_DATA=\"$PWD/tests/data\"")
model=(analysis/model/json_input.cpp analysis/model/results_json.cpp analysis/model/contention_json.cpp analysis/model/trace_result.cpp analysis/numbers/numbers.cpp analysis/numbers/markdown.cpp
       analysis/stats/statistics.cpp analysis/stats/paired_statistics.cpp analysis/formats/file_names.cpp
       kernels/run_names/kernel_names.cpp)

# Each source is compiled once into $out/obj, $(nproc) at a time, and each target
# linked from the objects: the model sources serve all three targets, and compiling
# them per target, one at a time, was 270 s of CI's 454 s fuzz stage. Everything is
# rebuilt when a source or header changed since the targets were last linked.
results_src=(tests/fuzz/fuzz_results.cpp "${model[@]}")
# machine_info reads the claims' own comparisons recorded in the context (claimed_comparisons).
bench_src=(tests/fuzz/fuzz_bench.cpp analysis/results/bench_json.cpp analysis/results/machine_info.cpp
           analysis/model/claimed_comparisons.cpp "${model[@]}")
# Every file of the claims library but the built-in claims (which read the build's paths):
# a new check kind or control is fuzzed without an edit here.
mapfile -t claims_files < <(ls analysis/claims/*.cpp | grep -v claims_builtin)
# The claims read the findings the results library decides (analysis/results/findings.cpp:
# judged levels from the roofs; warnings.cpp: the contended and disturbed runs, the
# warnings); the target prints the verdicts as `check` does
# (reports/text/claims_text, verdict_text).
# class_share claims name the trace's classes of both groupings (analysis/trace/cost_models.h,
# op_classes.h): the target fuzzes the trace claims loader and checker too.
claims_src=(tests/fuzz/fuzz_claims.cpp "${claims_files[@]}" analysis/results/findings.cpp analysis/results/warnings.cpp analysis/roofs/*.cpp
            analysis/trace/cost_models.cpp analysis/trace/op_classes.cpp
            reports/text/claims_text.cpp reports/text/verdict_text.cpp kernels/run_names/shape.cpp "${model[@]}")
# The Kineto trace reader and the analysis that turns what it kept into trace.json's
# figures; the trace.json reader with what check and compare do with what it accepts.
# Every file of the trace library, as for the claims: a new one is fuzzed without an edit here.
trace_src=(tests/fuzz/fuzz_trace.cpp analysis/trace/*.cpp "${model[@]}")
trace_json_src=(tests/fuzz/fuzz_trace_json.cpp analysis/trace/*.cpp reports/text/trace_text.cpp "${model[@]}")
stale() {  # stale NAME: the target is missing or older than a source or header
  [ ! -x "$out/$1" ] || [ -n "$(find analysis reports/text tests/fuzz kernels/model_config kernels/run_names -newer "$out/$1" \( -name '*.cpp' -o -name '*.h' \) | head -1)" ]
}
object_of() { echo "$out/obj/${1%.cpp}.o"; }
compile() {
  mkdir -p "$(dirname "$(object_of "$1")")"
  # RapidJSON 1.1's Stack adds an offset to its null pointer on its first push, before
  # it allocates (internal/stack.h:117, Reserve), which clang's pointer-overflow check
  # reports on every parse of the trace reader; GCC's UBSan (CI's asan stage) does not
  # check it. That one check is left out for the file that instantiates the parser.
  local extra=()
  [ "$1" = analysis/trace/trace_reader.cpp ] && extra=(-fno-sanitize=pointer-overflow)
  "$cxx" "${flags[@]}" "${extra[@]}" -c "$1" -o "$(object_of "$1")"
}
link() {  # link NAME SOURCES... -- LIBS...
  local name="$1"; shift
  local objects=()
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do objects+=("$(object_of "$1")"); shift; done
  [ "$#" -gt 0 ] && shift
  "$cxx" "${flags[@]}" "${objects[@]}" -o "$out/$name" -lfmt "$@"
}
if stale fuzz_results || stale fuzz_bench || stale fuzz_claims || stale fuzz_trace || stale fuzz_trace_json; then
  echo "fuzz: building the targets" >&2
  mapfile -t sources < <(printf '%s\n' "${results_src[@]}" "${bench_src[@]}" "${claims_src[@]}" "${trace_src[@]}" \
                           "${trace_json_src[@]}" | sort -u)
  jobs_max=$(nproc)
  pids=()
  for src in "${sources[@]}"; do
    compile "$src" &
    pids+=("$!")
    if [ "${#pids[@]}" -ge "$jobs_max" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  link fuzz_results "${results_src[@]}"
  link fuzz_bench "${bench_src[@]}"
  link fuzz_claims "${claims_src[@]}" -- -lyaml-cpp
  link fuzz_trace "${trace_src[@]}" -- -lz -lyaml-cpp
  link fuzz_trace_json "${trace_json_src[@]}" -- -lz -lyaml-cpp
fi

seed() {  # seed NAME FILES...: a fresh corpus folder holding copies of the seeds
  local dir="$out/corpus-$1"; shift
  rm -rf "$dir" && mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/" ; done
  echo "$dir"
}
corpus_results=$(seed results tests/data/*.json tests/data/claims/results-small.json docs/examples/*/results.json)
corpus_bench=$(seed bench tests/data/bench_small.json)
corpus_claims=$(seed claims tests/data/claims/*.yaml tests/data/claims/*.json claims/*.yaml)
corpus_trace=$(seed trace)
python3 scripts/gen_trace.py --out "$corpus_trace/gpu.json" --steps 1 --layers 1 --nccl >/dev/null
python3 scripts/gen_trace.py --out "$corpus_trace/cpu.json" --steps 1 --layers 1 --cpu-only >/dev/null
python3 scripts/gen_trace.py --out "$corpus_trace/rocm.json.gz" --steps 1 --layers 1 --rocm >/dev/null
# trace.json: a minimal document check and compare accept, and lmroof trace's output of
# the seed above when an lmroof is built (CI's earlier stages build one).
corpus_trace_json=$(seed trace_json docs/examples/*/trace.json)
printf '%s\n' '{"schema":"lmroof.trace/2","device":{"name":"H100 SXM"},"total_time_s":2,"window":{"kind":"steps",
"step_count":2,"total_s":3},"classes":[{"class":"matmul","time_s":1,"flop_share":1,"byte_share":0.5,"time_share":0.5,
"fraction_of_roof":null}],"ops":[{"name":"aten::mm","input_dims":[[2,2],[2,2]],"input_types":["float","float"],
"class":"matmul","time_s":1,"roof_time_s":0.5}],"ranks":[{"step_time_s":1.5,"slowest":true}]}' > "$corpus_trace_json/minimal.json"
lmroof_bin=$(ls build-cpu/lmroof build/lmroof build-asan/lmroof 2>/dev/null | head -1 || true)
if [ -n "$lmroof_bin" ]; then
  "$lmroof_bin" trace "$corpus_trace/gpu.json" --out "$out/trace-seed" >/dev/null 2>&1 &&
    cp "$out/trace-seed/trace.json" "$corpus_trace_json/seed.json"
fi

failed=0
for target in "${targets[@]}"; do
  corpus_var="corpus_$target"
  echo "fuzz: $target for ${seconds}s" >&2
  if ! (cd "$out/findings" && ASAN_OPTIONS=detect_leaks=1 "../fuzz_$target" -max_total_time="$seconds" -max_len=131072 \
          -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 "../../${!corpus_var}" 2>&1 | tail -n 25); then
    echo "fuzz: fuzz_$target found a problem (input in $out/findings)" >&2
    failed=1
  fi
done
exit "$failed"
