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


def shapes(v):
    """An op's input_dims or input_types (trace.json /2: an array, or null) as one hashable key."""
    return json.dumps(v, separators=(",", ":"))


def check(doc, exp, label=""):
    assert doc["schema"] == "lmroof.trace/2", f"{label}schema {doc['schema']}"
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
    check_communication(doc["communication"], exp["communication"], label)
    assert doc["unattributed"]["kernels"] == exp["unattributed"]["kernels"], f"{label}unattributed kernels"
    close(doc["unattributed"]["device_time_s"], exp["unattributed"]["device_time_s"], f"{label}unattributed time")
    ops = {(o["name"], shapes(o["input_dims"]), shapes(o["input_types"])): o for o in doc["ops"]}
    for e in exp["ops"]:
        key = (e["name"], shapes(e["input_dims"]), shapes(e["input_types"]))
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


def check_communication(got, exp, label=""):
    """Communication in the window and its exposed part (no compute kernel beside it); null on CPU-only traces."""
    if exp is None:
        assert got["time_s"] is None and got["exposed_s"] is None, f"{label}communication on a CPU-only trace: {got}"
        return
    close(got["time_s"], exp["time_s"], f"{label}communication time")
    close(got["exposed_s"], exp["exposed_s"], f"{label}exposed communication")


def check_ranks(doc, exp):
    """Each rank's step time (its window over its steps), device, world size and exposed communication; the
    slowest rank by step time; a warning for mixed devices or world sizes; one op row per device when mixed."""
    assert len(doc["ranks"]) == len(exp["ranks"]), "rank count"
    for r, er in zip(doc["ranks"], exp["ranks"]):
        assert r["rank"] == er["rank"], "rank ids"
        close(r["busy_s"], er["window"]["busy_s"], f"rank {r['rank']} busy")
        close(r["step_time_s"], er["window"]["total_s"] / er["window"]["step_count"], f"rank {r['rank']} step time")
        assert r["device"] == er["device"] and r["world_size"] == er["world_size"], f"rank {r['rank']}: {r}"
        check_communication(r["communication"], er["communication"], f"rank {r['rank']}: ")
    slowest = max(exp["ranks"], key=lambda e: e["window"]["total_s"] / e["window"]["step_count"])
    assert doc["slowest_rank"] == slowest["rank"], f"slowest rank {doc['slowest_rank']}"
    close(doc["communication"]["exposed_s"], sum(e["communication"]["exposed_s"] for e in exp["ranks"]), "exposed communication, summed")
    mixed = len({e["device"] for e in exp["ranks"]}) > 1
    want = [k for k, differ in (("mixed_devices", mixed), ("mixed_world_sizes", len({e["world_size"] for e in exp["ranks"]}) > 1))
            if differ]
    assert [w["kind"] for w in doc["rank_warnings"]] == want, f"rank warnings {doc['rank_warnings']}, want {want}"
    assert (doc["device"]["source"] == "per_rank") == mixed, f"device {doc['device']}"
    assert all(("device" in o) == mixed for o in doc["ops"]), "ops[].device only when the ranks' devices differ"


