#!/usr/bin/env bash
# `lmroof predict`: the figures a user can check by hand (Llama-3-8B 131,072 KV bytes per
# token, Llama-3-70B's bf16 weights do not fit one H200), the JSON names scripts rely on
# (checked against docs/predict.schema.json's required lists), markdown, and bad input:
# one line on stderr and exit 2, never a crash or a hang (a FIFO, /dev/zero).
#   bash tests/e2e/predict_cli.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: predict_cli.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: predict_cli.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

# --- figures ----------------------------------------------------------------------
timeout 60 "$lmroof" predict --model llama3-8b --device "H200 SXM" --context 128k --batch 1,8 --format json > "$tmp/p.json" ||
  fail "predict --format json exited $?"
python3 "$src/tests/e2e/schema_check.py" "$src/docs/predict.schema.json" "$tmp/p.json" || fail "JSON does not match docs/predict.schema.json"
python3 - "$tmp/p.json" <<'PY' || fail "JSON does not give the hand figures"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["kv_bytes_per_token"] == 131072, doc["kv_bytes_per_token"]
assert doc["devices"][0]["contexts"][0]["kv_bytes_per_sequence"] == 16 * 2**30
assert doc["devices"][0]["fits_weights"] is True
print("ok: 131,072 B/token, 16 GiB at 128k")
PY
out=$(timeout 60 "$lmroof" predict --model llama3-70b --device "h200 sxm" --context 8k 2>&1) || fail "predict llama3-70b exited $?"
grep -q "do not fit on one H200 SXM" <<<"$out" && echo "ok: 70B bf16 weights do not fit one H200" || fail "no plain statement: $out"
grep -q "327680 B per token" <<<"$out" && echo "ok: 70B 327,680 B/token" || fail "70B KV per token: $out"
md=$(timeout 60 "$lmroof" predict --model gemma2-9b --device all --context 4k,8k --batch 1 --format markdown) || fail "markdown exited $?"
grep -q "^| context |" <<<"$md" && grep -q "sliding window 4096 on 21 of 42 layers" <<<"$md" && echo "ok: markdown, Gemma 2 windows" ||
  fail "markdown: $md"

# A results.json's measured ceilings: a device whose memory is not recorded (CPU) has no
# max batch and no fit, said as null, and still has timings.
timeout 60 "$lmroof" predict --model llama3-8b --device "$src/tests/data/results_small.json" --context 1k --batch 1 --dtype fp32 --format json \
  > "$tmp/r.json" || fail "predict --device results.json exited $?"
python3 - "$tmp/r.json" <<'PY' && echo "ok: --device results.json" || fail "--device results.json: $(head -c 400 "$tmp/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
assert d["name"].startswith("this (") and d["architecture"] == "measured", d["name"]
assert d["memory_bytes"] is None and d["fits_weights"] is None and d["contexts"][0]["max_batch"] is None
assert d["decode"][0]["tokens_per_s"] > 0 and d["launch_s"] == 0
PY

