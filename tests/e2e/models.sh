#!/usr/bin/env bash
# Models end to end on the CPU: every preset derives its shapes (lmroof list --model);
# an MHA, a GQA and an MQA model run (`run --model P --suite decode --quick`, one short
# repetition each) with the model's heads in results.json and the report; a config.json given by path does too,
# with --context and --shape; bad model input exits 2 before any benchmark runs.
# Usage: models.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
src="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

# --- every preset: listed with its dimensions, and its decode shapes carry its heads
"$lmroof" list --models > "$tmp/models.txt" || fail "lmroof list --models exited $?"
"$lmroof" list --models --json > "$tmp/models.json" || fail "list --models --json"
presets=$(ls "$src/kernels/models" | sed -n 's/\.json$//p')
[ "$(echo "$presets" | wc -l)" -ge 9 ] || fail "fewer than 9 presets in kernels/models"
for p in $presets; do
  grep -q "^  $p " "$tmp/models.txt" || fail "list --models lacks $p"
  "$lmroof" list --model "$p" --quick --suite decode --json > "$tmp/$p.json" 2> "$tmp/$p.err" ||
    { fail "lmroof list --model $p exited $?: $(cat "$tmp/$p.err")"; continue; }
  python3 - "$tmp/$p.json" "$tmp/models.json" "$p" <<'PY' || fail "list --model $p: shapes do not carry the model's heads"
import json, sys
listing, models, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
dims = next(m for m in models if m["name"] == name)["dims"]
assert listing["model"]["dims"] == dims, (listing["model"], dims)
decode = next(p for p in listing["pairs"] if p["pair"] == "decode")
kv_by_variant = {}
for s in decode["shapes"]:
    d = dict(s["dims"])
    assert d["q_heads"] == dims["q_heads"] and d["head_dim"] == dims["head_dim"], (name, d)
    for v in s["variants"]:
        kv_by_variant.setdefault(v, set()).add(d["kv_heads"])
assert kv_by_variant["mha"] == {dims["q_heads"]} and kv_by_variant["mqa"] == {1}, kv_by_variant
if 1 < dims["kv_heads"] < dims["q_heads"]:
    assert kv_by_variant["gqa"] == {dims["kv_heads"]}, kv_by_variant
print("ok:", name, "q_heads", dims["q_heads"], "kv_heads", dims["kv_heads"], "head_dim", dims["head_dim"])
PY
done

# --- real runs: check_run DIR NAME Q KV HEAD_DIM
check_run() {
  python3 - "$1/results.json" "$2" "$3" "$4" "$5" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
name, q, kv, hd = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
model = r["machine"]["suite"]["model"]
assert model["name"] == name and model["source"], model
assert (model["dims"]["q_heads"], model["dims"]["kv_heads"], model["dims"]["head_dim"]) == (q, kv, hd), model
decode = [x for x in r["runs"] if x["pair"] == "decode"]
assert decode, "no decode runs"
for x in decode:
    assert x["shape"]["q_heads"] == q and x["shape"]["head_dim"] == hd, x["shape"]
assert any(x["shape"]["kv_heads"] == kv for x in decode), "no run at the model's own kv_heads"
contexts = sorted({x["shape"]["context"] for x in decode})
assert r["claims"], "claims were not checked"
print("ok: run of", name, len(decode), "decode runs, contexts", contexts, len(r["claims"]), "claims")
PY
}
run_quick() {  # OUT ARGS...
  local out="$1"; shift
  timeout 300 "$lmroof" run --suite decode --quick --backend cpu --repetitions 1 --min-time 0.001 --out "$out" "$@" \
    > "$out.stdout" 2> "$out.stderr"
}
dims_of() {  # PRESET -> "Q KV HEAD_DIM"
  python3 -c "import json,sys; d=next(m for m in json.load(open(sys.argv[1])) if m['name']==sys.argv[2])['dims']; \
print(d['q_heads'], d['kv_heads'], d['head_dim'])" "$tmp/models.json" "$1"
}
# The run pipeline does not depend on the preset, and `list --model` above checks every
# preset's shapes: real runs of one MHA preset here, of llama3-8b (GQA) with more checks
# and of a config.json given by path (Falcon, MQA) below. (Running every preset took
# most of this test's time.)
for p in llama2-7b; do
  if run_quick "$tmp/run-$p" --model "$p"; then
    check_run "$tmp/run-$p" "$p" $(dims_of "$p") || fail "run of $p"
  else
    fail "lmroof run --model $p exited $?: $(tail -3 "$tmp/run-$p.stderr")"
  fi
done
if run_quick "$tmp/llama" --model llama3-8b; then
  check_run "$tmp/llama" llama3-8b 32 8 128 || fail "llama3-8b run"
  grep -q "quick scales the model's runs down" "$tmp/llama.stderr" || fail "--quick does not say it scaled the model down"
  grep -q "model: llama3-8b" "$tmp/llama.stdout" || fail "run summary does not name the model"
  grep -q "claims checked on runs derived from llama3-8b" "$tmp/llama.stdout" || fail "claims do not name the model"
  grep -q "llama3-8b" "$tmp/llama/report.html" || fail "report does not name the model"
  grep -q "Checked on runs whose shapes come from the model <b>llama3-8b</b>" "$tmp/llama/report.html" ||
    fail "the report's claims do not name the model"
  # `lmroof check` names the model (name and source) in every format, as the run and report do
  source=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['machine']['suite']['model']['source'])" \
    "$tmp/llama/results.json")
  NO_COLOR=1 "$lmroof" check "$tmp/llama/results.json" > "$tmp/check.txt"
  grep -q "^model: llama3-8b ($source): " "$tmp/check.txt" || fail "check (text) does not name the model: $(head -4 "$tmp/check.txt")"
  "$lmroof" check --format markdown "$tmp/llama/results.json" > "$tmp/check.md"
  grep -qF "Checked on runs whose shapes come from the model **llama3-8b** (\`$source\`)." "$tmp/check.md" ||
    fail "check --format markdown does not name the model: $(head -4 "$tmp/check.md")"
  "$lmroof" check --format json "$tmp/llama/results.json" > "$tmp/check.json"
  python3 - "$tmp/check.json" "$source" <<'PY' || fail "check --format json does not name the model"
