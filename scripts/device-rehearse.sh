#!/usr/bin/env bash
# Rehearses the device check HERE, without a GPU, against a copy of the lent machine's
# layout as its documentation describes it (the device tool's README and KINDS.md):
# CUDA 13's libraries only where the Python wheels put them
# (/opt/torch/.venv/lib/python3*/site-packages/nvidia/cu13/lib), no toolkit under
# /usr/local/cuda (hidden by a bind mount), so no nvcc on the PATH, no network, and the
# working tree as the tool sends it (tracked and untracked-not-ignored files, no .git,
# .device carried). Runs both calls of scripts/device-check.sh with the timeouts of
# docs/gpu.md, each with a fake $OUT, then the first call again with the wheels'
# folder lacking CUPTI and with it empty, and checks that each returns only its
# tarball and log (within the 8-file, 16 MiB limits), that every step either ran or
# said in one line why it skipped, and that each call ended inside its timeout.
#   scripts/device-rehearse.sh [--keep-bundle] [BUILD_DIR]   (default build-device, else
#                                 build; needs root: unshare of mount and network)
# It packs BUILD_DIR's binaries with `scripts/device-pack.sh --no-build` (replacing
# .device/), unless --keep-bundle reuses the .device/ there is. Exit 0 when every check holds.
set -uo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n '2,16p' "$0"; exit 0 ;; esac
keep=0
[ "${1:-}" = --keep-bundle ] && { keep=1; shift; }
bd=${1:-$([ -x build-device/lmroof ] && echo build-device || echo build)}
[ -x "$bd/lmroof" ] && [ -x "$bd/lmroof_tests" ] && [ -x "$bd/lmroof_bench" ] ||
  { echo "device-rehearse: $bd has no lmroof, lmroof_tests and lmroof_bench: build them first"; exit 2; }
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null || { echo "device-rehearse: needs root and unshare (a private mount namespace)"; exit 2; }
cuda=$(readlink -f /usr/local/cuda 2>/dev/null)
[ -d "$cuda/lib" ] || [ -d "$cuda/lib64" ] || { echo "device-rehearse: no CUDA toolkit under /usr/local/cuda to take the libraries from"; exit 2; }
cuda_lib=$( [ -d "$cuda/lib64" ] && readlink -f "$cuda/lib64" || echo "$cuda/lib")

root=${LMROOF_REHEARSAL_DIR:-/tmp/lmroof-device-image}
rm -rf "$root" && mkdir -p "$root/repo" "$root/empty" "$root/opt/torch"
if [ "$keep" = 1 ] && [ -f .device/bundle.tar.xz ]; then
  echo "== reusing .device/bundle.tar.xz"
else
  echo "== packing $bd"
  LMROOF_DEVICE_BUILD_DIR="$bd" scripts/device-pack.sh --no-build || exit 1
fi
# The working tree as the device tool sends it, and the carried .device.
git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  xargs -0 cp -P --parents -t "$root/repo"
cp -r .device "$root/repo/"
echo "working tree sent: $(du -sh "$root/repo" | cut -f1) (the limit is 64 MiB)"
# The image's python3: a venv at /opt/torch/.venv whose site-packages hold nvidia/cu13/lib.
python3 -m venv --without-pip "$root/opt/torch/.venv" || exit 1
site=$(ls -d "$root"/opt/torch/.venv/lib/python3*/site-packages)
mkdir -p "$site/nvidia/cu13/lib"
site_in=/opt/torch/.venv/lib/$(basename "$(dirname "$site")")/site-packages

# Two variants of the wheels' folder besides the full one: without CUPTI (the bundle's
# lib-cuda/ must stand in) and empty (no CUDA library at all: the programs cannot
# start, and every step must say so). Hard links: no copy of 600 MB.
mkdir -p "$root/wheel-no-cupti" "$root/wheel-empty"
for l in libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
  ln -f "$cuda_lib/$l" "$root/wheel-no-cupti/$l" 2>/dev/null || cp "$cuda_lib/$l" "$root/wheel-no-cupti/$l"
done