# --- bad input ----------------------------------------------------------------------
expect_error() {
  local pattern="$1"; shift
  local err rc
  err=$(timeout 30 "$lmroof" predict "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != 2 ]; then fail "predict $* exited $rc, expected 2; stderr: $err"; return; fi
  grep -qE -e "$pattern" <<<"$err" || { fail "predict $*: stderr lacks /$pattern/: $err"; return; }
  [ "$(grep -c . <<<"$err")" -le 1 ] || { fail "predict $*: more than one line: $err"; return; }
  echo "ok: predict $* -> 2: $err"
}
expect_error "--device: 'TPU v9' is not a device" --model llama3-8b --device "TPU v9"
expect_error "--context: '0' must be positive" --model llama3-8b --context 0
expect_error "--batch: '-1' must be positive" --model llama3-8b --batch=-1
expect_error "--dtype: 'int4'" --model llama3-8b --dtype int4
expect_error "neither a preset" --model no-such-model
mkfifo "$tmp/fifo"
expect_error "fifo: is not a regular file" --model llama3-8b --device-file "$tmp/fifo"
expect_error "/dev/zero: is not a regular file" --model llama3-8b --device-file /dev/zero
expect_error "neither a preset" --model "$tmp/fifo"
mkfifo "$tmp/fifo.json"
expect_error "fifo.json: is not a regular file" --model llama3-8b --device "$tmp/fifo.json"
cat > "$tmp/sparse.json" <<'JSON'
{"schema": "lmroof.devices/1", "devices": [{"name": "H100 sparse", "architecture": "hopper", "memory_gb": 80,
 "bandwidth_tb_per_s": 3.35, "dense_tflops": {"bf16": 1979}, "launch_us": 3, "launch_source": "x", "source": "x"}]}
JSON
expect_error "sparse.json: /devices/0/dense_tflops/bf16: .*sparse" --model llama3-8b --device-file "$tmp/sparse.json"
sed 's/"dense_tflops": {"bf16": 1979}, //' "$tmp/sparse.json" > "$tmp/nopeak.json"
expect_error "nopeak.json: /devices/0.*dense_tflops" --model llama3-8b --device-file "$tmp/nopeak.json"
h=$((1 << 24))
# 2^24 layers of one 2^24-wide KV head: 2^50 bytes per token, 2^74 at 16m positions.
printf '{"hidden_size": 1, "num_attention_heads": 1, "head_dim": %d, "intermediate_size": 1, "hidden_act": "silu", "num_hidden_layers": %d, "vocab_size": 1, "rms_norm_eps": 1e-6}' \
  $h $h > "$tmp/huge.json"
expect_error "KV cache bytes at context 16777216: overflows 64-bit arithmetic" --model "$tmp/huge.json" --context 16m

# ---- issue 38: predict's inputs, names, ranges and outputs ---------------------------
# Item 2: -o never replaces an input (the --model config, a results.json given as
# --device, a --device-file), by file identity: a hard link is refused too.
cp "$src/tests/data/results_small.json" "$tmp/in-results.json"
printf '{"hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "hidden_act": "silu", "num_hidden_layers": 2, "vocab_size": 100, "rms_norm_eps": 1e-6}' > "$tmp/cfg.json"
cp "$tmp/cfg.json" "$tmp/cfg.html"
cp "$tmp/sparse.json" "$tmp/devs.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["devices"][0]["dense_tflops"]={"bf16": 900}; json.dump(d,open(sys.argv[2],"w"))' "$tmp/sparse.json" "$tmp/devs.html"
ln "$tmp/devs.html" "$tmp/devs-link.html"
for case in "cfg.html|--model $tmp/cfg.html" "in-results.json|--model llama3-8b --device $tmp/in-results.json --dtype fp32" \
            "devs.html|--model llama3-8b --device-file $tmp/devs.html" "devs-link.html|--model llama3-8b --device-file $tmp/devs.html"; do
  out="${case%%|*}"
  before=$(md5sum < "$tmp/$out")
  # shellcheck disable=SC2086
  expect_error "$out: is this command's input" ${case#*|} -o "$tmp/$out"
  [ "$(md5sum < "$tmp/$out")" = "$before" ] || fail "-o $out replaced an input"
done
# Item 10: device figures outside physical ranges are refused with file and field.
for field in 'bandwidth_tb_per_s|1e-320' 'bandwidth_tb_per_s|1e300' 'memory_gb|5e-324' 'dense_tflops/bf16|1e-310'; do
  key="${field%%|*}"; value="${field#*|}"
  python3 - "$tmp/devs.html" "$tmp/range.json" "$key" "$value" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); e = d["devices"][0]
keys = sys.argv[3].split("/")
obj = e
for k in keys[:-1]: obj = obj[k]
obj[keys[-1]] = float(sys.argv[4])
open(sys.argv[2], "w").write(json.dumps(d).replace("5e-324", "5e-324"))
PY
  expect_error "range.json: /devices/0/$key: .*outside the physical range" --model llama3-8b --device-file "$tmp/range.json" --device "H100 sparse"
done
# ... and every time in the JSON is a number (predict.schema.json has no null time).
timeout 60 "$lmroof" predict --model llama3-8b --device all --format json > "$tmp/all.json" || fail "predict --device all exited $?"
python3 - "$tmp/all.json" <<'PY' && echo "ok: no null or non-positive time in --device all JSON" || fail "a time in the JSON is not a positive number"
import json, sys
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items():
            if k.endswith("_s") or k == "time_s":
                assert isinstance(x, (int, float)) and x >= 0, f"{path}/{k} = {x!r}"
            walk(x, f"{path}/{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v): walk(x, f"{path}/{i}")
walk(json.load(open(sys.argv[1])), "")
PY
# Item 23: each device once however named; contexts and batches once; names matched
# case-insensitively everywhere, a unique prefix accepted, an ambiguous one refused.
timeout 60 "$lmroof" predict --model llama3-8b --device 'H200 SXM' --device 'h200 sxm' --device all --device h200 \
  --context 8k,1k,8k --batch 8,1,1,8 --format json > "$tmp/dups.json" || fail "predict with repeated devices exited $?"
python3 - "$tmp/dups.json" <<'PY' && echo "ok: devices, contexts and batches de-duplicated" || fail "duplicates in $(head -c 300 "$tmp/dups.json")"
import json, sys
d = json.load(open(sys.argv[1]))
names = [x["name"].lower() for x in d["devices"]]
assert len(names) == len(set(names)), names
assert names[0] == "h200 sxm" and names.count("h200 sxm") == 1, names
assert d["contexts"] == [1024, 8192] and d["batches"] == [1, 8], (d["contexts"], d["batches"])
assert len(d["devices"][0]["decode"]) == 4, len(d["devices"][0]["decode"])
PY
out=$(timeout 60 "$lmroof" predict --model llama3-8b --device h200 --context 1k 2>&1) && grep -q "^H200 SXM:" <<<"$out" &&
  echo "ok: --device h200 is H200 SXM" || fail "--device h200: $out"
expect_error "--device: 'h' is the start of several devices \(H100 SXM, H200 SXM, H100 PCIe\)" --model llama3-8b --device h
printf '{"schema": "lmroof.devices/1", "devices": [{"name": "h100 sxm", "architecture": "hopper", "memory_gb": 80, "bandwidth_tb_per_s": 3, "dense_tflops": {"bf16": 900}, "launch_us": 3, "launch_source": "x", "source": "x"}, {"name": "H100 SXM", "architecture": "hopper", "memory_gb": 80, "bandwidth_tb_per_s": 3, "dense_tflops": {"bf16": 900}, "launch_us": 3, "launch_source": "x", "source": "x"}]}' > "$tmp/twice.json"
expect_error "twice.json: /devices/1/name: \"H100 SXM\" appears twice \(case ignored\)" --model llama3-8b --device-file "$tmp/twice.json"
# Also seen: a device name with ESC or a newline is refused, not printed raw.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["devices"][0]["name"]="evil\u001b[2Jdev"; json.dump(d,open(sys.argv[2],"w"))' "$tmp/devs.html" "$tmp/esc.json"
expect_error "esc.json: /devices/0/name: holds U\+001B" --model llama3-8b --device-file "$tmp/esc.json" --device all
expect_error "--device: holds U\+000A" --model llama3-8b --device "$(printf 'H100\nSXM')"
# Item 18: --device results.json names the measured ceiling and its dtype; no bf16 peak
# was measured on a CPU, and the page and text say so instead of calling sgemm one.
out=$(timeout 60 "$lmroof" predict --model llama3-8b --device "$src/tests/data/results_small.json" --context 1k --batch 1 2>&1) ||
  fail "predict --device results.json (bf16) exited $?"
grep -q "no bf16 peak measured (compute ceilings measured: 'sgemm' (fp32)" <<<"$out" && grep -q "no bf16 peak was measured" <<<"$out" &&
  ! grep -q "dense bf16 peak" <<<"$out" && echo "ok: a CPU's results.json has no bf16 peak, and says so" || fail "bf16 on a CPU: $out"
out=$(timeout 60 "$lmroof" predict --model llama3-8b --device "$src/tests/data/results_small.json" --context 1k --batch 1 --dtype fp32 2>&1) ||
  fail "predict --device results.json --dtype fp32 exited $?"
grep -q "dense fp32 peak 168 GFLOP/s (measured ceiling 'sgemm', fp32)" <<<"$out" && echo "ok: the fp32 peak names sgemm" || fail "fp32 peak: $out"
# -o x.json writes the JSON; another extension is refused before the work.
timeout 60 "$lmroof" predict --model llama3-8b --context 1k -o "$tmp/out.json" > /dev/null 2>&1 || fail "predict -o out.json exited $?"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["schema"] == "lmroof.predict/1"' "$tmp/out.json" &&
  echo "ok: -o out.json is JSON" || fail "-o out.json is not predict's JSON: $(head -c 100 "$tmp/out.json")"
expect_error "-o .*out.txt: give a .html name for the page or a .json name" --model llama3-8b -o "$tmp/out.txt"
[ -e "$tmp/out.txt" ] && fail "-o out.txt was written"
# A context that does not fit beside the weights shows no prefill rate (RTX 4090, 70B).
out=$(timeout 60 "$lmroof" predict --model llama3-8b --device "RTX 4090" --context 1k,128k --batch 1,64 2>&1) || fail "4090 exited $?"
row=$(grep -E "^  131072 " <<<"$out" | head -1)
grep -q "does not fit" <<<"$row" && echo "ok: 128k on an RTX 4090 does not fit and shows no prefill rate" || fail "128k on a 4090: $row"
# ---- end issue 38 --------------------------------------------------------------------

[ "$failures" -eq 0 ] && echo "predict_cli: all passed" || { echo "predict_cli: $failures failed"; exit 1; }
