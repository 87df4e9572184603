#!/usr/bin/env python3
"""PyTorch beside lmroof on the CUDA suite's own shapes.

For every shape `lmroof list --json` gives the GPU suite (bf16):
  norm    F.rms_norm / F.layer_norm            against norm/{rmsnorm,layernorm}/fused
  bias    F.linear(x, W, b) / F.linear(x, W)   against bias/{bias,nobias}/fused
  decode  F.scaled_dot_product_attention, one query token over the cache
          (enable_gqa=True when kv heads < query heads) against decode/{mha,gqa,mqa}/grouped
Timed with CUDA events, one call per sample, the L2 flushed before each sample (a read
of a buffer twice the L2), after 3 warm-up calls; the median of at least 20 samples
(more, up to 200, until 0.05 s of samples). lmroof's median comes from the run's
results.json when given. Writes peer.json and peer.txt into --out and prints the table.
Exit 0; 77 (skipped) with one line saying why when torch or a CUDA device is missing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def skip(reason):
    print(f"torch_peer: skipped: {reason}")
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lmroof", required=True, help="the lmroof binary (for `lmroof list --json`)")
    ap.add_argument("--results", help="results.json of the CUDA suite, for lmroof's times (optional)")
    ap.add_argument("--out", required=True, help="folder for peer.json and peer.txt")
    ap.add_argument("--min-samples", type=int, default=20)
    args = ap.parse_args()

    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001
        skip(f"PyTorch is not importable ({type(e).__name__}: {e})")
    if not torch.cuda.is_available():
        skip(f"torch {torch.__version__} sees no CUDA device")

    listing = subprocess.run([args.lmroof, "list", "--json", "--suite", "norm,bias,decode"],
                             capture_output=True, text=True, timeout=30)
    if listing.returncode != 0:
        skip(f"`lmroof list --json` failed: {listing.stderr.strip()[:200]}")
    pairs = {p["pair"]: p for p in json.loads(listing.stdout)["pairs"]}
    lmroof_times = {}
    if args.results and os.path.exists(args.results):
        for r in json.load(open(args.results)).get("runs", []):
            lmroof_times[r["id"]] = r["time_s"]["median"]

    dev, bf16 = torch.device("cuda"), torch.bfloat16
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 0) or (64 << 20)
    flush_buf = torch.zeros(max(2 * l2, 32 << 20) // 4, dtype=torch.float32, device=dev)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def time_it(fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        samples = []
        while len(samples) < args.min_samples or (sum(samples) < 0.05 and len(samples) < 200):
            flush_buf.sum()  # a read: evicts what the last call left in L2, outside the timed region
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) * 1e-3)
        return statistics.median(samples), len(samples)

    def run_id(pair, variant, impl, dims):
        return f"{pair}/{variant}/{impl}/cuda/bf16/" + "/".join(f"{k}:{v}" for k, v in dims)

    rows = []

    def record(op, pair, variant, impl, dims, fn):
        rid = run_id(pair, variant, impl, dims)
        try:
            t, n = time_it(fn)
        except Exception as e:  # noqa: BLE001 - one shape failing (memory) must not lose the rest
            rows.append({"op": op, "lmroof_run": rid, "error": f"{type(e).__name__}: {e}"[:200]})
            print(f"torch_peer: {op} {rid}: {rows[-1]['error']}")
            return
        lm = lmroof_times.get(rid)
        rows.append({"op": op, "lmroof_run": rid, "torch_median_s": t, "torch_samples": n,
                     "lmroof_median_s": lm, "lmroof_over_torch": (lm / t) if lm else None})

    for shape in pairs.get("norm", {}).get("cuda_shapes", []):
        dims = shape["dims"]
        s = dict(dims)
        x = torch.randn(s["tokens"], s["d_model"], device=dev, dtype=bf16)
        w, b = torch.randn(s["d_model"], device=dev, dtype=bf16), torch.randn(s["d_model"], device=dev, dtype=bf16)
        if hasattr(F, "rms_norm") and "rmsnorm" in shape["variants"]:
            record("F.rms_norm", "norm", "rmsnorm", "fused", dims, lambda: F.rms_norm(x, (s["d_model"],), w, 1e-5))
        if "layernorm" in shape["variants"]:
            record("F.layer_norm", "norm", "layernorm", "fused", dims, lambda: F.layer_norm(x, (s["d_model"],), w, b, 1e-5))
        del x, w, b

    for shape in pairs.get("bias", {}).get("cuda_shapes", []):
        dims = shape["dims"]
        s = dict(dims)
        x = torch.randn(s["tokens"], s["in_features"], device=dev, dtype=bf16)
        w = torch.randn(s["out_features"], s["in_features"], device=dev, dtype=bf16) * 0.05
        b = torch.randn(s["out_features"], device=dev, dtype=bf16)
        if "bias" in shape["variants"]:
            record("F.linear+bias", "bias", "bias", "fused", dims, lambda: F.linear(x, w, b))
        if "nobias" in shape["variants"]:
            record("F.linear", "bias", "nobias", "fused", dims, lambda: F.linear(x, w))
        del x, w, b

    for shape in pairs.get("decode", {}).get("cuda_shapes", []):
        dims = shape["dims"]
        s = dict(dims)
        for variant in shape["variants"]:  # kv_heads is part of the dims, per variant
            q = torch.randn(s["batch"], s["q_heads"], 1, s["head_dim"], device=dev, dtype=bf16)
            k = torch.randn(s["batch"], s["kv_heads"], s["context"], s["head_dim"], device=dev, dtype=bf16)
            v = torch.randn_like(k)
            gqa = s["kv_heads"] != s["q_heads"]
            fn = (lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)) if gqa else \
                 (lambda: F.scaled_dot_product_attention(q, k, v))
            record("SDPA" + (" enable_gqa" if gqa else ""), "decode", variant, "grouped", dims, fn)
            del q, k, v
        torch.cuda.empty_cache()

    os.makedirs(args.out, exist_ok=True)
    doc = {"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": props.name, "dtype": "bf16",
           "timing": "CUDA events, L2 flushed by a read of 2x L2 before each sample, median of >= 20",
           "lmroof_results": args.results if lmroof_times else None, "rows": rows}
    with open(os.path.join(args.out, "peer.json"), "w") as f:
        json.dump(doc, f, indent=2)
    lines = [f"PyTorch {torch.__version__} peer on {props.name} (bf16; lmroof/torch < 1: lmroof faster)",
             f"{'torch op':<18}{'lmroof run':<72}{'torch ms':>10}{'lmroof ms':>10}{'ratio':>7}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['op']:<18}{r['lmroof_run'][:71]:<72}  {r['error'][:40]}")
            continue
        lm = r["lmroof_median_s"]
        lines.append(f"{r['op']:<18}{r['lmroof_run'][:71]:<72}{r['torch_median_s'] * 1e3:>10.4f}"
                     f"{(lm * 1e3 if lm else float('nan')):>10.4f}{(r['lmroof_over_torch'] or float('nan')):>7.2f}")
    if not lmroof_times:
        lines.append("(no lmroof results.json: the lmroof column is empty)")
    with open(os.path.join(args.out, "peer.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