import json, sys
m = json.load(open(sys.argv[1]))["model"]
assert m["name"] == "llama3-8b" and m["source"] == sys.argv[2] and m["dims"]["kv_heads"] == 8, m
print("ok: check names the model in text, markdown and json")
PY
  # One dimension order everywhere: a decode run's shape reads as its run id does in
  # list, the report, the CSV and compare
  label=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); i=next(x['id'] for x in r['runs'] if x['pair']=='decode'); \
print(' '.join(p.replace(':', '=') for p in i.split('/')[5:]))" "$tmp/llama/results.json")
  "$lmroof" list --model llama3-8b --suite decode --quick > "$tmp/list.txt"
  "$lmroof" compare "$tmp/llama/results.json" "$tmp/llama/results.json" > "$tmp/compare.txt" 2>/dev/null
  "$lmroof" compare --format markdown "$tmp/llama/results.json" "$tmp/llama/results.json" > "$tmp/compare.md" 2>/dev/null
  for f in list.txt compare.txt compare.md llama/report.html llama/report.runs.csv; do
    grep -qF "$label" "$tmp/$f" || fail "$f does not show the run's shape as '$label'"
  done
  echo "ok: '$label' reads the same in list, report, CSV and compare"
else
  fail "lmroof run --model llama3-8b exited $?: $(tail -3 "$tmp/llama.stderr")"
fi
mkdir -p "$tmp/Falcon-Seven"
cp "$src/kernels/models/falcon-7b.json" "$tmp/Falcon-Seven/config.json"
if run_quick "$tmp/falcon" --model "$tmp/Falcon-Seven/config.json" --context 64,128 --shape decode:context=256; then
  check_run "$tmp/falcon" Falcon-Seven 71 1 64 || fail "config.json run"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); c=sorted({x['shape']['context'] for x in r['runs']}); \
assert c == [64, 128, 256], c" "$tmp/falcon/results.json" || fail "--context 64,128 --shape decode:context=256 gave other contexts"
else
  fail "lmroof run --model config.json exited $?: $(tail -3 "$tmp/falcon.stderr")"
fi

# --- bad input: one line, exit 2, and no benchmark ran (no bench.json)
expect_refused() {  # PATTERN ARGS...
  local pattern="$1"; shift
  local out="$tmp/refused" err rc
  rm -rf "$out"
  err=$(timeout 60 "$lmroof" run --quick --backend cpu --out "$out" "$@" 2>&1 >/dev/null); rc=$?
  local first=$(grep -m1 "error" <<<"$err")
  if [ "$rc" != 2 ]; then fail "lmroof run $* exited $rc, expected 2: $err"; return; fi
  grep -qE "$pattern" <<<"$first" || { fail "lmroof run $*: error lacks /$pattern/: $err"; return; }
  [ "$(grep -c error <<<"$err")" -eq 1 ] || { fail "lmroof run $*: not one error line: $err"; return; }
  [ ! -e "$out/bench.json" ] || { fail "lmroof run $*: a benchmark ran before the error"; return; }
  echo "ok: run $* -> 2: $first"
}
echo '{"num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 10, "rms_norm_eps": 1e-5}' > "$tmp/nohidden.json"
expect_refused "nohidden.json: 'hidden_size' is missing" --model "$tmp/nohidden.json"
sed 's/"hidden_size": 4096/"hidden_size": "4096"/' "$src/kernels/models/llama3-8b.json" > "$tmp/string.json"
expect_refused "string.json: 'hidden_size' must be a number, got string" --model "$tmp/string.json"
python3 -c "print('{\"hidden_size\": ' + '[' * 10000 + ']' * 10000 + '}')" > "$tmp/deep.json"
expect_refused "deep.json: 'hidden_size' is nested deeper than 64 levels" --model "$tmp/deep.json"
sed 's/"num_key_value_heads": 8/"num_key_value_heads": 5/' "$src/kernels/models/llama3-8b.json" > "$tmp/kv5.json"
expect_refused "'num_key_value_heads' \(5\) does not divide" --model "$tmp/kv5.json"
expect_refused "neither a preset" --model no-such-model
expect_refused "has no dimension 'colour'" --model llama3-8b --shape decode:colour=4
expect_refused "not a whole number" --model llama3-8b --shape decode:context=lots
expect_refused "must be positive" --model llama3-8b --shape decode:context=0
expect_refused "must be positive" --context=-4k
expect_refused "does not divide q_heads=32" --model llama3-8b --suite decode --shape decode:kv_heads=5
expect_refused "runs backwards" --context 8k..1k
# the limit is fixed so that the same shape is refused on any host (4.3 GB of K/V cache > 1 GB)
LMROOF_MEMORY_LIMIT=1e9 expect_refused "decode/mha/.* needs at least 4.3. GB .*more than the 1.00 GB of LMROOF_MEMORY_LIMIT" \
  --model llama3-70b --suite decode --batch 2 --context 32k

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all model checks passed"
