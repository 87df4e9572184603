#!/usr/bin/env bash
# `lmroof predict -o predict.html` renders in headless Chromium: its four charts are
# each an <svg>, no page error, nothing on the console, nothing fetched; the page says
# plainly when the weights do not fit. LMROOF_REPORT_SCREENSHOT=FILE.png also saves
# its first screen (scripts/screenshot.sh).
#
#   bash tests/e2e/predict_renders.sh PATH/TO/lmroof SOURCE_DIR
#
# Exit 77 (skipped) without Chromium.
set -uo pipefail

lmroof=${1:?usage: predict_renders.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: predict_renders.sh PATH/TO/lmroof SOURCE_DIR}

source "$(dirname "${BASH_SOURCE[0]}")/render_ok.bash"

"$lmroof" predict --model llama3-8b --device "H100 SXM" --device "H200 SXM" --device "RTX 4090" --context 1k,8k,32k,128k \
  --batch 1,8,32,128,512 -o "$work/predict.html" > "$work/predict.out" 2>&1 || { cat "$work/predict.out" >&2; fail "lmroof predict -o failed"; }
render_ok "$work/predict.html"
for id in predict-kv-context predict-decode-batch predict-step-ops predict-kv-variants; do
  grep -q "id=\"chart-$id\"" "$work/predict.html" || fail "no chart $id"
done
sed '/<script/,$d' "$work/predict.html" > "$work/markup.html"
if grep -Eiq '<(script|img|iframe|embed|source)[^>]* src=|<link[^>]*href=|@import|url\(' "$work/markup.html"; then
  fail "predict.html refers to an external resource"
fi
# issue 38: a page whose decode turns compute-bound at a batch drawn has the dashed rule (a third layer).
"$lmroof" predict --model llama3-8b --device "H100 SXM" --device B200 --context 128,1k --batch 1,64,256,1024 \
  -o "$work/turn.html" > /dev/null 2>&1 || fail "predict -o turn.html failed"
render_ok "$work/turn.html"
# Llama-3-8B's 16 GB of bf16 weights do not fit the RTX 4090's 24 GB? They do; 70B on an H200 does not.
"$lmroof" predict --model llama3-70b --device "H200 SXM" --context 8k -o "$work/p70.html" > /dev/null 2>&1 || fail "predict 70b -o failed"
render_ok "$work/p70.html"
grep -q "do not fit on one H200 SXM" "$work/markup.html" && fail "8B is said not to fit"
grep -q "do not fit on one H200 SXM" "$work/p70.html" || fail "the 70B page does not say the weights do not fit"
# A refused output: nothing written, exit 2.
mkdir "$work/dir.html"
"$lmroof" predict --model llama3-8b -o "$work/dir.html" > /dev/null 2> "$work/err"
[ $? = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] || fail "-o a directory: $(cat "$work/err")"
screenshot_if_asked "$work/predict.html"
echo "PASS: predict.html renders (4 charts), the 70B page says its weights do not fit one H200"
