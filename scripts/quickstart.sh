#!/usr/bin/env bash
# The README's first command: install, build, then measure this machine and write
# out/report.html and out/results.json. Extra arguments go to `lmroof run`
# (e.g. --quick, --suite norm,decode, --backend cpu).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,4p' "$0"; exit 0 ;; esac
scripts/build.sh default
exec build/lmroof run "$@"
