#!/usr/bin/env bash
# predict.html's charts, read from the page's embedded specs (no browser needed;
# predict_renders.sh draws them in Chromium), issue 38 item 18: the op-by-op axis in a
# readable unit naming its batch and context; the dashed compute-bound rule drawn when
# the caption promises it, and not promised otherwise; configurations that do not fit
# left out of the decode chart; one colour per device, contexts in numeric order; KV
# sizes in GiB as in the tables.
#   bash tests/e2e/predict_page_specs.sh PATH/TO/lmroof SOURCE_DIR
set -uo pipefail
lmroof=${1:?usage: predict_page_specs.sh PATH/TO/lmroof SOURCE_DIR}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3

# Batches up to 512 on an H100 (compute-bound from a few hundred), an RTX 4090 where 128k
# does not fit beside the 8B weights, contexts given out of order.
timeout 120 "$lmroof" predict --model llama3-8b --device "H100 SXM" --device "RTX 4090" --context 8k,1k,131072,32k \
  --batch 1,8,32,128,512 -o "$tmp/p.html" > /dev/null 2> "$tmp/err" || fail "predict -o p.html: $(cat "$tmp/err")"
# A short context, where the weights dominate: decode turns compute-bound at a batch drawn.
timeout 120 "$lmroof" predict --model llama3-8b --device "H100 SXM" --context 128 --batch 1,64,256,1024 -o "$tmp/turn.html" \
  > /dev/null 2> "$tmp/err" || fail "predict -o turn.html: $(cat "$tmp/err")"
# Batches that stay memory-bound: no rule may be promised.
timeout 120 "$lmroof" predict --model llama3-8b --device "H100 SXM" --context 1k --batch 1,2 -o "$tmp/small.html" \
  > /dev/null 2> "$tmp/err" || fail "predict -o small.html: $(cat "$tmp/err")"

python3 - "$tmp/p.html" "$tmp/small.html" "$tmp/turn.html" <<'PY' || fail "chart specs"
import html, json, re, sys

def page(path):
    text = open(path).read()
    charts = json.loads(re.search(r'<script type="application/json" id="report-charts">(.*?)</script>', text, re.S).group(1))
    specs = {c["id"]: c["spec"] for c in charts}
    captions = {}
    for m in re.finditer(r'id="chart-([a-z0-9-]+)".*?<p class="caption">(.*?)</p>', text, re.S):
        captions.setdefault(m.group(1), html.unescape(m.group(2)))
    return text, specs, captions

problems = []
def check(ok, what):
    if not ok: problems.append(what)

text, specs, captions = page(sys.argv[1])
# The op-by-op axis: a unit a person reads (µs, ms or s), never SI ticks under "(s)", with its batch and context.
ops = specs["predict-step-ops"]
x = ops["encoding"]["x"]
check(x["axis"].get("format") != "~s", f"step-ops axis format {x['axis'].get('format')}")
check(re.search(r"\((µs|ms|s)\), batch 1, context 131072$", x["axis"]["title"]) is not None, f"step-ops axis title {x['axis']['title']!r}")
unit = re.search(r"\((µs|ms|s)\)", x["axis"]["title"]).group(1)
scale = {"µs": 1e-6, "ms": 1e-3, "s": 1}[unit]
largest = max(sum(r["time"] for r in ops["datasets"]["ops"] if r["device"] == d) for d in {r["device"] for r in ops["datasets"]["ops"]})
check(1 <= largest < 1000, f"step-ops largest step {largest} {unit}: not the readable unit")
check("batch 1 and context 131072" in captions.get("predict-step-ops", ""), f"step-ops caption {captions.get('predict-step-ops')!r}")