def check_modules(doc, exp):
    """The --modules fixture: rows per (op, shapes, dtypes, module, class), both class tables, the
    module table, host-step windows with the idle split, and the all_gather's bus bandwidth."""
    rows = {(o["name"], shapes(o["input_dims"]), shapes(o["input_types"]), o["module"] or "", o["class"], o["input_strides"]): o
            for o in doc["ops"]}
    for e in exp["ops"]:
        key = (e["name"], shapes(e["input_dims"]), shapes(e["input_types"]), e["module"], e["class"], e["input_strides"])
        assert key in rows, f"row {key} missing; have {sorted(rows)}"
        o = rows[key]
        assert o["calls"] == e["calls"], f"{key} calls {o['calls']} != {e['calls']}"
        assert o["kernel_launches"] == e["kernel_launches"], f"{key} kernels {o['kernel_launches']} != {e['kernel_launches']}"
        assert o["ivanov_class"] == e["ivanov"], f"{key} Ivanov class {o['ivanov_class']} != {e['ivanov']}"
        close(o["flops"], None if e["flops"] is None else float(e["flops"] * 1), f"{key} flops")
        close(o["bytes"], None if e["bytes"] is None else float(e["bytes"]), f"{key} bytes")
        close(o["device_time_s"], e["device_time_s"], f"{key} device time")
    assert len(rows) == len(exp["ops"]), f"{len(rows)} rows, want {len(exp['ops'])}: {sorted(rows)}"
    close(doc["total_time_s"], exp["total_time_s"], "total time")
    for table in ("classes", "ivanov_classes"):
        got = {c["class"]: c for c in doc[table]}
        for name, e in exp[table].items():
            close(got[name]["time_s"], e["time_s"], f"{table} {name} time")
            close(got[name]["flops"], e["flops"], f"{table} {name} flops")
            close(got[name]["time_share"], e["time_s"] / exp["total_time_s"], f"{table} {name} time share")
        extra = [c for c in doc[table] if c["class"] not in exp[table] and c["time_s"] > 0]
        assert not extra, f"{table}: time in {extra}"
    mods = {m["type"]: m for m in doc["modules"]}
    assert sorted(mods) == sorted(exp["modules"]), f"module types {sorted(mods)}"
    for name, e in exp["modules"].items():
        m = mods[name]
        assert m["kernels"] == e["kernels"], f"module {name} kernels {m['kernels']} != {e['kernels']}"
        for k in ("time_s", "flops", "bytes"):
            close(m[k], e[k], f"module {name} {k}")
    w, ew = doc["window"], exp["window"]
    for k in ("kind", "step_source", "step_count"):
        assert w[k] == ew[k], f"window.{k} {w[k]} != {ew[k]}"
    for k in ("total_s", "busy_s", "idle_s", "idle_host_bound_s", "idle_other_s"):
        close(w[k], ew[k], f"window.{k}")
    for s, es in zip(w["steps"], ew["steps"]):
        close(s["busy_s"], es["busy_s"], f"step {s['number']} busy")
        assert s["host_bound"] == es["host_bound"], f"step {s['number']} host_bound"
    assert w["host_bound_steps"] == sum(s["host_bound"] for s in ew["steps"]), "host_bound_steps"
    # Fix first: the norm's fusion at its bytes on the memory roof plus one launch per call.
    f, dev = exp["fusion"], doc["device"]
    fuse = [x for x in doc["fix_first"] if x["kind"] == "fuse_module" and x["target"] == f["module"]]
    assert fuse, f"no fusion item for {f['module']}: {doc['fix_first']}"
    close(fuse[0]["current_s"], exp["modules"][f["module"]]["time_s"], "fusion: current time")
    close(fuse[0]["estimate_s"], f["calls"] * (f["bytes_per_call"] / dev["bandwidth_bytes_per_s"] + dev["launch_s"]), "fusion estimate")
    close(fuse[0]["saving_s"], fuse[0]["current_s"] - fuse[0]["estimate_s"], "fusion saving")
    savings = [x["saving_s"] for x in doc["fix_first"]]
    assert savings == sorted(savings, reverse=True), f"fix_first not ranked: {savings}"
    if exp["norm_only"]:
        return
    ag = [o for o in doc["ops"] if o["name"] == "record_param_comms"][0]
    assert ag["collective"] == "all_gather", ag
    close(ag["message_bytes"], float(exp["all_gather"]["message_bytes"]), "all_gather message bytes (Out msg nelems)")
    close(ag["busbw_bytes_per_s"], ag["algbw_bytes_per_s"] * exp["all_gather"]["bus_factor"], "all_gather busbw (Group size)")


def main():
    doc = json.load(open(sys.argv[1]))
    exp = json.load(open(sys.argv[2]))
    if "modules" in exp:
        check_modules(doc, exp)
    elif "ranks" in exp:
        check_ranks(doc, exp)
    else:
        check(doc, exp)
    print("ok: trace.json reproduces the generator's figures")


if __name__ == "__main__":
    main()
