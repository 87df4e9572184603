#!/usr/bin/env bash
# Installs what lmroof needs from Debian packages and npm. Idempotent: packages
# already present are not reinstalled, and npm runs only when the lock changed.
#   scripts/install-deps.sh           build + run dependencies
#   scripts/install-deps.sh --test    also what the tests need (Chromium; clang for the fuzz
#                                     targets; jsonschema for tests/e2e/compare_cli.sh; Slurm and
#                                     munge for the one-node cluster of tests/e2e/slurm_fleet.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

packages=(g++ cmake ninja-build pkg-config git ccache
          libfmt-dev nlohmann-json3-dev libcli11-dev libyaml-cpp-dev
          libopenblas-openmp-dev libbenchmark-dev libgtest-dev nodejs npm
          rapidjson-dev zlib1g-dev)
# chromium renders the report in tests/e2e; clang and its libFuzzer runtime build tests/fuzz;
# Slurm and munge run tests/e2e/slurm_fleet.sh's one-node cluster.
[ "$want_test" = 1 ] && packages+=(chromium clang-14 libclang-rt-14-dev slurm-wlm munge python3-jsonschema)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# nodejs/npm may come from elsewhere than Debian; accept any working node + npm.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<< "${missing[*]:-}"

if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Vega, Vega-Lite and vega-embed, pinned by the lock file, inlined into every report.
stamp=reports/vega/node_modules/.lmroof-lock-stamp
if ! cmp -s reports/vega/package-lock.json "$stamp" 2>/dev/null; then
  echo "install-deps: npm ci (reports/vega)" >&2
  (cd reports/vega && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp reports/vega/package-lock.json "$stamp"
fi
