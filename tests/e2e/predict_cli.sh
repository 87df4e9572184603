#!/usr/bin/env bash
# `lmroof predict`: the figures a user can check by hand (Llama-3-8B 131,072 KV bytes per
# token, Llama-3-70B's bf16 weights do not fit one H200), the JSON names scripts rely on
# (checked against docs/predict.schema.json's required lists), markdown, and bad input:
# one line on stderr and exit 2, never a crash or a hang (a FIFO, /dev/zero).
#   bash tests/e2e/predict_cli.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: predict_cli.sh PATH/TO/lmroof SOURCE_DIR}
src=${2:?usage: predict_cli.sh PATH/TO/lmroof SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- figures ----------------------------------------------------------------------
timeout 60 "$lmroof" predict --model llama3-8b --device "H200 SXM" --context 128k --batch 1,8 --format json > "$tmp/p.json" ||
  fail "predict --format json exited $?"
python3 - "$src/docs/predict.schema.json" "$tmp/p.json" <<'PY' || fail "JSON does not match the schema or the hand figures"
import json, sys
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
def check(value, node, where):
    # The schema's required names and types, recursively (no jsonschema module needed).
    types = {"object": dict, "array": list, "integer": int, "number": (int, float), "string": str, "boolean": bool, "null": type(None)}
    want = node.get("type")
    if want is not None:
        allowed = tuple(t for w in (want if isinstance(want, list) else [want]) for t in (types[w] if isinstance(types[w], tuple) else (types[w],)))
        assert isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed), f"{where}: {value!r} is not {want}"
    for key in node.get("required", []):
        assert key in value, f"{where}: missing {key}"
    for key, sub in node.get("properties", {}).items():
        if isinstance(value, dict) and key in value: check(value[key], sub, f"{where}/{key}")
    if "items" in node and isinstance(value, list):
        for i, item in enumerate(value): check(item, node["items"], f"{where}/{i}")
check(doc, schema, "")
assert doc["kv_bytes_per_token"] == 131072, doc["kv_bytes_per_token"]
assert doc["devices"][0]["contexts"][0]["kv_bytes_per_sequence"] == 16 * 2**30
assert doc["devices"][0]["fits_weights"] is True
print("ok: JSON matches docs/predict.schema.json; 131,072 B/token, 16 GiB at 128k")
PY
out=$(timeout 60 "$lmroof" predict --model llama3-70b --device "h200 sxm" --context 8k 2>&1) || fail "predict llama3-70b exited $?"
grep -q "do not fit on one H200 SXM" <<<"$out" && echo "ok: 70B bf16 weights do not fit one H200" || fail "no plain statement: $out"
grep -q "327680 B per token" <<<"$out" && echo "ok: 70B 327,680 B/token" || fail "70B KV per token: $out"
md=$(timeout 60 "$lmroof" predict --model gemma2-9b --device all --context 4k,8k --batch 1 --format markdown) || fail "markdown exited $?"
grep -q "^| context |" <<<"$md" && grep -q "sliding window 4096 on 21 of 42 layers" <<<"$md" && echo "ok: markdown, Gemma 2 windows" ||
  fail "markdown: $md"

# A results.json's measured ceilings: a device whose memory is not recorded (CPU) has no
# max batch and no fit, said as null, and still has timings.
timeout 60 "$lmroof" predict --model llama3-8b --device "$src/tests/data/results_small.json" --context 1k --batch 1 --format json \
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

[ "$failures" -eq 0 ] && echo "predict_cli: all passed" || { echo "predict_cli: $failures failed"; exit 1; }