# inside.sh SCENARIO LIBRARY_FOLDER CALL:BUDGET:TIMEOUT...: one image, its calls
cat >"$root/inside.sh" <<EOF
set -uo pipefail
scenario=\$1 libs=\$2; shift 2
mount --bind "\$libs" "$site/nvidia/cu13/lib"      # the wheels' folder, before the toolkit is hidden
mount --rbind "$root/opt" /opt                   # with the wheels' folder mounted inside
mount --bind "$root/empty" "$cuda"                  # no toolkit, no nvcc
export PATH=/opt/torch/.venv/bin:/usr/sbin:/usr/bin:/sbin:/bin   # not /usr/local/bin: its nvcc wraps the hidden toolkit
unset LD_LIBRARY_PATH CUDA_HOME CUDA_PATH
echo "image \$scenario: python3 \$(command -v python3), nvcc \$(command -v nvcc || echo 'not on the PATH'), /usr/local/cuda: \$(ls /usr/local/cuda | wc -l) entries, libraries: \$(ls $site_in/nvidia/cu13/lib | grep -cxE 'lib(cudart|cublas|cublasLt|cupti)\.so\.13|libnvperf_(host|target)\.so')/6 in $site_in/nvidia/cu13/lib, network: \$(ip -o link 2>/dev/null | grep -vc ' lo:') interfaces besides lo" | tee -a "$root/calls.txt"
cd "$root/repo"
for plan in "\$@"; do
  IFS=: read -r call budget limit <<<"\$plan"
  t0=\$(date +%s)
  mkdir -p "$root/out-\$scenario-\$call"
  OUT="$root/out-\$scenario-\$call" timeout -k 5 "\$limit" scripts/device-check.sh --\$call --budget "\$budget" \$( [ "\$call" = second ] && echo --sanitize ) >"$root/call-\$scenario-\$call.txt" 2>&1
  echo "call \$scenario \$call: exit \$?, \$(( \$(date +%s) - t0 ))s of timeout_s=\$limit" | tee -a "$root/calls.txt"
done
EOF
echo "== the calls, each in a private mount and network namespace"
unshare -m -n --propagation private bash "$root/inside.sh" wheels "$cuda_lib" first:320:360 second:245:270
unshare -m -n --propagation private bash "$root/inside.sh" no-cupti "$root/wheel-no-cupti" first:320:360
unshare -m -n --propagation private bash "$root/inside.sh" no-libs "$root/wheel-empty" first:320:360

failures=0
fail() { echo "REHEARSAL FAIL: $*"; failures=$((failures + 1)); }
runs="wheels-first wheels-second no-cupti-first no-libs-first"
for r in $runs; do
  c=${r##*-} o="$root/out-$r"
  [ "$(ls "$o" | tr '\n' ' ')" = "device-$c.log device-$c.tar.gz " ] || fail "$r: \$OUT holds $(ls "$o" | tr '\n' ' ')"
  for f in "$o"/*; do [ "$(stat -c %s "$f")" -le $((16 << 20)) ] || fail "$r: $(basename "$f") is over 16 MiB"; done
  sed -n '/^steps:$/,/^device-check /p' "$root/call-$r.txt" | grep -E '^  ' | grep -vE '^  [a-z0-9-]+ +(ok \(|skipped: .+)' |
    while read -r line; do echo "REHEARSAL FAIL: $r: step neither ran nor said why it skipped: $line"; done | tee -a "$root/step-failures.txt"
  t=$(sed -n "s/^call ${r%-*} $c: exit [0-9]*, \([0-9]*\)s of timeout_s=\([0-9]*\)$/\1 \2/p" "$root/calls.txt")
  [ -n "$t" ] && [ "${t% *}" -lt "${t#* }" ] || fail "$r: did not end inside its timeout ($t)"
done
[ -s "$root/step-failures.txt" ] && failures=$((failures + $(wc -l <"$root/step-failures.txt")))
grep -q "library libcupti.so.13: .*/lib-cuda$" "$root/call-no-cupti-first.txt" || fail "no-cupti: the bundle's CUPTI was not used"
grep -qE "tests +skipped: lmroof_tests cannot start: missing libcudart.so.13" "$root/call-no-libs-first.txt" ||
  fail "no-libs: the tests step does not say that lmroof_tests cannot start"
echo
for r in $runs; do
  echo "---- call $r: the image, the libraries, then the last lines of its output"
  grep -E "^image ${r%-*}:" "$root/calls.txt" | head -1
  grep -E "^library " "$root/call-$r.txt"
  sed -n '/^================ device-check/,$p' "$root/call-$r.txt"
done
echo "----"
cat "$root/calls.txt"
echo "rehearsal: $([ "$failures" = 0 ] && echo "every check holds" || echo "$failures failures"); outputs under $root"
[ "$failures" = 0 ]
