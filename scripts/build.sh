#!/usr/bin/env bash
# Installs dependencies (once) and builds lmroof with a CMake preset.
#   scripts/build.sh [PRESET] [--test-deps]     PRESET: default (CUDA when nvcc is found), cpu, asan, portable
set -euo pipefail
cd "$(dirname "$0")/.."
preset=default
deps=()
for arg in "$@"; do
  case "$arg" in
    --test-deps) deps+=(--test) ;;
    -h|--help) sed -n '2,3p' "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option '$arg'" >&2; exit 2 ;;
    *) preset="$arg" ;;
  esac
done
scripts/install-deps.sh "${deps[@]}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
