#!/usr/bin/env bash
# Writes PNG as a small palette PNG at OUT when pngquant or Python's PIL is there, else
# copies it: the pictures committed under docs/ (scripts/screenshot*.sh) stay small.
#
#   scripts/shrink-png.sh PNG OUT
set -euo pipefail
[ $# = 2 ] || { echo "usage: shrink-png.sh PNG OUT" >&2; exit 2; }
if command -v pngquant >/dev/null 2>&1; then
  pngquant --force --quality 60-90 --output "$2" "$1"
elif python3 -c 'import PIL' 2>/dev/null; then
  python3 -c 'import sys; from PIL import Image; Image.open(sys.argv[1]).convert("RGB").quantize(64).save(sys.argv[2], optimize=True)' "$1" "$2"
else
  cp "$1" "$2"
fi
