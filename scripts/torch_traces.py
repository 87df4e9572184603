#!/usr/bin/env python3
"""Capture torch.profiler traces of a small GPT-2-style decoder block on a CUDA GPU.

Two traces of the same model, bf16, eager, forward only:
  block-fused.trace.json    RMSNorm through F.rms_norm (one kernel per norm)
  block-unfused.trace.json  F.rms_norm replaced by the unfused
                            x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
Each: CPU and CUDA activities, record_shapes=True, a schedule of wait 1, warm-up 1,
active 3 (three ProfilerStep#N), exported with export_chrome_trace. `lmroof trace`
reads them. Beside them: meta.json (torch, GPU, model dimensions, files) and each
trace's key_averages table (*.table.txt).

The model: 4 pre-norm blocks, d_model 1024, 16 heads, d_ff 4096 (GELU), Linear layers
with bias (GPT-2), causal SDPA, batch 8 x 1024 tokens. Its MLP up-projection is
x[8192, 1024] . W[4096, 1024]^T + b, the CUDA suite's bias/bias/fused shape
tokens:8192/in_features:1024/out_features:4096, so the trace's GEMM time can be set
against lmroof's.

Exit 0 with the traces written; 77 (skipped) with one line saying why when torch or a
CUDA device is missing; 1 on a failure.
"""
import argparse
import json
import os
import sys
import time


def skip(reason):
    print(f"torch_traces: skipped: {reason}")
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for the traces (created)")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--d-model", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=1024)
    args = ap.parse_args()

    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.profiler import ProfilerActivity, profile, schedule
    except Exception as e:  # noqa: BLE001 - any import failure means no traces here
        skip(f"PyTorch with torch.profiler is not importable ({type(e).__name__}: {e})")
    if not torch.cuda.is_available():
        skip(f"torch {torch.__version__} sees no CUDA device")
    has_rms_norm = hasattr(F, "rms_norm")

    d, h = args.d_model, args.heads
    if d % h:
        print(f"torch_traces: --d-model {d} is not a multiple of --heads {h}")
        return 2
    eps = 1e-5

    class Block(nn.Module):
        def __init__(self, unfused):
            super().__init__()
            self.unfused = unfused
            self.n1 = nn.Parameter(torch.ones(d))
            self.n2 = nn.Parameter(torch.ones(d))
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.fc = nn.Linear(d, 4 * d)
            self.out = nn.Linear(4 * d, d)

        def norm(self, x, w):
            if self.unfused:
                return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
            return F.rms_norm(x, (x.shape[-1],), w, eps)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.norm(x, self.n1)).split(d, dim=-1)
            q, k, v = (z.view(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
            return x + self.out(F.gelu(self.fc(self.norm(x, self.n2)), approximate="tanh"))

    os.makedirs(args.out, exist_ok=True)
    dev = torch.device("cuda")
    written, notes = [], []
    for variant in ("fused", "unfused"):
        if variant == "fused" and not has_rms_norm:
            notes.append(f"fused: skipped: torch {torch.__version__} has no F.rms_norm (added in 2.4)")
            print(f"torch_traces: {notes[-1]}")
            continue
        torch.manual_seed(0)
        model = nn.Sequential(*[Block(variant == "unfused") for _ in range(args.layers)]).to(dev, torch.bfloat16).eval()
        x = torch.randn(args.batch, args.seq, d, device=dev, dtype=torch.bfloat16)
        path = os.path.join(args.out, f"block-{variant}.trace.json")
        tables = []

        def ready(prof, path=path, tables=tables):
            prof.export_chrome_trace(path)
            for key in ("self_cuda_time_total", "self_device_time_total", "cuda_time_total"):
                try:
                    tables.append(prof.key_averages(group_by_input_shape=True).table(sort_by=key, row_limit=40))
                    break
                except Exception:  # noqa: BLE001 - the sort key's name changed across versions
                    continue

        t0 = time.time()
        with torch.no_grad():
            for _ in range(2):  # outside the profiler: cuBLAS/cuDNN heuristics, lazy loading
                model(x)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                         schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                         record_shapes=True, on_trace_ready=ready) as prof:
                for _ in range(5):
                    model(x)
                    torch.cuda.synchronize()
                    prof.step()
        if not os.path.exists(path):
            print(f"torch_traces: {variant}: the profiler wrote no trace")
            return 1
        if tables:
            with open(os.path.join(args.out, f"block-{variant}.table.txt"), "w") as f:
                f.write(tables[0])
        size = os.path.getsize(path)
        written.append({"variant": variant, "file": os.path.basename(path), "bytes": size, "seconds": round(time.time() - t0, 2)})
        print(f"torch_traces: {variant}: {path} ({size / 1e6:.1f} MB, {time.time() - t0:.1f}s)")
        del model, x
        torch.cuda.empty_cache()

    props = torch.cuda.get_device_properties(0)
    meta = {
        "torch": torch.__version__, "cuda": torch.version.cuda, "gpu": props.name,
        "model": {"layers": args.layers, "d_model": d, "heads": h, "d_ff": 4 * d, "batch": args.batch, "seq": args.seq,
                  "dtype": "bfloat16", "mode": "eager, forward, torch.no_grad", "norm_eps": eps,
                  "mlp_up_gemm": {"tokens": args.batch * args.seq, "in_features": d, "out_features": 4 * d, "bias": True}},
        "profiler": {"activities": ["CPU", "CUDA"], "record_shapes": True, "schedule": {"wait": 1, "warmup": 1, "active": 3}},
        "traces": written, "notes": notes,
    }
    with open(os.path.join(args.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    if not written:
        skip("; ".join(notes) or "no trace written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
