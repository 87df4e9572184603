#!/usr/bin/env bash
# The README's second command: install (with the test extras), build, run every test.
#   scripts/test.sh [PRESET]     PRESET: default, cpu, asan (sanitizers) or portable (x86-64-v3)
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,3p' "$0"; exit 0 ;; esac
preset="${1:-default}"
scripts/build.sh "$preset" --test-deps
ctest --preset "$preset" -j 2
