#!/usr/bin/env bash
# Run HERE (no GPU needed): builds the CUDA-enabled binaries with portable host
# code (preset "device") and packs them with the shared libraries the GPU machine
# lacks (fmt, Google Benchmark, yaml-cpp, OpenBLAS, OpenMP) into .device/, which
# the device tool carries: run(command="scripts/device-check.sh", carry=[".device"]).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,5p' "$0"; exit 0 ;; esac
scripts/install-deps.sh
cmake --preset device >/dev/null
cmake --build --preset device -j "$(nproc)" --target lmroof lmroof_tests lmroof_bench
rm -rf .device && mkdir -p .device/stage/bin .device/stage/lib
cp build-device/lmroof build-device/lmroof_tests build-device/lmroof_bench .device/stage/bin/
# Every library the binaries need except glibc's, the C++ runtime's (the GPU
# machine's is newer, and its CUDA libraries may need the newer one) and the CUDA
# toolkit's (the GPU machine has its own, matching its driver).
ldd build-device/lmroof build-device/lmroof_tests build-device/lmroof_bench | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/libcu(da|dart|blas|blasLt|pti)\.so' |
  while read -r lib; do cp -L "$lib" .device/stage/lib/; done
strip --strip-unneeded .device/stage/lib/*.so* 2>/dev/null || true
tar -C .device/stage -cJf .device/bundle.tar.xz .
rm -rf .device/stage
echo "packed $(du -h .device/bundle.tar.xz | cut -f1) into .device/bundle.tar.xz"
