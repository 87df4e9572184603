#!/usr/bin/env bash
# Builds lmroof's libFuzzer targets with clang (ASan + UBSan) and runs each for a
# bounded time; exits non-zero when a target finds a crash. Separate from the CMake
# build so the normal g++ build is unaffected.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]   (default 60)
# Seed corpora: real outputs (tests/data: results files and a cut-down bench.json of a
# quick run; docs/examples) and the claims fixtures (results' and traces' claims).
# Findings are left in build-fuzz/findings/ (crash-*, with the input that crashed).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
cxx=$(command -v clang++-14 || command -v clang++ || true)
[ -n "$cxx" ] || { echo "fuzz: clang++ not found (scripts/install-deps.sh --test installs it)" >&2; exit 2; }
out=build-fuzz
mkdir -p "$out/findings"
# (-Ikernels: results_model.h's PairModelMapping lives in kernels/model_config.h, data only)
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. -Ikernels
       "-DLMROOF_TEST_DATA=\"$PWD/tests/data\"")
model=(analysis/model/json_input.cpp analysis/model/results_json.cpp analysis/numbers/numbers.cpp analysis/numbers/markdown.cpp
       analysis/stats/statistics.cpp analysis/stats/paired_statistics.cpp analysis/formats/file_names.cpp)

# Each source is compiled once into $out/obj, $(nproc) at a time, and each target
# linked from the objects: the model sources serve all three targets, and compiling
# them per target, one at a time, was 270 s of CI's 454 s fuzz stage. Everything is
# rebuilt when a source or header changed since the targets were last linked.
results_src=(tests/fuzz/fuzz_results.cpp "${model[@]}")
bench_src=(tests/fuzz/fuzz_bench.cpp analysis/results/bench_json.cpp analysis/results/machine_info.cpp "${model[@]}")
# Every file of the claims library but the built-in claims (which read the build's paths):
# a new check kind or control is fuzzed without an edit here.
mapfile -t claims_files < <(ls analysis/claims/*.cpp | grep -v claims_builtin)
# The claims read the findings the results library decides (analysis/results/findings.cpp:
# judged levels from the roofs); the target prints the verdicts as `check` does
# (reports/text/claims_text, verdict_text).
# class_share claims name the trace's classes of both groupings (analysis/trace/cost_models.h,
# op_classes.h): the target fuzzes the trace claims loader and checker too.
claims_src=(tests/fuzz/fuzz_claims.cpp "${claims_files[@]}" analysis/results/findings.cpp analysis/roofs/*.cpp
            analysis/trace/cost_models.cpp analysis/trace/op_classes.cpp
            reports/text/claims_text.cpp reports/text/verdict_text.cpp kernels/run_names/shape.cpp "${model[@]}")
stale() {  # stale NAME: the target is missing or older than a source or header
  [ ! -x "$out/$1" ] || [ -n "$(find analysis reports/text tests/fuzz kernels/model_config kernels/run_names -newer "$out/$1" \( -name '*.cpp' -o -name '*.h' \) | head -1)" ]
}
object_of() { echo "$out/obj/${1%.cpp}.o"; }
compile() {
  mkdir -p "$(dirname "$(object_of "$1")")"
  "$cxx" "${flags[@]}" -c "$1" -o "$(object_of "$1")"
}
link() {  # link NAME SOURCES... -- LIBS...
  local name="$1"; shift
  local objects=()
  while [ "$#" -gt 0 ] && [ "$1" != -- ]; do objects+=("$(object_of "$1")"); shift; done
  [ "$#" -gt 0 ] && shift
  "$cxx" "${flags[@]}" "${objects[@]}" -o "$out/$name" -lfmt "$@"
}
if stale fuzz_results || stale fuzz_bench || stale fuzz_claims; then
  echo "fuzz: building the targets" >&2
  mapfile -t sources < <(printf '%s\n' "${results_src[@]}" "${bench_src[@]}" "${claims_src[@]}" | sort -u)
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

failed=0
for target in results bench claims; do
  corpus_var="corpus_$target"
  echo "fuzz: $target for ${seconds}s" >&2
  if ! (cd "$out/findings" && ASAN_OPTIONS=detect_leaks=1 "../fuzz_$target" -max_total_time="$seconds" -max_len=131072 \
          -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 "../../${!corpus_var}" 2>&1 | tail -n 25); then
    echo "fuzz: fuzz_$target found a problem (input in $out/findings)" >&2
    failed=1
  fi
done
exit "$failed"
