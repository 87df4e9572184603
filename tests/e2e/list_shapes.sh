#!/usr/bin/env bash
# `lmroof list` shapes: every dimension in the catalogue's order (the run ids' order),
# the attention pair's prefill and decode shapes told apart (text and --json), and a
# shape beyond one buffer's element limit refused with what the limit is and what to do.
# Nothing is measured. Usage: list_shapes.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

# --- the attention pair: each shape says which phase runs it
"$lmroof" list --suite attention > "$tmp/attention.txt" || fail "list --suite attention exited $?"
"$lmroof" list --suite attention --json > "$tmp/attention.json" || fail "list --suite attention --json exited $?"
grep -q "prefill only\]$" "$tmp/attention.txt" || fail "list text marks no shape as prefill only"
grep -q "decode only\]$" "$tmp/attention.txt" || fail "list text marks no shape as decode only"
python3 - "$tmp/attention.json" <<'PY' || fail "list --json does not say which phase runs each attention shape"
import json, sys
pair = json.load(open(sys.argv[1]))["pairs"][0]
assert pair["pair"] == "attention", pair["pair"]
for key in ("default_shapes", "quick_shapes", "cuda_shapes"):
    phases = {tuple(s["impls"]) for s in pair[key]}
    assert phases == {("prefill",), ("decode",)}, (key, phases)
print("ok: attention shapes carry their phase (impls) in", "default, quick and CUDA listings")
PY

# --- one dimension order: a listed shape reads as its run id (bench name) does
"$lmroof" list --suite decode --quick --json > "$tmp/decode.json" || fail "list --suite decode --json exited $?"
python3 - "$tmp/decode.json" <<'PY' || fail "decode shapes are not listed in the run ids' order"
import json, sys
pair = json.load(open(sys.argv[1]))["pairs"][0]
for s in pair["quick_shapes"]:
    names = [d[0] for d in s["dims"]]
    assert names == ["batch", "q_heads", "kv_heads", "head_dim", "context"], names
    assert s["label"] == " ".join(f"{k}={v}" for k, v in s["dims"]), s
print("ok: decode shapes listed as batch q_heads kv_heads head_dim context")
PY

# --- beyond one buffer's int32 element count: what the limit is, and what to lower
err=$("$lmroof" list --model llama3-70b --suite decode --context 1k..128k 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "list beyond the element limit exited $rc, expected 2"
[ "$(wc -l <<<"$err")" = 1 ] || fail "not one line: $err"
for want in "the K cache would hold" "one buffer may hold" "not memory" "lower --batch or --context"; do
  grep -qF "$want" <<<"$err" || fail "the refusal lacks '$want': $err"
done
echo "ok: $err"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all list checks passed"
