#!/usr/bin/env python3
"""Writes the compare fixtures from tests/data/results_small.json (run from the repo root).

slower_rmsnorm.json  the same file with one run planted 20% slower: every repetition
                     sample of norm/rmsnorm/fused/.../tokens:4096/d_model:1024 times 1.2,
                     and the fields derived from its time (median/min/max/mean,
                     achieved rates, efficiency, utilization) recomputed to match.
other_machine.json   the same numbers labelled as another CPU (cross-machine warning).
"""
import json, statistics

SLOW_RUN = "norm/rmsnorm/fused/cpu/fp32/tokens:4096/d_model:1024"
base = json.load(open("tests/data/results_small.json"))

def write(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

slow = json.loads(json.dumps(base))
for run in slow["runs"]:
    if run["id"] != SLOW_RUN:
        continue
    t = run["time_s"]
    t["samples"] = [s * 1.2 for s in t["samples"]]
    t["median"] = statistics.median(t["samples"])
    t["min"], t["max"], t["mean"] = min(t["samples"]), max(t["samples"]), statistics.fmean(t["samples"])
    for key in ("flop_per_s", "byte_per_s", "byte_per_s_minimum"):
        run["achieved"][key] /= 1.2
    for key in ("efficiency", "bandwidth_utilization"):
        if run["roofline"].get(key) is not None:
            run["roofline"][key] /= 1.2
write(slow, "tests/data/compare/slower_rmsnorm.json")

other = json.loads(json.dumps(base))
other["machine"]["cpu_model"] = "AMD EPYC 9B14"
other["machine"]["hostname"] = "bench-amd"
write(other, "tests/data/compare/other_machine.json")
