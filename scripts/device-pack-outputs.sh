#!/usr/bin/env bash
# Packs a device call's outputs so that they all come back from the lent machine,
# whose tool returns at most 8 files from $OUT, 16 MiB each, named in letters, digits,
# '.', '_' and '-' (the device README's limits): everything under WORK goes into ONE
# gzip tarball OUT/NAME.tar.gz (members NAME/...), and LOG, when given, is copied
# uncompressed beside it as OUT/NAME.log (so the log comes back even if the tarball
# is lost). Nothing else in OUT is touched.
#   scripts/device-pack-outputs.sh WORK OUT NAME [LOG] [OPTIONAL_GLOB...]
# When the tarball is over the file limit, the files matching OPTIONAL_GLOB (paths
# relative to WORK, e.g. 'traces/*' 'ncu/*.log') are left out, largest first, until it
# fits; each one left out is named on stdout and in WORK/left-out.txt, which the
# tarball holds as NAME/left-out.txt. If it is still too large, it is split into NAME.tar.gz.part00, part01, ...
# (cat them to rebuild it), as long as the parts and the log fit in the 8 files.
# LMROOF_OUT_FILE_LIMIT (bytes, default 16 MiB) overrides the limit (for tests).
# Exit 0 when packed (possibly with pieces left out or split), 2 on bad arguments or
# when the outputs cannot fit.
set -uo pipefail
case "${1:-}" in -h|--help) sed -n '2,15p' "$0"; exit 0 ;; esac
[ $# -ge 3 ] || { echo "device-pack-outputs: usage: WORK OUT NAME [LOG] [OPTIONAL_GLOB...] (see --help)"; exit 2; }
work=$1 out=$2 name=$3
log=${4:-}
shift 3
[ $# -gt 0 ] && shift
optional=("$@")
limit=${LMROOF_OUT_FILE_LIMIT:-$((16 * 1024 * 1024))}
max_files=8

[[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "device-pack-outputs: NAME '$name': only letters, digits, '.', '_' and '-' come back"; exit 2; }
[ -d "$work" ] || { echo "device-pack-outputs: WORK '$work' is not a folder"; exit 2; }
[ -z "$log" ] || [ -f "$log" ] || { echo "device-pack-outputs: LOG '$log' is not a file"; exit 2; }
mkdir -p "$out" || { echo "device-pack-outputs: cannot create OUT '$out'"; exit 2; }
[[ "$limit" =~ ^[0-9]+$ ]] && [ "$limit" -gt 0 ] || { echo "device-pack-outputs: LMROOF_OUT_FILE_LIMIT='$limit' is not a positive byte count"; exit 2; }

tarball="$out/$name.tar.gz"
work=$(cd "$work" && pwd)
parent=$(dirname "$work") base=$(basename "$work")
# A LOG that already is OUT/NAME.log stays where it is: removing the old copy first would
# delete the only one (issue 47 #14).
log_in_place=0
[ -n "$log" ] && [ "$log" -ef "$out/$name.log" ] && log_in_place=1
rm -f "$tarball" "$tarball".part* "$work/left-out.txt"
[ "$log_in_place" = 1 ] || rm -f "$out/$name.log"
# The log beside the tarball; fails loudly rather than claiming "log as ..." without it.
copy_log() {
  [ -z "$log" ] || [ "$log_in_place" = 1 ] || cp "$log" "$out/$name.log" ||
    { echo "device-pack-outputs: cannot copy LOG '$log' to $out/$name.log"; exit 2; }
}

# The members are NAME/... whatever WORK is called; links are stored as links.
excludes=()
pack() { tar -C "$parent" -czf "$tarball" "${excludes[@]}" --transform "s|^$base|$name|S" "$base"; }
size_of() { stat -c %s "$1"; }

left_out=0
pack || { echo "device-pack-outputs: tar failed"; exit 2; }
if [ "$(size_of "$tarball")" -gt "$limit" ] && [ ${#optional[@]} -gt 0 ]; then
  # the optional files, largest first
  mapfile -t candidates < <(cd "$work" && for g in "${optional[@]}"; do
                              for f in $g; do [ -f "$f" ] && printf '%s\t%s\n' "$(stat -c %s "$f")" "$f"; done
                            done | sort -u | sort -t$'\t' -k1,1nr | cut -f2)
  for f in "${candidates[@]}"; do
    [ "$(size_of "$tarball")" -le "$limit" ] && break
    excludes+=("--exclude=$base/$f")
    left_out=$((left_out + 1))
    # the list of what was left out travels inside the tarball (WORK/left-out.txt)
    echo "device-pack-outputs: left out $f ($(stat -c %s "$work/$f") bytes): the tarball was over $limit bytes" |
      tee -a "$work/left-out.txt"
    pack || { echo "device-pack-outputs: tar failed"; exit 2; }
  done
fi

size=$(size_of "$tarball")
files_used=1
if [ "$size" -gt "$limit" ]; then
  parts=$(( (size + limit - 1) / limit ))
  slots=$(( max_files - $([ -n "$log" ] && echo 1 || echo 0) ))
  if [ "$parts" -gt "$slots" ]; then
    echo "device-pack-outputs: $tarball is $size bytes: $parts parts of $limit bytes would not fit in $slots files; nothing packed"
    rm -f "$tarball"
    copy_log
    exit 2
  fi
  split -b "$limit" -d -a 2 "$tarball" "$tarball.part" || { echo "device-pack-outputs: split failed"; exit 2; }
  rm -f "$tarball"
  files_used=$parts
  echo "device-pack-outputs: $size bytes over the $limit-byte limit: split into $parts parts ($name.tar.gz.part00..): cat $name.tar.gz.part* > $name.tar.gz"
fi
members=$(( $(find "$work" -type f | wc -l) - left_out ))
copy_log
[ -n "$log" ] && files_used=$((files_used + 1))
echo "device-pack-outputs: $members files of $work packed into $out/$name.tar.gz ($size bytes)$([ -n "$log" ] && echo ", log as $name.log"); $files_used of $max_files files"