# The decode chart: the dashed rule drawn where the caption promises it, within the batches drawn.
dec = specs["predict-decode-batch"]
cap = captions.get("predict-decode-batch", "")
rules = [l for l in dec["layer"] if isinstance(l.get("mark"), dict) and l["mark"].get("type") == "rule"]
promised = "dashed rule marks" in cap
check(promised == bool(rules), f"caption promises a rule: {promised}, rule layers: {len(rules)}")
if rules:
    turns = dec["datasets"]["turns"]
    check(len(turns) > 0 and all(1 <= t["batch"] <= 512 for t in turns), f"turns {turns}")
    check(rules[0]["mark"].get("strokeDash"), "the rule is not dashed")
# Configurations that do not fit are not drawn: 4090 at 131072 (max batch 0).
points = dec["datasets"]["decode"]
check(not any(p["device"] == "RTX 4090" and p["context"] == 131072 for p in points), "RTX 4090 at 128k is plotted")
check("do not fit" in cap or "does not fit" in cap, f"decode caption does not say what is left out: {cap!r}")
# Colours per device, shapes per context in numeric order.
pts = next(l for l in dec["layer"] if isinstance(l.get("mark"), dict) and l["mark"].get("type") == "point")
check(pts["encoding"]["color"]["field"] == "device", f"decode colour {pts['encoding']['color']}")
shape = pts["encoding"]["shape"]
domain = shape.get("scale", {}).get("domain", [])
check(shape["field"] == "context" and domain == sorted(domain) and domain == [1024, 8192, 32768, 131072]
      and all(isinstance(p["context"], int) for p in points), f"decode shape {shape}: contexts not in numeric order")
# The tables say "does not fit" where the chart leaves a point out.
check("does not fit" in text, "the tables do not say what does not fit")

# KV charts in GiB, as the tables.
for cid in ("predict-kv-context", "predict-kv-variants"):
    spec = specs[cid]
    encs = [spec["encoding"]] if "encoding" in spec else [l["encoding"] for l in spec["layer"]]
    ys = [e["y"] for e in encs if "y" in e]
    check(all(y["field"] == "gib" for y in ys), f"{cid} y fields {[y['field'] for y in ys]}")
    titled = [y for y in ys if "axis" in y]
    check(all("GiB" in y["axis"]["title"] and y["axis"].get("format") != "~s" for y in titled), f"{cid} axis {titled}")
kv = specs["predict-kv-context"]["datasets"]["kv"]
row = next(r for r in kv if r["context"] == 131072 and r["batch"] == 1)
check(abs(row["gib"] - 16) < 1e-9, f"8B at 128k is {row['gib']} GiB, not 16")

# A page where no batch turns compute-bound promises no rule.
_, specs2, captions2 = page(sys.argv[2])
dec2 = specs2["predict-decode-batch"]
rules2 = [l for l in dec2["layer"] if isinstance(l.get("mark"), dict) and l["mark"].get("type") == "rule"]
check(not rules2 and "dashed rule marks" not in captions2.get("predict-decode-batch", ""),
      f"memory-bound page: rule layers {len(rules2)}, caption {captions2.get('predict-decode-batch')!r}")

# ... and a page where it does draws the dashed rule it promises, at a batch drawn.
_, specs3, captions3 = page(sys.argv[3])
dec3 = specs3["predict-decode-batch"]
rules3 = [l for l in dec3["layer"] if isinstance(l.get("mark"), dict) and l["mark"].get("type") == "rule"]
turns3 = dec3["datasets"].get("turns", [])
drawn3 = [p["batch"] for p in dec3["datasets"]["decode"]]
check(rules3 and rules3[0]["mark"].get("strokeDash") and "dashed rule marks" in captions3.get("predict-decode-batch", "")
      and len(turns3) == 1 and min(drawn3) <= turns3[0]["batch"] <= max(drawn3),
      f"compute-bound page: rules {len(rules3)}, turns {turns3}, caption {captions3.get('predict-decode-batch')!r}")

for p in problems: print("FAIL:", p)
sys.exit(1 if problems else 0)
PY
[ "$failures" -eq 0 ] && echo "predict_page_specs: all passed" || { echo "predict_page_specs: $failures failed"; exit 1; }
