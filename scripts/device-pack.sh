#!/usr/bin/env bash
# Run HERE (no GPU needed): builds the CUDA-enabled binaries with portable host
# code (preset "device") and packs them with the shared libraries the GPU machine
# lacks (fmt, Google Benchmark, yaml-cpp, OpenBLAS, OpenMP) into .device/, which
# the device tool carries: run(command="scripts/device-check.sh --first --budget 320",
# carry=[".device"], timeout_s=360) (docs/gpu.md, "The device check").
# Also packed: this toolkit's libcupti.so.13, libnvperf_host.so and libnvperf_target.so
# in lib-cuda/, used there only when the device has none of its own; and the commit and
# the SHA-256 of every source file the build read, which device-check compares with
# the checkout it runs in. --no-build packs the binaries of $LMROOF_DEVICE_BUILD_DIR
# (default build-device/) as they are (a rehearsal may pack the default preset's build/).
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
bd=${LMROOF_DEVICE_BUILD_DIR:-build-device}
case "${1:-}" in
  -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
  --no-build) build=0 ;;
  "") ;;
  *) echo "device-pack: unknown option '$1' (see --help)"; exit 2 ;;
esac
if [ "$build" = 1 ]; then
  scripts/install-deps.sh
  cmake --preset device >/dev/null
  cmake --build --preset device -j "$(nproc)" --target lmroof lmroof_tests lmroof_bench
  bd=build-device
fi
for b in lmroof lmroof_tests lmroof_bench; do
  [ -f "$bd/$b" ] || { echo "device-pack: $bd/$b is missing (build it, or run without --no-build); .device/ left as it was"; exit 1; }
done
# The new bundle is built beside the old one and replaces it only once complete: a
# failure on the way leaves the previous bundle in place (issue 47 #15).
next=.device.next
rm -rf "$next" && mkdir -p "$next/stage/bin" "$next/stage/lib" "$next/stage/lib-cuda"
trap 'rm -rf "$next"' EXIT
cp "$bd/lmroof" "$bd/lmroof_tests" "$bd/lmroof_bench" "$next/stage/bin/"
# Every library the binaries need except glibc's, the C++ runtime's (the GPU
# machine's is newer, and its CUDA libraries may need the newer one) and the CUDA
# toolkit's (the GPU machine has its own, matching its driver).
ldd "$bd/lmroof" "$bd/lmroof_tests" "$bd/lmroof_bench" | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/libcu(da|dart|blas|blasLt|pti)\.so' |
  while read -r lib; do cp -L "$lib" "$next"/stage/lib/; done
strip --strip-unneeded "$next"/stage/lib/*.so* 2>/dev/null || true
# CUPTI and the NVIDIA perf libraries it loads at run time, as a fallback (device-check
# prefers the device's own: CUPTI must not be newer than its driver).
cupti=$(ldd "$bd/lmroof" | awk '$1 == "libcupti.so.13" {print $3}')
for lib in libcupti.so.13 libnvperf_host.so libnvperf_target.so; do
  found=""
  for d in ${cupti:+"$(dirname "$cupti")"} /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/targets/*/lib; do
    [ -e "$d/$lib" ] && { found="$d/$lib"; break; }
  done
  if [ -n "$found" ]; then cp -L "$found" "$next"/stage/lib-cuda/; else echo "device-pack: $lib not found here: not bundled"; fi
done
# What the bundle was built from: device-check says when the checkout differs.
{
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "dirty $([ -n "$(git status --porcelain -- . ':!docs' ':!docs/examples' 2>/dev/null)" ] && echo yes || echo no)"
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$next"/stage/source.txt
git ls-files -z -- CMakeLists.txt CMakePresets.json cmake kernels profiler bench analysis cli reports tests \
  ':!docs/examples' | xargs -0 sha256sum >"$next"/stage/sources.sha256
tar -C "$next"/stage -cJf "$next/bundle.tar.xz" .
rm -rf "$next"/stage
rm -rf .device && mv "$next" .device
trap - EXIT
echo "packed $(du -h .device/bundle.tar.xz | cut -f1) into .device/bundle.tar.xz ($(git rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
