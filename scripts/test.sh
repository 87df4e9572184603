#!/usr/bin/env bash
# The README's second command: install (with the test extras), build, run every test.
#   scripts/test.sh [PRESET] [CTEST-ARGS...]   PRESET: default, cpu, asan (sanitizers, x86-64-v3) or portable (x86-64-v3);
#                                              CTEST-ARGS narrow the tests (.ci/run: -L 'unit|sanitize')
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,4p' "$0"; exit 0 ;; esac
preset="${1:-default}"
[ "$#" -gt 0 ] && shift
scripts/build.sh "$preset" --test-deps
ctest --preset "$preset" -j 2 "$@"
