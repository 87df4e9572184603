#!/usr/bin/env python3
"""Writes the compare fixtures from tests/data/results_small.json (run from the repo root).

slower_rmsnorm.json  the same file with one run planted 20% slower: every repetition
                     sample of norm/rmsnorm/fused/.../tokens:4096/d_model:1024 times 1.2,
                     and the fields derived from its time (median/min/max/mean,
                     achieved rates, efficiency, utilization, the speedups of
                     its comparisons) recomputed to match.
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
    # Derived fields as analysis writes them (results.json's reader checks they agree).
    bytes_used = run["bytes"]["measured"] if run["intensity"]["bytes"] == "measured" else run["bytes"]["model"]
    run["achieved"] = {"flop_per_s": run["flops"]["total"] / t["median"], "byte_per_s": bytes_used / t["median"],
                       "byte_per_s_minimum": run["bytes"]["minimum"] / t["median"]}
    roof = run["roofline"]
    if roof.get("attainable_flop_per_s"):
        roof["efficiency"] = run["achieved"]["flop_per_s"] / roof["attainable_flop_per_s"]
    if roof.get("bandwidth"):
        roof["bandwidth_utilization"] = run["achieved"]["byte_per_s"] / roof["bandwidth"]
runs = {run["id"]: run for run in slow["runs"]}
for c in slow["comparisons"]:
    if SLOW_RUN in (c["baseline"]["run"], c["candidate"]["run"]):
        c["speedup"] = runs[c["baseline"]["run"]]["time_s"]["median"] / runs[c["candidate"]["run"]]["time_s"]["median"]
write(slow, "tests/data/compare/slower_rmsnorm.json")

other = json.loads(json.dumps(base))
other["machine"]["cpu_model"] = "AMD EPYC 9B14"
other["machine"]["hostname"] = "bench-amd"
write(other, "tests/data/compare/other_machine.json")
