#!/usr/bin/env python3
"""Checks an `lmroof trace` trace.json against what scripts/gen_trace.py --expected
wrote: window, steps, busy/idle, unattributed work, and per op shape its calls, FLOPs,
bytes and device (or self CPU) time. Sums of times are compared to 1e-9 relative (the
generator's times are multiples of 0.25 us; only the order of additions differs).
    python3 tests/e2e/trace_expected.py TRACE.json EXPECTED.json"""
import json
import sys


def close(a, b, what):
    if a is None or b is None:
        assert a is None and b is None, f"{what}: {a!r} != {b!r}"
        return
    assert abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12), f"{what}: got {a!r}, want {b!r}"


def check(doc, exp, label=""):
    w, ew = doc["window"], exp["window"]
    assert w["kind"] == ew["kind"], f"{label}window.kind {w['kind']}"
    assert w["step_count"] == ew["step_count"], f"{label}steps {w['step_count']} != {ew['step_count']}"
    for k in ("total_s", "busy_s", "idle_s"):
        close(w[k], ew[k], f"{label}window.{k}")
    assert w["outside_window_device_events"] == ew["outside_window_device_events"], f"{label}outside window"
    for s, es in zip(w["steps"], ew["steps"]):
        assert s["number"] == es["number"], f"{label}step number {s['number']} != {es['number']}"
        close(s["duration_s"], es["duration_s"], f"{label}step {s['number']} duration")
        close(s["busy_s"], es["busy_s"], f"{label}step {s['number']} busy")
    assert doc["unattributed"]["kernels"] == exp["unattributed"]["kernels"], f"{label}unattributed kernels"
    close(doc["unattributed"]["device_time_s"], exp["unattributed"]["device_time_s"], f"{label}unattributed time")
    ops = {(o["name"], o["input_dims"], o["input_types"]): o for o in doc["ops"]}
    for e in exp["ops"]:
        key = (e["name"], e["input_dims"], e["input_types"])
        assert key in ops, f"{label}op {key} missing; have {list(ops)[:5]}"
        o = ops[key]
        assert o["calls"] == e["calls"], f"{label}{key} calls {o['calls']} != {e['calls']}"
        close(o["flops"], e["flops"], f"{label}{key} flops")
        close(o["bytes"], e["bytes"], f"{label}{key} bytes")
        close(o["device_time_s"], e["device_time_s"], f"{label}{key} device time")
        close(o["self_cpu_time_s"], e["self_cpu_time_s"], f"{label}{key} self cpu time")
    assert len(ops) == len(exp["ops"]), f"{label}{len(ops)} op shapes, want {len(exp['ops'])}"
    # The class table adds up: time shares to 1, and the flops to the ops' sum.
    close(sum(c["time_share"] for c in doc["classes"]), 1.0, f"{label}time shares")
    flops = sum(e["flops"] * e["calls"] for e in exp["ops"] if e["flops"] is not None)
    close(sum(c["flops"] for c in doc["classes"]), float(flops), f"{label}class flops")


def main():
    doc = json.load(open(sys.argv[1]))
    exp = json.load(open(sys.argv[2]))
    if "ranks" in exp:
        assert len(doc["ranks"]) == len(exp["ranks"]), "rank count"
        for r, er in zip(doc["ranks"], exp["ranks"]):
            assert r["rank"] == er["rank"], "rank ids"
            close(r["busy_s"], er["window"]["busy_s"], f"rank {r['rank']} busy")
            close(r["step_time_s"], er["window"]["total_s"] / er["window"]["step_count"], f"rank {r['rank']} step time")
        slowest = max(exp["ranks"], key=lambda e: e["window"]["total_s"] / e["window"]["step_count"])
        assert doc["slowest_rank"] == slowest["rank"], f"slowest rank {doc['slowest_rank']}"
    else:
        check(doc, exp)
    print("ok: trace.json reproduces the generator's figures")


if __name__ == "__main__":
    main()
