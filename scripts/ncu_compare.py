#!/usr/bin/env python3
"""Compare lmroof's CUPTI counters with Nsight Compute's on the same kernels.

    ncu_compare.py BENCH_JSON RUN_ID=NCU_CSV [RUN_ID=NCU_CSV ...]

BENCH_JSON is the Google Benchmark JSON of `lmroof run --backend cuda` (its
cupti_* counters); each NCU_CSV is `ncu --page raw --csv --print-units base` over
one launch of the run's kernel (scripts/device-check.sh makes them). Prints one
row per quantity with the relative difference; exits 1 when a compared quantity
differs by more than 3% (issue #4), 2 on unusable input. DRAM writes are shown
but not judged: lmroof counts the lines the run leaves dirty in L2 (written back
later), ncu only what reached DRAM during the kernel (docs/metrics.md).
"""
import csv
import json
import sys

TOLERANCE = 0.03


def die(message):
    print(f"ncu_compare: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_ncu(path):
    """The first kernel row of an ncu raw-page CSV: metric name -> float."""
    try:
        with open(path, newline="") as f:
            lines = [line for line in f if not line.startswith("==")]
    except OSError as e:
        die(f"{path}: {e.strerror}")
    rows = list(csv.reader(lines))
    # Row 0: column names; row 1: units; then one row per profiled kernel.
    if len(rows) < 3:
        die(f"{path}: no kernel was profiled (see the .log beside it)")
    header, first = rows[0], rows[2]
    values = {}
    for name, text in zip(header, first):
        try:
            values[name] = float(text.replace(",", ""))
        except ValueError:
            values[name] = text
    return values


def ncu_quantities(v):
    get = lambda k: float(v.get(k, 0.0)) if not isinstance(v.get(k, 0.0), str) else 0.0
    p = "smsp__sass_thread_inst_executed_op_"
    # The same formulas as profiler/counter_formulas.cpp (docs/metrics.md).
    cuda_core = (get(p + "fadd_pred_on.sum") + get(p + "fmul_pred_on.sum") + 2 * get(p + "ffma_pred_on.sum")
                 + get(p + "dadd_pred_on.sum") + get(p + "dmul_pred_on.sum") + 2 * get(p + "dfma_pred_on.sum")
                 + 2 * get(p + "hadd_pred_on.sum") + 2 * get(p + "hmul_pred_on.sum") + 4 * get(p + "hfma_pred_on.sum"))
    tensor = sum(get(k) for k in v if isinstance(k, str) and k.startswith("sm__ops_path_tensor_src_"))
    return {
        "kernel": v.get("Kernel Name", "?"),
        "dram_read_bytes": get("dram__bytes_read.sum"),
        "dram_write_bytes": get("dram__bytes_write.sum"),
        "l2_bytes": get("lts__t_bytes.sum"),
        "cuda_core_flops": cuda_core,
        "tensor_flops": tensor,
    }


def lmroof_quantities(bench, run_id):
    for b in bench.get("benchmarks", []):
        name = b.get("run_name", b.get("name", ""))
        if (name == run_id or name.startswith(run_id + "/")) and "cupti_dram_read_bytes" in b:
            return {
                "dram_read_bytes": b.get("cupti_dram_read_bytes"),
                "dram_write_bytes": b.get("cupti_dram_write_bytes"),
                "l2_bytes": b.get("cupti_l2_bytes"),
                "cuda_core_flops": b.get("cupti_flops_cuda_core"),
                "tensor_flops": b.get("cupti_flops_tensor"),
            }
    return None


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    try:
        with open(argv[1]) as f:
            bench = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        die(f"{argv[1]}: {e}")
    judged = ("dram_read_bytes", "l2_bytes", "cuda_core_flops", "tensor_flops")
    worst = 0.0
    print(f"{'run':<58}{'quantity':<18}{'lmroof':>16}{'ncu':>16}{'diff':>8}")
    for arg in argv[2:]:
        run_id, sep, csv_path = arg.partition("=")
        if not sep:
            die(f"'{arg}' is not RUN_ID=NCU_CSV")
        ours = lmroof_quantities(bench, run_id)
        theirs = ncu_quantities(read_ncu(csv_path))
        if ours is None:
            print(f"{run_id[:57]:<58}no cupti_* counters in {argv[1]} (counters unavailable?)")
            continue
        for q in judged + ("dram_write_bytes",):
            a, b = ours.get(q), theirs[q]
            if a is None:
                continue
            if a == 0 and b == 0:
                diff = 0.0
            else:
                diff = (a - b) / max(abs(b), 1.0)
            note = "" if q in judged else "  (not judged)"
            if q in judged and (a > 0 or b > 0):
                worst = max(worst, abs(diff))
            print(f"{run_id[:57]:<58}{q:<18}{a:>16.4g}{b:>16.4g}{100 * diff:>7.1f}%{note}")
        print(f"{'':<58}ncu kernel: {theirs['kernel'][:80]}")
    print(f"largest judged difference: {100 * worst:.2f}% (tolerance {100 * TOLERANCE:.0f}%)")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
