#!/usr/bin/env python3
"""Writes a PyTorch profiler (Kineto) trace of known content, and what `lmroof trace`
must find in it (--expected): FLOPs and bytes per op shape (computed here, apart from
lmroof's C++ models), per-op device times, step windows, busy and idle time.

    python3 scripts/gen_trace.py --out t.json --expected e.json           # 2 steps
    python3 scripts/gen_trace.py --out big.json.gz --target-mb 1024       # benchmark
    python3 scripts/gen_trace.py --out d/ --ranks 2                       # rank folder

Variants (docs/trace.md, "Generator"): --streams 2 (kernels on two overlapping
streams), --queued (kernels queued before the profiler: no launch in the trace),
--graph (a CUDA-graph replay launched outside any op), --cpu-only, --rocm, --nccl
(an all-reduce per step on a second stream). Times are multiples of 0.25 µs, exact
in binary, so sums match to the last bit of a double.

Standard library only.
"""
import argparse
import gzip
import json
import os
import sys

DT = {"c10::BFloat16": 2, "float": 4, "long int": 8, "bool": 1, "c10::Half": 2}


def numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def nbytes(dims, t):
    return numel(dims) * DT[t]


class Model:
    """One transformer-like layer's ops: (name, dims, types, concrete, flops, bytes, kernels)."""

    def __init__(self, B, N, D, H, vocab, dtype, layers):
        self.B, self.N, self.D, self.H, self.vocab, self.dtype, self.layers = B, N, D, H, vocab, dtype, layers

    def ops(self, rocm):
        B, N, D, H, V, t = self.B, self.N, self.D, self.H, self.vocab, self.dtype
        d = D // H
        T = B * N
        gemm = "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32" if rocm else "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
        out = []
        # layer_norm over D with weight and bias: 7 FLOPs per element, 3 per row and an
        # rsqrt (kernels/run_names/op_formulas.h); mean and rstd fp32.
        n = T * D
        out.append(("aten::native_layer_norm", [[B, N, D], [], [D], [D], []], [t, "", t, t, "Scalar"], ["", "[%d]" % D, "", "", "1e-05"],
                    7 * n + 4 * T, nbytes([B, N, D], t) * 2 + 2 * nbytes([D], t) + 2 * T * 4, ["vectorized_layer_norm_kernel"]))
        # addmm(bias [3D], x [T, D], w [D, 3D]): 2·T·3D·D + T·3D
        out.append(("aten::addmm", [[3 * D], [T, D], [D, 3 * D], [], []], [t, t, t, "Scalar", "Scalar"], ["", "", "", "1", "1"],
                    2 * T * 3 * D * D + T * 3 * D,
                    nbytes([3 * D], t) + nbytes([T, D], t) + nbytes([D, 3 * D], t) + nbytes([T, 3 * D], t), [gemm]))
        # causal flash attention, [B, H, N, d]: 4·B·H·N·N·d / 2; bytes q, k, v, out, and logsumexp fp32
        q = [B, H, N, d]
        out.append(("aten::_scaled_dot_product_flash_attention", [q, q, q, [], [], [], []], [t, t, t, "Scalar", "bool", "bool", ""],
                    ["", "", "", "0.", "True", "False", ""],
                    4 * B * H * N * N * d // 2, 4 * nbytes(q, t) + B * H * N * 4, ["flash_fwd_kernel"]))
        # mm(x [T, D], w [D, D])
        out.append(("aten::mm", [[T, D], [D, D]], [t, t], ["", ""], 2 * T * D * D,
                    nbytes([T, D], t) + nbytes([D, D], t) + nbytes([T, D], t), [gemm]))
        # broadcast add: x [B, N, D] + bias [D]: one FLOP per output element, bias read at its own size
        out.append(("aten::add", [[B, N, D], [D], []], [t, t, "Scalar"], ["", "", "1"], T * D,
                    nbytes([B, N, D], t) + nbytes([D], t) + nbytes([B, N, D], t), ["vectorized_elementwise_kernel"]))
        # gelu on [T, 4D]
        out.append(("aten::gelu", [[T, 4 * D], []], [t, ""], ["", "'none'"], T * 4 * D, 2 * nbytes([T, 4 * D], t),
                    ["vectorized_elementwise_kernel"]))
        # conversion: copy_(bf16 self, fp32 src): reads src at 4 bytes, writes self at 2
        out.append(("aten::copy_", [[T, D], [T, D], []], [t, "float", "bool"], ["", "", "False"], 0,
                    nbytes([T, D], "float") + nbytes([T, D], t), ["unrolled_elementwise_kernel"]))
        # an op without a model: time counted, cost null
        out.append(("aten::_custom_fused_thing", [[T, D]], [t], [""], None, None, ["custom_kernel"]))
        return out

    def step_end_ops(self, nccl, world):
        B, N, V, t, D = self.B, self.N, self.vocab, self.dtype, self.D
        T = B * N
        out = [("aten::_log_softmax", [[T, V], [], []], [t, "", "bool"], ["", "-1", "False"], 5 * T * V, 2 * nbytes([T, V], t),
                ["cunn_SoftMaxForward"]),
               ("aten::nll_loss_forward", [[T, V], [T], [], [], []], [t, "long int", "", "", ""], ["", "", "", "1", "-100"],
                T, nbytes([T], "long int") + T * 2 + 2 * 2, ["nll_loss_forward_reduce_cuda_kernel_2d"])]
        if nccl:
            # On a second stream, started while the loss kernel still runs: partly hidden by it.
            P = 4 * D * D
            out.append(("nccl:all_reduce", [[P]], [t], [""], 0, nbytes([P], t), ["ncclDevKernel_AllReduce_Sum_bf16_RING_LL"]))
        # item(): a device-to-host copy of the loss, no cost model: class memory, cost null
        out.append(("aten::_local_scalar_dense", [[]], ["c10::BFloat16"], [""], None, None, ["Memcpy DtoH (Device -> Pageable)"]))
        return out


def q(x):
    """Rounds to a multiple of 0.25 µs (exact in binary)."""
    return round(x * 4) / 4


class Writer:
    def __init__(self, path):
        self.f = gzip.open(path, "wt", compresslevel=1) if path.endswith(".gz") else open(path, "w")
        self.first = True
        self.size = 0

    def head(self, props, rank, world, rocm, cpu_only):
        top = {"schemaVersion": 1}
        if not cpu_only:
            top["deviceProperties"] = [props]
        if world:
            top["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world}
        if rocm:
            top["hip_runtime_version"] = 60200
        elif not cpu_only:
            top["cuda_runtime_version"] = 12040
        s = json.dumps(top)[:-1] + ', "traceEvents": [\n'
        self.f.write(s)
        self.size += len(s)

    def ev(self, e):
        s = ("" if self.first else ",\n") + json.dumps(e, separators=(",", ":"))
        self.first = False
        self.f.write(s)
        self.size += len(s)

    def close(self, base_ns):
        s = '\n], "baseTimeNanoseconds": %d}\n' % base_ns
        self.f.write(s)
        self.f.close()


def generate(a, path, rank, world, slow=1.0, device=None):
    rocm = a.rocm
    m = Model(a.batch, a.seq, a.dim, a.heads, a.vocab, "c10::BFloat16", a.layers)
    layer_ops = m.ops(rocm)
    device = device or ("AMD Instinct MI300X" if rocm else "NVIDIA H100 80GB HBM3")
    props = {"id": 0, "name": device, "totalGlobalMem": 85029158912,
             "computeMajor": 9, "computeMinor": 0, "numSms": 132}
    w = Writer(path)
    w.head(props, rank, world, rocm, a.cpu_only)
    launch = "hipLaunchKernel" if rocm else "cudaLaunchKernel"
    ext = (1 << 62) if a.big_ids else 1000   # External ids beyond 2^53
    corr = (1 << 62) + 7 if a.big_ids else 500000
    cpu_t = 1000.0      # host clock, µs
    gpu_t = 1500.25     # device clock
    exp_ops = {}
    spans = []   # device intervals in the window
    comm_spans, compute_spans = [], []   # collective kernels; other kernels (copies are neither)
    steps = []
    unattributed = [0, 0.0]
    outside = 0

    def add_op(key, flops, byts, dev_time, self_time, cls_kernels):
        o = exp_ops.setdefault(key, {"calls": 0, "flops": flops, "bytes": byts, "device_time_s": 0.0, "self_cpu_time_s": 0.0})
        o["calls"] += 1
        o["device_time_s"] += dev_time
        o["self_cpu_time_s"] += self_time

    if a.queued and not a.cpu_only:
        # One kernel that ran before the first step (outside the window).
        w.ev({"ph": "X", "cat": "kernel", "name": "queued_before_kernel", "pid": 0, "tid": 7, "ts": gpu_t - 400, "dur": 50.5,
              "args": {"correlation": 17, "External id": 3, "stream": 7, "device": 0}})
        outside += 1

    for s in range(a.steps):
        step_no = a.first_step + s
        cpu_step0 = cpu_t
        gpu_step0 = gpu_t
        step_events = []
        if a.queued and s == 0 and not a.cpu_only:
            # Queued before the profiler started: inside the step, no launch, no op.
            for k in range(2):
                d = q(12.5 * slow)
                w.ev({"ph": "X", "cat": "kernel", "name": "queued_kernel", "pid": 0, "tid": 7, "ts": gpu_t, "dur": d,
                      "args": {"correlation": 11 + k, "External id": 5 + k, "stream": 7, "device": 0}})
                spans.append((gpu_t, gpu_t + d))
                compute_spans.append((gpu_t, gpu_t + d))
                unattributed[0] += 1
                unattributed[1] += d * 1e-6
                gpu_t += d + 1.0
        ops = [op for _ in range(a.layers) for op in layer_ops] + m.step_end_ops(a.nccl, world)
        for i, (name, dims, types, concrete, flops, byts, kernels) in enumerate(ops):
            key = (name, json.dumps(dims, separators=(",", ":")), json.dumps(types, separators=(",", ":")))
            ext += 1
            op_dur = q(8.0 + 2 * len(kernels))
            args = {"External id": ext, "Input Dims": dims, "Input type": types, "Concrete Inputs": concrete, "Sequence number": i}
            if a.cpu_only:
                # CPU-only: an aten::linear around the addmm, to check self time and cost placement.
                if name == "aten::addmm":
                    outer = q(op_dur + 6.0)
                    w.ev({"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": cpu_t, "dur": outer,
                          "args": {"External id": ext, "Input Dims": [dims[1], [3 * a.dim, a.dim], dims[0]],
                                   "Input type": types[:3], "Concrete Inputs": ["", "", ""]}})
                    ext += 1
                    w.ev({"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": cpu_t + 2.0, "dur": op_dur,
                          "args": dict(args, **{"External id": ext})})
                    add_op(("aten::linear", json.dumps([dims[1], [3 * a.dim, a.dim], dims[0]], separators=(",", ":")),
                            json.dumps(types[:3], separators=(",", ":"))), None, None, 0.0, (outer - op_dur) * 1e-6, None)
                    add_op(key, flops, byts, 0.0, op_dur * 1e-6, None)
                    cpu_t += outer + 1.0
                else:
                    w.ev({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": cpu_t, "dur": op_dur, "args": args})
                    add_op(key, flops, byts, 0.0, op_dur * 1e-6, None)
                    cpu_t += op_dur + 1.0
                continue
            w.ev({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": cpu_t, "dur": op_dur, "args": args})
            dev_time = 0.0
            for k, kname in enumerate(kernels):
                corr += 1
                lts = cpu_t + 1.0 + 2 * k
                w.ev({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync" if kname.startswith("Memcpy") else launch,
                      "pid": 1, "tid": 1, "ts": lts, "dur": 1.5,
                      "args": {"External id": ext, "correlation": corr}})
                w.ev({"ph": "s", "cat": "ac2g", "id": corr, "pid": 1, "tid": 1, "ts": lts, "name": "ac2g", "bp": "e"})
                d = q((3.0 + (flops or 0) ** 0.5 / 2000 + ((byts or 0) / 4e5)) * slow *
                      (a.norm_slowdown if "layer_norm" in kname else 1.0))
                nccl = "nccl" in kname.lower()
                stream = 13 if (nccl or (a.streams == 2 and kname.startswith("vectorized_layer"))) else 7
                ts = gpu_t
                if stream == 13:
                    ts = q(gpu_t - d / 2) if gpu_t - d / 2 > gpu_step0 else gpu_t   # overlaps the previous kernel
                memcpy = kname.startswith("Memcpy")
                if memcpy:
                    w.ev({"ph": "X", "cat": "gpu_memcpy", "name": kname, "pid": 0, "tid": stream, "ts": ts, "dur": d,
                          "args": {"External id": ext, "correlation": corr, "stream": stream, "device": 0, "bytes": 2}})
                else:
                  w.ev({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": stream, "ts": ts, "dur": d,
                        "args": {"External id": ext, "correlation": corr, "stream": stream, "device": 0, "grid": [1, 1, 1]}})
                w.ev({"ph": "f", "cat": "ac2g", "id": corr, "pid": 0, "tid": stream, "ts": ts, "name": "ac2g", "bp": "e"})
                spans.append((ts, ts + d))
                if nccl:
                    comm_spans.append((ts, ts + d))
                elif not memcpy:
                    compute_spans.append((ts, ts + d))
                dev_time += d * 1e-6
                if stream == 7:
                    gpu_t = ts + d + 0.5
                else:
                    gpu_t = max(gpu_t, ts + d) + 0.5
            add_op(key, flops, byts, dev_time, op_dur * 1e-6, kernels)
            cpu_t += op_dur + 1.0
        if a.graph and not a.cpu_only:
            # A CUDA-graph replay launched from Python (no enclosing op): its kernels are unattributed.
            corr += 1
            w.ev({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": cpu_t, "dur": 4.0,
                  "args": {"correlation": corr}})
            for k in range(3):
                d = q(6.25 * slow)
                w.ev({"ph": "X", "cat": "kernel", "name": "graph_kernel_%d" % k, "pid": 0, "tid": 7, "ts": gpu_t, "dur": d,
                      "args": {"correlation": corr, "stream": 7, "device": 0}})
                spans.append((gpu_t, gpu_t + d))
                compute_spans.append((gpu_t, gpu_t + d))
                unattributed[0] += 1
                unattributed[1] += d * 1e-6
                gpu_t += d + 0.5
            cpu_t += 5.0
        # Step windows: the host range around the step's ops, the GPU range around its kernels.
        cpu_end = cpu_t
        w.ev({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step_no, "pid": 1, "tid": 1, "ts": cpu_step0 - 0.5,
              "dur": cpu_end - cpu_step0 + 1.0, "args": {"External id": 1}})
        if not a.cpu_only:
            gpu_end = max([gpu_t] + [e for (_, e) in spans if e > gpu_step0])
            w.ev({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#%d" % step_no, "pid": 0, "tid": 7,
                  "ts": gpu_step0, "dur": gpu_end - gpu_step0, "args": {"External id": 1}})
            steps.append((step_no, gpu_step0, gpu_end))
            gpu_t = gpu_end + 20.0   # an idle gap between steps (the host)
        else:
            steps.append((step_no, cpu_step0 - 0.5, cpu_end + 0.5))
        cpu_t += 30.0
        if a.target_mb and w.size >= a.target_mb * 1e6:
            break
    w.close(1700000000000000000)
    e = expected(a, exp_ops, spans, steps, unattributed, outside, world)
    e["device"] = None if a.cpu_only else device
    e["communication"] = None if a.cpu_only else exposed_communication(comm_spans, compute_spans, steps)
    return e


def exposed_communication(comm, compute, steps):
    """Communication inside the steps, and the part of it no compute kernel overlaps: the
    measure of comm less compute is |comm u compute| - |compute|. Every device interval here
    lies inside its step (the time between steps holds none), so the window's span stands for
    the steps."""
    lo, hi = steps[0][1], steps[-1][2]
    return {"time_s": union(comm, lo, hi) * 1e-6,
            "exposed_s": (union(comm + compute, lo, hi) - union(compute, lo, hi)) * 1e-6}


def union(spans, lo, hi):
    iv = sorted((max(s, lo), min(e, hi)) for s, e in spans)
    total, cur_s, cur_e = 0.0, None, None
    for s, e in iv:
        if e <= s:
            continue
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def expected(a, exp_ops, spans, steps, unattributed, outside, world):
    lo, hi = steps[0][1], steps[-1][2]
    # The window is the steps' union (the gaps between steps are outside it), and busy
    # is the device time inside the steps.
    window = union([(s, e) for _, s, e in steps], lo, hi) * 1e-6
    busy = 0.0 if a.cpu_only else union([(max(s, ss), min(e, se)) for s, e in spans for _, ss, se in steps], lo, hi) * 1e-6
    ops = []
    for (name, dims, types), o in exp_ops.items():
        ops.append(dict(o, name=name, input_dims=json.loads(dims), input_types=json.loads(types)))  # trace.json /2: arrays
    return {"window": {"kind": "steps", "step_count": len(steps), "total_s": window, "busy_s": busy,
                       "idle_s": window - busy,
                       "steps": [{"number": n, "duration_s": (e - s) * 1e-6,
                                  "busy_s": 0.0 if a.cpu_only else union(spans, s, e) * 1e-6} for n, s, e in steps],
                       "outside_window_device_events": outside},
            "unattributed": {"kernels": unattributed[0], "device_time_s": unattributed[1]},
            "ops": ops, "rank": None, "world_size": world}


# ---- --modules: a trace in the real format with module events ---------------------------------
# Every rule of docs/trace.md "Modules and classes" on a fixture whose figures are computed here,
# apart from lmroof: an HF-style RMSNorm split into eight primitives under nn.Module events, a
# Qwen2MLP holding a mul of the very shape the norm's last mul has (it stays elementwise), an
# attention module (its mm stays matmul, its softmax and mul become attention), a custom fused
# norm op, a compiled graph's triton and cutlass kernels, a symmetric-memory all-reduce, an
# all_gather whose kernel args carry the message size and group, a mul with an out= tensor, a
# FusedAdam launch inside an Optimizer annotation with no op, and host-only ProfilerStep ranges.

def ivanov_group(cls, softmax):
    if softmax:
        return "statistical_normalization"
    return {"matmul": "tensor_contraction", "attention": "tensor_contraction", "normalization": "statistical_normalization",
            "elementwise": "elementwise", "reduction": "elementwise"}.get(cls, cls)


def generate_modules(a, path):
    B, N, D = a.batch, a.seq, a.dim
    T, n, bf, f32 = B * N, B * N * a.dim, "c10::BFloat16", "float"
    world, group = 2, 8
    w = Writer(path)
    w.head({"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0,
            "numSms": 132}, 0, world, False, False)
    st = {"cpu": 1000.0, "gpu_free": {7: 0.0, 13: 0.0}, "ext": 100, "corr": 9000, "pyid": 1, "step": 0}
    rows, spans, modules, steps = {}, [], {}, []

    def row(key, cls, softmax, flops, byts, t, kernels, new_call):
        r = rows.setdefault(key, {"calls": 0, "class": cls, "ivanov": ivanov_group(cls, softmax), "flops": flops,
                                  "bytes": byts, "device_time_s": 0.0, "kernel_launches": 0})
        r["calls"] += 1 if new_call else 0
        r["device_time_s"] += t
        r["kernel_launches"] += len(kernels)

    def launch_kernels(kernels, stream=7, delay=0.0, kargs=None):
        """Launches at the host cursor, one per 3 µs; each kernel starts when its stream is free and its launch is done."""
        total = 0.0
        for k, (kname, dur) in enumerate(kernels):
            st["corr"] += 1
            lts = st["cpu"] + 1.0 + 3 * k
            w.ev({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": lts, "dur": 1.5,
                  "args": {"External id": st["ext"], "correlation": st["corr"]}})
            ts = max(st["gpu_free"][stream], lts + 2.0) + delay
            args = {"External id": st["ext"], "correlation": st["corr"], "stream": stream, "device": 0}
            args.update(kargs or {})
            w.ev({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": stream, "ts": ts, "dur": dur, "args": args})
            st["gpu_free"][stream] = ts + dur + 0.5
            spans.append((ts, ts + dur, lts, st["step"]))
            total += dur * 1e-6
        return total

    def op(name, dims, types, concrete, kernels, module, cls, flops, byts, softmax=False, extra=None, stream=7, delay=0.0,
           kargs=None, split=None, row_strides=None):
        """row_strides: the Input Strides lmroof must show on this call's row (a row split by layout), else None."""
        st["ext"] += 1
        dur = 4.0 + 3 * len(split or kernels)
        args = {"External id": st["ext"], "Input Dims": dims, "Input type": types, "Concrete Inputs": concrete}
        args.update(extra or {})
        w.ev({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": st["cpu"], "dur": dur, "args": args})
        key = (name, json.dumps(dims, separators=(",", ":")), json.dumps(types, separators=(",", ":")), module)
        if split:  # an op without a model: one row per kernel class (CompiledFunction)
            t0 = st["cpu"]
            for k, (kname, kdur, kcls, ksoft) in enumerate(split):
                st["cpu"] = t0 + 3 * k
                t = launch_kernels([(kname, kdur)])
                row(key + (kcls, None), kcls, ksoft, None, None, t, [kname], True)
                if module:
                    modules[module]["kernels"] += 1
                    modules[module]["time_s"] += t
            st["cpu"] = t0
        else:
            # A kernel without a given time runs at 2 µs + its bytes at 2.5 TB/s (an H100 at 75%).
            kernels = [(k, d if d is not None else q(2.0 + byts / len(kernels) / 2.5e6)) for k, d in kernels]
            t = launch_kernels(kernels, stream, delay, kargs)
            row(key + (cls, row_strides), cls, softmax, flops, byts, t, kernels, True)
            if module:
                m = modules[module]
                m["kernels"] += len(kernels)
                m["time_s"] += t
                m["flops"] += flops or 0
                m["bytes"] += byts or 0
        st["cpu"] += dur + 1.0

    def module(mtype, instance, body):
        modules.setdefault(mtype, {"kernels": 0, "time_s": 0.0, "flops": 0.0, "bytes": 0.0})
        t0 = st["cpu"]
        st["cpu"] += 0.5
        body(mtype)
        st["pyid"] += 1
        w.ev({"ph": "X", "cat": "python_function", "name": "nn.Module: %s_%d" % (mtype, instance), "pid": 1, "tid": 1,
              "ts": t0, "dur": st["cpu"] - t0 + 0.5, "args": {"Python id": st["pyid"], "Python parent id": 1, "Ev Idx": st["pyid"]}})
        st["cpu"] += 1.0

    def rms_norm(m):
        # Hugging Face Qwen2RMSNorm: to(float32), pow(2), mean(-1, keepdim), + eps, rsqrt, *, to(bf16), weight *.
        x, r = [B, N, D], [B, N, 1]
        op("aten::copy_", [x, x, []], [f32, bf, "bool"], ["", "", "False"], [("elementwise_kernel_copy", None)], m,
           "normalization", 0, n * 2 + n * 4)
        op("aten::pow", [x, []], [f32, "Scalar"], ["", "2"], [("elementwise_kernel_pow", None)], m, "normalization", n, 2 * n * 4)
        op("aten::mean", [x, [], [], []], [f32, "", "bool", ""], ["", "[-1]", "True", ""], [("reduce_kernel_mean", None)], m,
           "normalization", n, n * 4 + T * 4)
        op("aten::add", [r, [], []], [f32, "Scalar", "Scalar"], ["", "1e-06", "1"], [("elementwise_kernel_add", None)], m,
           "normalization", T, 2 * T * 4)
        op("aten::rsqrt", [r], [f32], [""], [("elementwise_kernel_rsqrt", None)], m, "normalization", T, 2 * T * 4)
        op("aten::mul", [x, r], [f32, f32], ["", ""], [("elementwise_kernel_mul", None)], m, "normalization", n,
           n * 4 + T * 4 + n * 4)
        op("aten::copy_", [x, x, []], [bf, f32, "bool"], ["", "", "False"], [("elementwise_kernel_copy", None)], m,
           "normalization", 0, n * 4 + n * 2)
        op("aten::mul", [[D], x], [bf, bf], ["", ""], [("elementwise_kernel_mul", None)], m, "normalization", n,
           D * 2 + n * 2 + n * 2)

    def attention(m):
        op("aten::mm", [[T, D], [D, D]], [bf, bf], ["", ""], [("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_TNN", 9.0)], m, "matmul",
           2 * T * D * D, 3 * T * D * 2 if False else T * D * 2 + D * D * 2 + T * D * 2)
        op("aten::_softmax", [[B, 4, N, N], [], []], [bf, "", "bool"], ["", "-1", "False"], [("cunn_SoftMaxForward", 4.0)], m,
           "attention", 5 * B * 4 * N * N, 2 * B * 4 * N * N * 2, softmax=True)
        op("aten::mul", [[T, D], []], [bf, "Scalar"], ["", "0.125"], [("elementwise_kernel_scale", 2.5)], m, "attention",
           T * D, 2 * T * D * 2)
        # Rotary embeddings: q and k from a contiguous projection, and q and k read through a
        # transposed view ([B, N, 4, d].transpose(1, 2)): one op shape, two layouts, the
        # transposed calls ~35% slower (issue 43). Over two steps, 4 calls of each whose times
        # never overlap (4.0-4.25 against 5.5-5.75 us; 2 / C(8, 4) = 0.029 < 0.05): two rows
        # (docs/trace.md, "Layouts").
        d = D // 4
        x, cos = [B, 4, N, d], [1, 1, N, d]
        cos_strides = [N * d, N * d, d, 1]
        for strides, times in (([4 * N * d, N * d, d, 1], (4.0, 4.25)), ([N * D, d, D, 1], (5.5, 5.75))):
            layout = json.dumps([strides, cos_strides], separators=(",", ":"))
            for t in times:
                op("aten::mul", [x, cos], [bf, bf], ["", ""], [("elementwise_kernel_rope", t)], m, "attention", B * N * D,
                   2 * B * N * D * 2 + N * d * 2, extra={"Input Strides": [strides, cos_strides]}, row_strides=layout)

    def mlp(m):
        # The same shape as the norm's last mul: here it stays elementwise (an MLP says no more than the op).
        # Twice, on x and on a transposed view of it: the layouts differ, the times do not (3.0 us
        # each), so they stay one row.
        for strides in ([N * D, D, 1], [D, B * D, 1]):
            op("aten::mul", [[D], [B, N, D]], [bf, bf], ["", ""], [("elementwise_kernel_mul", 3.0)], m, "elementwise", n,
               D * 2 + n * 2 + n * 2, extra={"Input Strides": [[1], strides]})
        op("aten::mm", [[T, D], [D, 4 * D]], [bf, bf], ["", ""], [("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 12.0)],
           m, "matmul", 2 * T * D * 4 * D, T * D * 2 + D * 4 * D * 2 + T * 4 * D * 2)

    for s in range(a.steps):
        step0 = st["cpu"]
        st["step"] = s
        module("Qwen2RMSNorm", 2 * s, rms_norm)
        if a.norm_only:  # the worked example of docs/trace.md, "Fix first": two norms a step
            module("Qwen2RMSNorm", 2 * s + 1, rms_norm)
            w.ev({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (a.first_step + s), "pid": 1, "tid": 1,
                  "ts": step0 - 0.5, "dur": st["cpu"] - step0 + 1.0, "args": {"External id": 1}})
            steps.append((a.first_step + s, step0 - 0.5, st["cpu"] + 0.5))
            st["cpu"] += 30.0
            continue
        module("Qwen2Attention", s, attention)
        module("Qwen2RMSNorm", 2 * s + 1, rms_norm)
        module("Qwen2MLP", s, mlp)
        st["cpu"] += a.host_pause_us  # the host busy elsewhere (a data loader, Python): nothing queued, the GPU waits
        # Serving stack's fused norm: reads input, residual and weight, writes input and residual.
        op("_C::fused_add_rms_norm", [[T, D], [T, D], [D], []], [bf, bf, bf, "Scalar"], ["", "", "", "1e-06"],
           [("void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)", 4.0)],
           "", "normalization", 5 * T * D + 3 * T, 4 * T * D * 2 + D * 2)
        # A compiled graph: no model; one row per kernel class.
        op("CompiledFunction", [[T, D], [D, D]], [bf, bf], ["", ""], [], "", None, None, None, split=[
            ("triton_poi_fused_add_mul_0", 2.5, "elementwise", False),
            ("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8", 8.0, "matmul", False),
            ("triton_per_fused__softmax_1", 3.0, "reduction", True)])
        # mul with an out= tensor (the last input): two reads and one write.
        op("aten::mul", [[T, D], [T, D], [T, D]], [bf, bf, bf], ["", "", ""], [("elementwise_kernel_mul_out", 3.0)], "",
           "elementwise", T * D, 3 * T * D * 2)
        # A long GEMM, then an all_gather launched while it runs that waits for its peers until 20 µs
        # after the GEMM: the idle gap before it is not host-bound (its launch came before the gap).
        op("aten::mm", [[T, D], [D, D]], [bf, bf], ["", ""], [("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_TNN", 40.0)], "", "matmul",
           2 * T * D * D, T * D * 2 + D * D * 2 + T * D * 2)
        cargs = {"Collective name": "all_gather", "In msg nelems": 25136, "Out msg nelems": 201088, "Group size": group,
                 "dtype": "BFloat16", "Process Group Name": "0"}
        op("record_param_comms", [[25136], [201088]], [bf, bf], ["", ""], [("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 6.0)],
           "", "communication", 0, 201088 * 2, extra=cargs, stream=13, delay=20.0 + 40.0, kargs=cargs)
        st["cpu"] = max(st["cpu"], st["gpu_free"][13]) + 2.0
        op("symm_mem::multimem_all_reduce_", [[65536], [], []], [bf, "", ""], ["", "'sum'", "'0'"],
           [("void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 4, 4>(c10::BFloat16*, unsigned long, unsigned long, unsigned long)", 5.0)],
           "", "communication", 0, 65536 * 2)
        # FusedAdam: its launch sits in the optimizer annotation with no cpu_op around it.
        t0 = st["cpu"]
        st["cpu"] += 0.5
        st["ext"] += 1
        t = launch_kernels([("void multi_tensor_apply_kernel<TensorListMetadata<4>, FusedAdamMathFunctor<float, 4>>(...)", 7.0)])
        row(("Optimizer.step#FusedAdam.step", "", "", "", "elementwise", None), "elementwise", False, None, None, t, ["k"], True)
        st["cpu"] += 5.0
        w.ev({"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#FusedAdam.step", "pid": 1, "tid": 1, "ts": t0,
              "dur": st["cpu"] - t0, "args": {"External id": st["ext"]}})
        st["cpu"] += 1.0
        w.ev({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (a.first_step + s), "pid": 1, "tid": 1,
              "ts": step0 - 0.5, "dur": st["cpu"] - step0 + 1.0, "args": {"External id": 1}})
        steps.append((a.first_step + s, step0 - 0.5, st["cpu"] + 0.5))
        st["cpu"] += 30.0
    w.close(1700000000000000000)
    # Fusing the norm's eight kernels: one pass reads x (bf16, its narrowest dtype here) and
    # the weight and writes y, once per call.
    fusion = {"module": "Qwen2RMSNorm", "calls": 2 * a.steps, "bytes_per_call": 2 * n * 2 + D * 2}
    return expected_modules(rows, spans, modules, steps, fusion, a)


def expected_modules(rows, spans, modules, steps, fusion, a):
    total_time = sum(r["device_time_s"] for r in rows.values())
    classes, ivanov = {}, {}
    for r in rows.values():
        for table, c in ((classes, r["class"]), (ivanov, r["ivanov"])):
            e = table.setdefault(c, {"time_s": 0.0, "flops": 0.0})
            e["time_s"] += r["device_time_s"]
            e["flops"] += (r["flops"] or 0) * r["calls"]
    # Host-only steps: a step's busy time is the union of the kernels launched in it.
    w0, w1 = steps[0][1], steps[-1][2]
    busy = [min(e - s, union([(a, b) for a, b, _, k in spans if k == i], -1e300, 1e300)) for i, (_, s, e) in enumerate(steps)]
    total = union([(s, e) for _, s, e in steps], w0, w1) * 1e-6  # the steps' union, as for GPU steps
    idle = total - sum(busy) * 1e-6
    # Idle gaps over the device timeline: host-bound when the kernel after the gap was launched
    # after the gap began (nothing was queued).
    cursor, host_bound = w0, 0.0
    for s, e, lts, _ in sorted(spans):
        if s > cursor and lts > cursor:
            host_bound += s - cursor
        cursor = max(cursor, e)
    window = {"kind": "steps", "step_source": "user_annotation", "step_count": len(steps), "total_s": total,
              "busy_s": sum(busy) * 1e-6, "idle_s": idle, "idle_host_bound_s": host_bound * 1e-6,
              "idle_other_s": idle - host_bound * 1e-6,
              "steps": [{"number": n, "duration_s": (e - s) * 1e-6, "busy_s": b * 1e-6, "host_bound": (e - s - b) > 0.5 * (e - s)}
                        for (n, s, e), b in zip(steps, busy)]}
    return {"ops": [dict(r, name=k[0], input_dims=json.loads(k[1]) if k[1] else None, input_types=json.loads(k[2]) if k[2] else None, module=k[3], input_strides=k[5]) for k, r in rows.items()],
            "classes": classes, "ivanov_classes": ivanov, "modules": modules, "total_time_s": total_time,
            "window": window, "fusion": fusion, "norm_only": a.norm_only, "all_gather": {"message_bytes": 201088 * 2, "bus_factor": 7 / 8}}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="trace file (.json or .json.gz), or a folder with --ranks")
    p.add_argument("--expected", help="write the expected figures (JSON) here")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--first-step", type=int, default=3)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--streams", type=int, default=1, choices=[1, 2])
    p.add_argument("--queued", action="store_true")
    p.add_argument("--graph", action="store_true")
    p.add_argument("--cpu-only", action="store_true")
    p.add_argument("--rocm", action="store_true")
    p.add_argument("--nccl", action="store_true")
    p.add_argument("--modules", action="store_true", help="the real-format fixture with module events (host-only steps)")
    p.add_argument("--norm-only", action="store_true", help="--modules: only the two RMSNorm calls a step")
    p.add_argument("--host-pause-us", type=float, default=200.0, help="--modules: host time per step with nothing queued")
    p.add_argument("--big-ids", action="store_true", help="External ids and correlations beyond 2^53")
    p.add_argument("--ranks", type=int, default=0, help="write a folder of this many rank traces (rank r is 1+r/4 times slower)")
    p.add_argument("--rank-devices", help="--ranks: deviceProperties names, comma-separated, one per rank in turn")
    p.add_argument("--rank-world-sizes", help="--ranks: world sizes, comma-separated, one per rank in turn (default: --ranks)")
    p.add_argument("--norm-slowdown", type=float, default=1.0,
                   help="layer_norm kernels this many times slower (claims fixtures: normalization's time share)")
    p.add_argument("--target-mb", type=float, default=0, help="repeat steps until the file holds this many MB (benchmarks)")
    a = p.parse_args()
    if a.target_mb:
        a.steps = 10 ** 9
    if a.modules:
        out = generate_modules(a, a.out)
    elif a.ranks:
        os.makedirs(a.out, exist_ok=True)
        out = {"ranks": []}
        devices = a.rank_devices.split(",") if a.rank_devices else [None]
        worlds = [int(w) for w in a.rank_world_sizes.split(",")] if a.rank_world_sizes else [a.ranks]
        for r in range(a.ranks):
            e = generate(a, os.path.join(a.out, "rank%d.pt.trace.json" % r), r, worlds[r % len(worlds)], 1.0 + r / 4,
                         devices[r % len(devices)])
            e["rank"] = r
            out["ranks"].append(e)
    else:
        out = generate(a, a.out, 0, 2 if a.nccl else 0)
    if a.expected:
        with open(a.expected, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
