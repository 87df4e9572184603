#!/usr/bin/env bash
# The readers' reproducers (issue 9): bad results, bench and claims files get one
# line naming the file and the JSON path (or line) and exit 2, never a crash, a hang
# or a file written outside its folder. Usage: reader_errors.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
src="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3
results="$src/tests/data/results_small.json"

# mutate OUT PYTHON-STATEMENT: results_small.json with one change (d is the document)
mutate() {
  python3 - "$results" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}

# 1. Every field of a run, in turn, changed to the wrong type: report and check exit 2
#    naming that field (or its object, for fields that go in pairs).
python3 - "$results" "$tmp/mut" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
leaves = []
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items(): walk(x, path + [k])
    elif isinstance(v, list):
        for i, x in enumerate(v): walk(x, path + [i])
    else:
        leaves.append(path)
walk(d["runs"][1], ["runs", 1])
with open(os.path.join(sys.argv[2], "list"), "w") as out:
    for n, path in enumerate(leaves):
        doc = json.loads(json.dumps(d))
        obj = doc
        for p in path[:-1]: obj = obj[p]
        old = obj[path[-1]]
        obj[path[-1]] = "x" if not isinstance(old, str) else 7
        name = os.path.join(sys.argv[2], f"m{n}.json")
        json.dump(doc, open(name, "w"))
        pointer = "/" + "/".join(str(p) for p in path)
        out.write(f"{name}\t{pointer}\n")
PY
mutations=0
while IFS=$'\t' read -r file pointer; do
  parent="${pointer%/*}"
  for cmd in report check; do
    if [ "$cmd" = report ]; then args=(report "$file" -o "$tmp/mut/r.html"); else args=(check "$file"); fi
    err=$(timeout 30 "$lmroof" "${args[@]}" 2>&1 >/dev/null); rc=$?
    if [ "$rc" != 2 ] || ! grep -qF -e "$file: $pointer:" -e "$file: $parent:" <<<"$err"; then
      echo "FAIL: $cmd with $pointer mutated: exit $rc: ${err:0:200}"; failures=$((failures + 1))
    fi
  done
  mutations=$((mutations + 1))
done <"$tmp/mut/list"
[ -e "$tmp/mut/r.html" ] && { echo "FAIL: a report was written from a mutated file"; failures=$((failures + 1)); }
echo "ok: $mutations run fields mutated, report and check refuse each with its path"

# 2. Impossible values (issue 9 items 10, 11): negative intensity, negative time,
#    a CUDA run in a CPU file, a pair that is not a string, an empty run list's neighbour.
mutate "$tmp/negI.json" 'd["runs"][0]["intensity"]["value"] = -1'
expect_error 2 "negI.json: /runs/0/intensity/value: must not be negative" -- check "$tmp/negI.json"
mutate "$tmp/negT.json" 'd["runs"][3]["time_s"]["samples"][0] = -0.001'
expect_error 2 "negT.json: /runs/3/time_s/samples/0: must be a positive number" -- report "$tmp/negT.json" -o "$tmp/r.html"
mutate "$tmp/cuda.json" 'd["runs"][2]["backend"] = "cuda"'
expect_error 2 "cuda.json: /runs/2/backend: a cuda run in a cpu results file" -- check "$tmp/cuda.json"
mutate "$tmp/pair3.json" 'd["runs"][0]["pair"] = 3'
expect_error 2 "pair3.json: /runs/0/pair: must be a string \(is 3\)" -- report "$tmp/pair3.json" -o "$tmp/r.html"
mutate "$tmp/dup.json" 'd["runs"].append(d["runs"][0])'
expect_error 2 "dup.json: /runs/19/id: run id .* appears twice" -- check "$tmp/dup.json"

# 2b. A results file with no runs: report and check (--strict too) refuse it naming
#     /runs, as compare does; no page is written.
mutate "$tmp/noruns.json" 'd["runs"] = []; d["comparisons"] = []'
expect_error 2 "noruns.json: /runs: holds no runs: nothing to check" -- check "$tmp/noruns.json"
expect_error 2 "noruns.json: /runs: holds no runs: nothing to check" -- check --strict "$tmp/noruns.json"
expect_error 2 "noruns.json: /runs: holds no runs: nothing to report" -- report "$tmp/noruns.json" -o "$tmp/noruns.html"
expect_error 2 "noruns.json: /runs: holds no runs: nothing to compare" -- compare "$results" "$tmp/noruns.json"
[ -e "$tmp/noruns.html" ] && { echo "FAIL: a report was written for a file with no runs"; failures=$((failures + 1)); }

# 2c. Impossible values in a single field: a value its type allows but the file's
#     own content rules out (a comparison of zero repetitions, a variant or impl the
#     catalogue does not list, a derived field that disagrees with what it is derived
#     from). report and check both exit 2 naming the field.
impossible=(
  '/comparisons/0/repetitions|d["comparisons"][0]["repetitions"] = 0'
  '/comparisons/0/repetitions|d["comparisons"][0]["repetitions"] = 4'
  '/runs/0/impl|d["runs"][0]["impl"] = "nonexistent"'
  '/runs/0/variant|d["runs"][0]["variant"] = "nonexistent"'
  '/runs/1/impl|d["runs"][1]["impl"] = "grouped"'
  '/runs/8/impl|d["runs"][8]["variant"] = "nobias"'
  '/runs/3/intensity/value|d["runs"][3]["intensity"]["value"] *= 1.5'
  '/runs/3/intensity/model|d["runs"][3]["intensity"]["model"] *= 0.9'
  '/runs/8/achieved/flop_per_s|d["runs"][8]["achieved"]["flop_per_s"] *= 2'
  '/runs/8/achieved/byte_per_s|d["runs"][8]["achieved"]["byte_per_s"] *= 2'
  '/runs/2/time_s/min|d["runs"][2]["time_s"]["min"] /= 2'
  '/runs/0/flops/total|d["runs"][0]["flops"]["total"] *= 2'
  '/runs/5/roofline/ridge|d["runs"][5]["roofline"]["ridge"] *= 2'
  '/runs/5/roofline/efficiency|d["runs"][5]["roofline"]["efficiency"] *= 1.2'
  '/runs/0/bound|d["runs"][0]["bound"] = "compute"'
  '/comparisons/0/speedup|d["comparisons"][0]["speedup"] *= 2'
  '/comparisons/2/bytes_ratio|d["comparisons"][2]["bytes_ratio"] *= 3'
)
# This build's catalogue, as analyze writes it into results.json.
"$lmroof" analyze "$src/tests/data/bench_small.json" -o "$tmp/analyzed.json" >/dev/null 2>&1 ||
  { echo "FAIL: analyze of tests/data/bench_small.json"; failures=$((failures + 1)); }
n=0
for entry in "${impossible[@]}"; do
  pointer="${entry%%|*}"
  file="$tmp/impossible$n.json"
  # The file carries its catalogue: the run's variant and impl are checked against it.
  mutate "$file" "d['catalogue'] = json.load(open('$tmp/analyzed.json'))['catalogue']; ${entry#*|}"
  expect_error 2 "impossible$n.json: $pointer: " -- check "$file"
  expect_error 2 "impossible$n.json: $pointer: " -- report "$file" -o "$tmp/impossible.html"
  n=$((n + 1))
done
[ -e "$tmp/impossible.html" ] && { echo "FAIL: a report was written from a file with an impossible value"; failures=$((failures + 1)); }

# 2d. The DRAM probe fields (dram_probe, judged_against_probe, a comparison's
#     machine_drift, a ceiling's best_probed_during_suite), machine.host_pages and machine.blas, in
#     the newest committed example that has them all (best_probed_during_suite is
#     there only when a probe beat the ceilings): wrong types, impossible values and
#     deep nesting, one line, exit 2.
example=$(grep -l '"best_probed_during_suite"' "$src"/docs/examples/*/results.json 2>/dev/null | sort | tail -1)
if [ -n "$example" ] && grep -q '"dram_probe": {' "$example"; then
  probe_cases=(
    'dram_probe|r["dram_probe"] = "fast"'
    'dram_probe/read|r["dram_probe"]["read"] = "x"'
    'dram_probe/read|r["dram_probe"]["read"] = -1'
    'dram_probe/samples|r["dram_probe"]["samples"] = 1.5'
    'judged_against_probe/fraction|r["judged_against_probe"]["fraction"] *= 1.2'
    'judged_against_probe|r["dram_probe"] = None'
    'machine_drift|c["machine_drift"] = "big"'
    'machine_drift|c["machine_drift"] = c["machine_drift"] + 0.5'
    'host_pages|d["machine"]["host_pages"] = 5'
    'blas|d["machine"]["blas"] = 5'
    'blas|d["machine"]["blas"] = ["Haswell"]'
    'best_probed_during_suite|k["best_probed_during_suite"] = "fast"'
    'best_probed_during_suite|k["best_probed_during_suite"] = -1'
    'best_probed_during_suite|k["best_probed_during_suite"] = k["value"] / 2'
    'best_probed_during_suite|d["ceilings"][-1]["best_probed_during_suite"] = 1e9'
  )
  n=0
  for entry in "${probe_cases[@]}"; do
    field="${entry%%|*}"
    python3 - "$example" "$tmp/probe$n.json" "${entry#*|}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = next(x for x in d["runs"] if x.get("judged_against_probe") and x["judged_against_probe"].get("roof"))
c = next(x for x in d["comparisons"] if x.get("machine_drift") is not None)
k = next(x for x in d["ceilings"] if x.get("best_probed_during_suite"))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
    expect_error 2 "probe$n.json: /[a-z]+(/[0-9]+)?/?.*$field" -- check "$tmp/probe$n.json"
    expect_error 2 "probe$n.json: /[a-z]+(/[0-9]+)?/?.*$field" -- report "$tmp/probe$n.json" -o "$tmp/probe.html"
    n=$((n + 1))
  done
  python3 - "$example" "$tmp/probedeep.json" <<'PY'
import sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(text.replace('"dram_probe": {', '"dram_probe": {"x": ' + '[' * 20000 + ']' * 20000 + ', ', 1))
PY
  expect_error 2 "probedeep.json: JSON nested deeper than 64 levels" -- report "$tmp/probedeep.json" -o "$tmp/probe.html"
  python3 - "$example" "$tmp/ceilingdeep.json" <<'PY'
import sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(text.replace('"best_probed_during_suite": ', '"best_probed_during_suite": ' + '[' * 20000 + ']' * 20000 + ', "x": ', 1))
PY
  expect_error 2 "ceilingdeep.json: JSON nested deeper than 64 levels" -- check "$tmp/ceilingdeep.json"
  [ -e "$tmp/probe.html" ] && { echo "FAIL: a report was written from a file with a bad probe field"; failures=$((failures + 1)); }
else
  echo "FAIL: no committed example with dram_probe to mutate"; failures=$((failures + 1))
fi

# 3. Claims files (item 10): a misspelled metric, min_points beyond int, deep nesting.
cat >"$tmp/modle.yaml" <<'Y'
claims:
  - id: typo
    statement: s
    source: t
    check: {kind: ratio, candidate: {pair: norm, variant: rmsnorm, impl: fused},
            baseline: {pair: norm, variant: layernorm, impl: fused}, metric: bytes.modle, range: [0.5, 1]}
Y
expect_error 2 "modle.yaml:6: unknown metric 'bytes.modle'" -- check "$tmp/modle.yaml" "$results"
cat >"$tmp/minpoints.yaml" <<'Y'
claims:
  - id: big
    statement: s
    source: t
    check: {kind: scaling, run: {pair: decode}, metric: time, dimension: context, exponent: 1, min_points: 2147483648}
Y
expect_error 2 "minpoints.yaml:5: 'min_points' must be between 2 and 1000000" -- check "$tmp/minpoints.yaml" "$results"
python3 -c "print('claims: ' + '[' * 30000 + ']' * 30000)" >"$tmp/deep.yaml"
expect_error 2 "deep.yaml:1: nested deeper than 64 levels" -- check "$tmp/deep.yaml" "$results"

# 4. Nesting depth (item 5) in results.json and bench.json.
python3 - "$results" "$tmp/deep.json" <<'PY'
import sys
text = open(sys.argv[1]).read()
deep = '[' * 20000 + ']' * 20000
open(sys.argv[2], "w").write(text.replace('"machine": {', '"machine": {"x": ' + deep + ', ', 1))
PY
expect_error 2 "deep.json: JSON nested deeper than 64 levels" -- report "$tmp/deep.json" -o "$tmp/r.html"
python3 -c "
print('{\"context\": {\"x\": ' + '[' * 20000 + ']' * 20000 + '}, \"benchmarks\": []}')" >"$tmp/deepbench.json"
expect_error 2 "deepbench.json: JSON nested deeper than 64 levels" -- analyze "$tmp/deepbench.json" -o "$tmp/x.json"

# 5. Size (item 14): a 100 MB hostname is refused by the length limit, quickly.
python3 - "$results" "$tmp/host.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["hostname"] = "h" * 100_000_000
json.dump(d, open(sys.argv[2], "w"))
PY
expect_error 2 "host.json: /machine/hostname: a string of 100000000 characters is longer than the limit" -- report "$tmp/host.json" -o "$tmp/r.html"

# 6. Pair names from data (items 4, 9): never a path, never a CSS id.
for name in '/../../../tmp/lmroof-owned/x' 'moe(top2)' 'moe.v2'; do
  python3 - "$results" "$tmp/named.json" "$name" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
name = sys.argv[3]
chart = "pair-" + re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", name.lower())).strip("-")
d["runs"] = [r for r in d["runs"] if r["pair"] == "norm"]
combos = [{"variant": v, "impl": i} for v, i in sorted({(r["variant"], r["impl"]) for r in d["runs"]})]
d["catalogue"] = {"pairs": [{"name": name, "title": "Pair " + name, "chart": chart, "combos": combos}],
                  "dimension_order": ["tokens", "d_model"], "charts": ["roofline", chart]}
for r in d["runs"]: r["pair"] = name
d["comparisons"] = []
d["claims"] = []
json.dump(d, open(sys.argv[2], "w"))
PY
  rm -rf "$tmp/rep" /tmp/lmroof-owned
  mkdir -p "$tmp/rep"  # outputs never create folders
  if "$lmroof" report "$tmp/named.json" -o "$tmp/rep/report.html" >/dev/null 2>&1 && [ ! -e /tmp/lmroof-owned ] &&
     [ "$(find "$tmp/rep" -name '*.vl.json' | grep -c -E '/report\.[a-z0-9-]+\.vl\.json$')" = "$(find "$tmp/rep" -name '*.vl.json' | wc -l)" ] &&
     ! grep -qF "id=\"chart-$name\"" "$tmp/rep/report.html"; then
    echo "ok: pair '$name' charted as $(cd "$tmp/rep" && ls *.vl.json | tr '\n' ' ')"
  else
    echo "FAIL: pair '$name' escaped into a path or an id"; failures=$((failures + 1))
  fi
done

# 6b. The page with such a pair renders in a browser: every chart drawn, no script error.
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  python3 - "$results" "$tmp/css.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {"norm": "moe(top2)", "bias": "moe.v2"}
combos = lambda old: [{"variant": v, "impl": i} for v, i in sorted({(r["variant"], r["impl"]) for r in d["runs"] if r["pair"] == old})]
d["catalogue"] = {"pairs": [{"name": new, "title": "Pair " + new, "chart": "pair-moe-" + ("top2" if "(" in new else "v2"),
                             "combos": combos(old)} for old, new in names.items()],
                  "dimension_order": [], "charts": ["roofline", "pair-moe-top2", "pair-moe-v2"]}
d["runs"] = [r for r in d["runs"] if r["pair"] in names]
for r in d["runs"]: r["pair"] = names[r["pair"]]
d["comparisons"] = []
d["claims"] = []
json.dump(d, open(sys.argv[2], "w"))
PY
  if LMROOF_REPORT_FIXTURE="$tmp/css.json" LMROOF_REPORT_CHARTS="roofline pair-moe-top2 pair-moe-v2" \
       bash "$src/tests/e2e/report_renders.sh" "$lmroof" "$src" >"$tmp/css.log" 2>&1; then
    echo "ok: pairs 'moe(top2)' and 'moe.v2' render in Chromium"
  else
    echo "FAIL: a report with pairs 'moe(top2)', 'moe.v2' does not render: $(tail -3 "$tmp/css.log")"; failures=$((failures + 1))
  fi
fi

# 7. Bench files (item 11): negative times and counters, zero-time ceilings.
printf '{"benchmarks": [{"name": "ceiling/cpu/copy", "real_time": 0, "time_unit": "ms", "ceiling_bytes": 1e8}]}' >"$tmp/zero.json"
expect_error 2 "zero.json: /benchmarks/0/real_time: must be a positive number" -- analyze "$tmp/zero.json" -o "$tmp/x.json"
printf '{"benchmarks": [{"name": "ceiling/cpu/copy", "real_time": 5, "time_unit": "ms", "ceiling_bytes": -1}]}' >"$tmp/neg.json"
expect_error 2 "neg.json: /benchmarks/0/ceiling_bytes: must not be negative" -- analyze "$tmp/neg.json" -o "$tmp/x.json"
# a cache ceiling's thread count (ceiling_threads): wrong type, impossible values, deep nesting
threads_case() {  # threads_case NAME VALUE PATTERN
  printf '{"benchmarks": [{"name": "ceiling/cpu/l2_read", "real_time": 5, "time_unit": "ms", "ceiling_bytes": 1e9, "cache_bytes": 2097152, "ceiling_threads": %s}]}' "$2" >"$tmp/$1.json"
  expect_error 2 "$1.json: $3" -- analyze "$tmp/$1.json" -o "$tmp/x.json"
}
threads_case threadsword '"two"' "/benchmarks/0/ceiling_threads: must be a number"
threads_case threadshalf 1.5 "/benchmarks/0/ceiling_threads: must be a whole number of threads"
threads_case threadshuge 1e30 "/benchmarks/0/ceiling_threads: must be a whole number of threads, at most 1048576"
threads_case threadszero 0 "/benchmarks/0/ceiling_threads: must be positive"
threads_case threadsneg -1 "/benchmarks/0/ceiling_threads: must not be negative"
threads_case threadsdeep "$(printf '[%.0s' $(seq 20000))$(printf ']%.0s' $(seq 20000))" "JSON nested deeper than 64 levels"
# streamed-out bytes (docs/cost-model.md#which-roof-a-run-is-judged-against) cannot exceed the bytes written
bench_example=$(ls -d "$src"/docs/examples/*cpu*/bench.json 2>/dev/null | sort | tail -1)
if [ -n "$bench_example" ]; then
  example_bench "$bench_example" "$tmp/example-bench.json" ||
    { echo "FAIL: migrate of $bench_example"; failures=$((failures + 1)); bench_example=""; }
fi
if [ -n "$bench_example" ]; then
  python3 - "$tmp/example-bench.json" "$tmp/streamed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
i = next(i for i, b in enumerate(d["benchmarks"]) if b["name"].startswith("norm/rmsnorm/fused/"))
for b in d["benchmarks"]:
    if b["name"].startswith("norm/rmsnorm/fused/"): b["bytes_streamed_out"] = 2 * b["bytes_written"]
json.dump(d, open(sys.argv[2], "w"))
open(sys.argv[2] + ".index", "w").write(str(i))
PY
  i=$(cat "$tmp/streamed.json.index")
  expect_error 2 "streamed.json: /benchmarks/$i/bytes_streamed_out: 268435456 exceeds bytes_written \\(134217728\\)" -- analyze "$tmp/streamed.json" -o "$tmp/x.json"
fi
[ -e "$tmp/x.json" ] && { echo "FAIL: analyze wrote results from bad input"; failures=$((failures + 1)); }


# Issue 26, defect 5: every reader gets a FIFO and /dev/zero, refused at once (timeout:
# a hang fails instead of blocking), one line, exit 2.
mkfifo "$tmp/fifo"
bench="$src/tests/data/bench_small.json"
cp "$bench" "$tmp/bk.json"; mkfifo "$tmp/bk.kernels.json"
for bad in "$tmp/fifo" /dev/zero; do
  what=$([ "$bad" = /dev/zero ] && echo "character device" || echo "named pipe")
  expect_error 2 "$bad: is a $what" -- report "$bad" -o "$tmp/r.html"
  expect_error 2 "$bad: is a $what" -- check "$bad"
  expect_error 2 "$bad: is a $what" -- check "$bad" "$results"
  expect_error 2 "$bad: is a $what" -- compare "$bad" "$results"
  expect_error 2 "$bad: is a $what" -- compare "$results" "$bad"
  expect_error 2 "$bad: is a $what" -- merge "$results" "$bad" -o "$tmp/m.html"
  expect_error 2 "$bad: is a $what" -- analyze "$bad" -o "$tmp/x.json"
  expect_error 2 "$bad: is a $what" -- analyze "$bench" -o "$tmp/x.json" --claims "$bad"
done
expect_error 2 "bk.kernels.json: is a named pipe" -- analyze "$tmp/bk.json" -o "$tmp/x.json"

# Defect 4: invalid UTF-8 in a claims file is refused when it is read, naming the line.
printf 'claims:\n  - id: x\n    statement: "caf\xff"\n' >"$tmp/utf8.yaml"
expect_error 2 "utf8.yaml:3: invalid UTF-8 \(byte 0xFF\)" -- analyze "$bench" -o "$tmp/x.json" --claims "$tmp/utf8.yaml"
expect_error 2 "utf8.yaml:3: invalid UTF-8" -- check "$tmp/utf8.yaml" "$results"

# Defect 6: analyze never writes results that check and report refuse; it names the field.
bench_case() {  # bench_case NAME PYTHON (b: the first norm repetition; d: the document)
  python3 - "$bench" "$tmp/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = next(x for x in d["benchmarks"] if x["name"].startswith("norm/") and x.get("run_type") == "iteration")
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
bench_case realtime 'b["real_time"] = 1e308'
expect_error 2 "realtime.json: .*/runs/0/time_s/cv: must be a finite number" -- analyze "$tmp/realtime.json" -o "$tmp/x.json"
bench_case cuptiflops 'b["cupti_flops"] = 1e308'
expect_error 2 "cuptiflops.json: .*/runs/0/achieved/flop_per_s: must be a finite number" -- analyze "$tmp/cuptiflops.json" -o "$tmp/x.json"
bench_case tokens0 'd["benchmarks"] = json.loads(json.dumps(d["benchmarks"]).replace("tokens:512", "tokens:0"))'
expect_error 2 "tokens0.json: .*/runs/0/shape/tokens: must be an integer" -- analyze "$tmp/tokens0.json" -o "$tmp/x.json"
bench_case tokensneg 'd["benchmarks"] = json.loads(json.dumps(d["benchmarks"]).replace("tokens:512", "tokens:-1"))'
expect_error 2 "tokensneg.json: " -- analyze "$tmp/tokensneg.json" -o "$tmp/x.json"
[ -e "$tmp/x.json" ] && { echo "FAIL: analyze wrote results the readers refuse"; failures=$((failures + 1)); }

# Defect 13: NUL and garbage after valid JSON, and a key given twice, are refused.
{ cat "$results"; printf '\0garbage'; } >"$tmp/nul.json"
expect_error 2 "nul.json:[0-9]+:[0-9]+: malformed JSON: a NUL byte" -- check "$tmp/nul.json"
python3 - "$results" "$tmp/twice.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(text.replace('"schema":', '"schema": "x", "schema":', 1))
PY
expect_error 2 "twice.json: malformed JSON: the key \"schema\" is given twice" -- report "$tmp/twice.json" -o "$tmp/r.html"
printf '{"hidden_size": 64, "hidden_size": 128}' >"$tmp/cfgtwice.json"
expect_error 2 "cfgtwice.json: the key \"hidden_size\" is given twice" -- list --model "$tmp/cfgtwice.json"
printf '{"hidden_size": 64}\0garbage' >"$tmp/cfgnul.json"
expect_error 2 "cfgnul.json: not valid JSON: a NUL byte" -- list --model "$tmp/cfgnul.json"

# Defect 8: duplicate ceilings, comparisons and claim verdicts are refused, as duplicate run ids are.
mutate "$tmp/dupceil.json" 'c = json.loads(json.dumps(d["ceilings"][0])); c["value"] *= 1000; d["ceilings"].append(c)'
expect_error 2 "dupceil.json: /ceilings/[0-9]+/name: ceiling '.*' appears twice" -- check "$tmp/dupceil.json"
mutate "$tmp/dupcmp.json" 'd["comparisons"].append(d["comparisons"][0])'
expect_error 2 "dupcmp.json: /comparisons/[0-9]+: the comparison of .* appears twice" -- report "$tmp/dupcmp.json" -o "$tmp/r.html"
"$lmroof" analyze "$bench" -o "$tmp/withclaims.json" >/dev/null 2>&1
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["claims"].append(d["claims"][0]); json.dump(d, open(sys.argv[2], "w"))' \
  "$tmp/withclaims.json" "$tmp/dupclaim.json"
expect_error 2 "dupclaim.json: /claims/[0-9]+/id: claim id '.*' appears twice" -- report "$tmp/dupclaim.json" -o "$tmp/r.html"

# Defect 13: control and direction characters in names printed on a terminal are refused;
# markdown output escapes what forges would render as HTML.
mutate "$tmp/esc.json" 'd["machine"]["hostname"] = "host\u001b[2Jx"'
expect_error 2 "esc.json: /machine/hostname: holds U\+001B" -- compare "$results" "$tmp/esc.json"
mutate "$tmp/rlo.json" 'd["machine"]["cpu_model"] = "cpu\u202egnp.exe"'
expect_error 2 "rlo.json: /machine/cpu_model: holds U\+202E" -- check "$tmp/rlo.json"
expect_error 2 "--label 1: holds U\+000D" -- merge "$results" --label "$(printf 'lab\r')" -o "$tmp/m.html"
mutate "$tmp/img.json" 'd["machine"]["cpu_model"] = "<img src=x onerror=alert(1)>"'
for cmd in "check --format markdown $tmp/img.json" "compare --format markdown $results $tmp/img.json"; do
  # shellcheck disable=SC2086
  out=$("$lmroof" $cmd 2>/dev/null)
  if grep -q "<img" <<<"$out"; then echo "FAIL: $cmd emits raw <img"; failures=$((failures + 1)); else echo "ok: $cmd escapes HTML"; fi
done

# ---- issue 38: ceilings against their runs and physics, noise floors, tolerances, aliases
# Item 9: a ceiling's value is the best of its best_before/best_after (copy_nt raised 100x
# above both), within a physical range (5e-324, 1e308), and the value every run that
# names it was placed against (copy raised 100x in a file without best_*).
example38=$(ls "$src"/docs/examples/*/results.json 2>/dev/null | sort | tail -1)
python3 - "$example38" "$tmp" <<'PY'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
def variant(name, edit):
    d = json.load(open(src)); edit(d); json.dump(d, open(f"{tmp}/{name}.json", "w"))
def ceiling(d, name): return next(c for c in d["ceilings"] if c["name"] == name)
def raise_nt(d): ceiling(d, "copy_nt")["value"] *= 100
variant("copy_nt100", raise_nt)
def tiny(d): ceiling(d, "sgemm")["value"] = 5e-324
variant("sgemm_denormal", tiny)
def huge(d): ceiling(d, "sgemm")["value"] = 1e308
variant("sgemm_huge", huge)
def launch(d):
    for c in d["ceilings"]:
        if c["kind"] == "latency": c["value"] = 1e-300
variant("launch_tiny", launch)
# the index of each, for the expected pointer
d = json.load(open(src))
for name in ("copy_nt", "sgemm"):
    open(f"{tmp}/{name}.index", "w").write(str(next(i for i, c in enumerate(d["ceilings"]) if c["name"] == name)))
PY
i_nt=$(cat "$tmp/copy_nt.index"); i_sgemm=$(cat "$tmp/sgemm.index")
for cmd in check report compare merge predict; do
  case $cmd in
    check) args=(check "$tmp/copy_nt100.json");;
    report) args=(report "$tmp/copy_nt100.json" -o "$tmp/r38.html");;
    compare) args=(compare "$example38" "$tmp/copy_nt100.json");;
    merge) args=(merge "$example38" "$tmp/copy_nt100.json" -o "$tmp/m38.html");;
    predict) args=(predict --model llama3-8b --dtype fp32 --device "$tmp/copy_nt100.json");;
  esac
  expect_error 2 "copy_nt100.json: /ceilings/$i_nt/value: .* is above both best_before_suite .* and best_after_suite" -- "${args[@]}"
done
expect_error 2 "sgemm_denormal.json: /ceilings/$i_sgemm/value: 4.94066e-324 FLOP/s is outside the physical range of a compute ceiling" -- check "$tmp/sgemm_denormal.json"
expect_error 2 "sgemm_huge.json: /ceilings/$i_sgemm/value: 1e\+308 FLOP/s is outside the physical range" -- report "$tmp/sgemm_huge.json" -o "$tmp/r38.html"
grep -q '"kind": "latency"' "$example38" &&
  expect_error 2 "launch_tiny.json: /ceilings/[0-9]+/value: 1e-300 s is outside the physical range of a latency ceiling" -- check "$tmp/launch_tiny.json"
sed 's/"value": 5e-324/"value": NaN/' "$tmp/sgemm_denormal.json" > "$tmp/sgemm_nan.json"
expect_error 2 "sgemm_nan.json" -- check "$tmp/sgemm_nan.json"
mutate "$tmp/copy100.json" 'd["ceilings"][0]["value"] *= 100'
expect_error 2 "copy100.json: /runs/0/roofline/bandwidth: is 3.04e\+10 but the value of ceiling 'copy' is 3.04e\+12" -- check "$tmp/copy100.json"
[ -e "$tmp/r38.html" ] || [ -e "$tmp/m38.html" ] && { echo "FAIL: a page was written from a raised ceiling"; failures=$((failures + 1)); }

# Item 12: a noise floor is its run's pair's, and that pair is the catalogue's.
floor38='{"pair": "PAIR", "run": "norm/layernorm/unfused/cpu/fp32/tokens:4096/d_model:1024", "paired": {"rounds": 10, "speedup": 1.0, "low": 0.98, "high": 1.03}, "floor": 0.03}'
mutate "$tmp/floor_norm.json" "d['noise_floors'] = [json.loads('${floor38/PAIR/norm}')]"
"$lmroof" check "$tmp/floor_norm.json" >/dev/null 2>&1; [ $? != 2 ] && echo "ok: a floor for pair norm is accepted" ||
  { echo "FAIL: a valid noise floor is refused: $("$lmroof" check "$tmp/floor_norm.json" 2>&1 | tail -1)"; failures=$((failures + 1)); }
mutate "$tmp/floor_zzz.json" "d['noise_floors'] = [json.loads('${floor38/PAIR/zzz}')]"
expect_error 2 "floor_zzz.json: /noise_floors/0/pair: is 'zzz' but its run 'norm/layernorm/unfused/.*' is of pair 'norm'" -- check "$tmp/floor_zzz.json"
expect_error 2 "floor_zzz.json: /noise_floors/0/pair: is 'zzz'" -- compare "$results" "$tmp/floor_zzz.json"

# Also seen: validated.tolerance within the range of a relative-error tolerance.
validated38='{"error": 1e-7, "tolerance": TOL, "shapes": 3, "shape": {"tokens": 7, "d_model": 33}}'
mutate "$tmp/tol_ok.json" "d['runs'][0]['validated'] = json.loads('${validated38/TOL/1e-05}')"
"$lmroof" check "$tmp/tol_ok.json" >/dev/null 2>&1; [ $? != 2 ] && echo "ok: tolerance 1e-5 is accepted" ||
  { echo "FAIL: tolerance 1e-5 refused: $("$lmroof" check "$tmp/tol_ok.json" 2>&1 | tail -1)"; failures=$((failures + 1)); }
for tol in 1e308 5e-324 2; do
  mutate "$tmp/tol.json" "d['runs'][0]['validated'] = json.loads('${validated38/TOL/$tol}')"
  expect_error 2 "tol.json: /runs/0/validated/tolerance: .* is outside the range of a relative-error tolerance" -- check "$tmp/tol.json"
done

# Item 8: YAML aliases are refused at their line (a small file of aliases once expanded to GBs).
python3 - "$tmp/alias.yaml" <<'PY'
import sys
lines = ["a0: &a0 \"" + "x" * 65536 + "\""]
for i in range(1, 12):
    lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 8) + "]")
lines.append("claims:")
lines.append("  - id: boom")
lines.append("    statement: *a11")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
start=$(date +%s)
expect_error 2 "alias.yaml:2: a YAML alias \(\*name\): claims files refuse aliases" -- check "$tmp/alias.yaml" "$results"
expect_error 2 "alias.yaml:2: a YAML alias" -- analyze "$src/tests/data/bench_small.json" -o "$tmp/x.json" --claims "$tmp/alias.yaml"
[ $(( $(date +%s) - start )) -le 10 ] || { echo "FAIL: refusing the aliases took over 10 s"; failures=$((failures + 1)); }
printf 'claims:\n  - id: &i one\n    statement: s\n' > "$tmp/anchor.yaml"
err=$("$lmroof" check "$tmp/anchor.yaml" "$results" 2>&1 >/dev/null)
grep -q "alias" <<<"$err" && { echo "FAIL: an anchor without an alias is refused as one: $err"; failures=$((failures + 1)); } ||
  echo "ok: an anchor alone is not an alias"
# ---- end issue 38 --------------------------------------------------------------------

# ---- issue 38 item 11: analyze never drops paired rounds silently ----------------------
# tests/data/bench_paired.json: `run --quick --suite norm,bias` (aggregates dropped), with
# paired rounds and each pair's A/A control. Rounds naming an unknown run, a pair the
# catalogue does not compare, two pairs; a missing A/A control; bad round, order and
# extra counters: each refused naming the file and entry. With a --benchmark_filter
# recorded, a missing run or control is a choice, and accepted.
paired_bench="$src/tests/data/bench_paired.json"
"$lmroof" analyze "$paired_bench" -o "$tmp/paired-ok.json" >/dev/null 2>&1 &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["noise_floors"] and all(c["paired"] for c in d["comparisons"])' "$tmp/paired-ok.json" &&
  echo "ok: bench_paired.json analyzes, every comparison paired, with noise floors" ||
  { echo "FAIL: bench_paired.json does not analyze with its paired rounds"; failures=$((failures + 1)); }
paired_case() {  # paired_case NAME PYTHON: b the benchmarks, rn(x) x's run name, ren(x, old, new) renames
  python3 - "$paired_bench" "$tmp/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); b = d["benchmarks"]
def ren(x, old, new):
    x["name"] = x["name"].replace(old, new); x["run_name"] = x["run_name"].replace(old, new)
def first(prefix): return next(x for x in b if x["run_name"].startswith(prefix))
LUF = "norm/layernorm/unfused/cpu/fp32/tokens:512/d_model:1024"
RF = "norm/rmsnorm/fused/cpu/fp32/tokens:512/d_model:1024"
RUF = "norm/rmsnorm/unfused/cpu/fp32/tokens:512/d_model:1024"
BNF = "bias/nobias/fused/cpu/fp32/tokens:64/in_features:256/out_features:256"
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
paired_case unknown 'ren(first("paired/" + RUF + "|" + RF), RUF + "|", RUF.replace("512", "999") + "|")'
expect_error 2 "unknown.json: /benchmarks/[0-9]+/name: paired rounds name run 'norm/rmsnorm/unfused/cpu/fp32/tokens:999/d_model:1024', which is not a run of this file" -- analyze "$tmp/unknown.json" -o "$tmp/x.json"
paired_case uncompared '[ren(x, RUF + "|" + RF, RF + "|" + LUF) for x in b if x["run_name"].startswith("paired/" + RUF + "|" + RF)]'
expect_error 2 "uncompared.json: /benchmarks/[0-9]+/name: paired rounds of 'norm/layernorm/unfused/.*' against 'norm/rmsnorm/fused/.*', which the catalogue of pair 'norm' does not compare" -- analyze "$tmp/uncompared.json" -o "$tmp/x.json"
paired_case twopairs '[ren(x, RUF + "|" + RF, RUF + "|" + BNF) for x in b if x["run_name"].startswith("paired/" + RUF + "|" + RF)]'
expect_error 2 "twopairs.json: /benchmarks/[0-9]+/name: paired rounds of two pairs: 'norm/rmsnorm/unfused/.*' is of pair 'norm', 'bias/nobias/fused/.*' of pair 'bias'" -- analyze "$tmp/twopairs.json" -o "$tmp/x.json"
noaa='d["benchmarks"] = [x for x in b if not x["run_name"].startswith("paired/" + LUF + "|" + LUF)]'
paired_case noaa "$noaa"
expect_error 2 "noaa.json: /benchmarks: pair 'norm' has paired rounds but no A/A control" -- analyze "$tmp/noaa.json" -o "$tmp/x.json"
paired_case roundhalf 'first("paired/" + RUF)["paired_round"] = 1.5'
expect_error 2 "roundhalf.json: /benchmarks/[0-9]+/paired_round: must be a whole round number" -- analyze "$tmp/roundhalf.json" -o "$tmp/x.json"
paired_case roundhuge 'first("paired/" + RUF)["paired_round"] = 1e300'
expect_error 2 "roundhuge.json: /benchmarks/[0-9]+/paired_round: must be a whole round number below 2\^30" -- analyze "$tmp/roundhuge.json" -o "$tmp/x.json"
paired_case order 'first("paired/" + RUF)["paired_order"] = 1'
expect_error 2 "order.json: /benchmarks/[0-9]+/paired_order: is 1 but round 0 runs the baseline first" -- analyze "$tmp/order.json" -o "$tmp/x.json"
paired_case noorder 'del first("paired/" + RUF)["paired_order"]'
expect_error 2 "noorder.json: /benchmarks/[0-9]+: a paired benchmark's repetition lacks counter 'paired_order'" -- analyze "$tmp/noorder.json" -o "$tmp/x.json"
paired_case round2 'xs = [x for x in b if x["run_name"].startswith("paired/" + RUF + "|" + RF)]; xs[2]["paired_round"] = xs[0]["paired_round"]; xs[2]["paired_order"] = xs[0]["paired_order"]'
expect_error 2 "round2.json: /benchmarks/[0-9]+/paired_round: round 0 of .* is given twice" -- analyze "$tmp/round2.json" -o "$tmp/x.json"
paired_case extra 'first("paired/" + RUF)["paired_extra"] = 7'
expect_error 2 "extra.json: /benchmarks/[0-9]+/paired_extra: must be 1 when present" -- analyze "$tmp/extra.json" -o "$tmp/x.json"
[ -e "$tmp/x.json" ] && { echo "FAIL: analyze wrote results from bad paired rounds"; failures=$((failures + 1)); }
paired_case filtered "$noaa; d['context']['lmroof_benchmark_filter'] = '--benchmark_filter=layernorm'"
"$lmroof" analyze "$tmp/filtered.json" -o "$tmp/filtered-results.json" >/dev/null 2>&1 &&
  echo "ok: a missing A/A control under a recorded --benchmark_filter is accepted" ||
  { echo "FAIL: a filtered run's missing A/A control is refused: $("$lmroof" analyze "$tmp/filtered.json" -o "$tmp/f.json" 2>&1 | tail -1)"; failures=$((failures + 1)); }
# ---- end issue 38 item 11 --------------------------------------------------------------

# ---- issue 34: a second sitting's rounds stretch the interval to cover each sitting -----
# The rounds of RUF vs RF again as a second sitting (paired_extra 1, numbered on), with the
# candidate 25% slower: the comparison lists both sittings' speedups, its interval covers
# both, and `analyze` of it checks; a results.json whose sittings lie outside the
# interval, or that lists sittings without extra rounds, is refused.
paired_case sittings 'xs = [x for x in b if x["run_name"].startswith("paired/" + RUF + "|" + RF)]
import copy
for i, x in enumerate([copy.deepcopy(x) for x in xs]):
    x["paired_round"] = len(xs) + i; x["paired_order"] = (len(xs) + i) % 2; x["paired_extra"] = 1
    x["paired_candidate_s"] *= 1.25; b.append(x)'
if "$lmroof" analyze "$tmp/sittings.json" -o "$tmp/sittings-results.json" >/dev/null 2>"$tmp/sittings.err"; then
  python3 - "$tmp/sittings-results.json" <<'PY' && echo "ok: two sittings listed, the interval covers both" ||
import json, sys
d = json.load(open(sys.argv[1]))
c = next(c for c in d["comparisons"] if c["baseline"]["run"].startswith("norm/rmsnorm/unfused") and c["candidate"]["run"].startswith("norm/rmsnorm/fused"))
p = c["paired"]
s1, s2 = p["sittings"]
assert p["extra_rounds"] * 2 == p["rounds"], p
assert abs(s1 / s2 - 1.25) < 0.02, (s1, s2)
assert p["low"] <= min(s1, s2) and max(s1, s2) <= p["high"], p
others = [c["paired"] for c in d["comparisons"] if c is not None and c["paired"] and "sittings" in c["paired"]]
assert len(others) == 1, others
PY
    { echo "FAIL: the second sitting's rounds are not listed or not covered"; failures=$((failures + 1)); }
  python3 - "$tmp/sittings-results.json" "$tmp/sittings-outside.json" "$tmp/sittings-one.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = next(c for c in d["comparisons"] if c["paired"] and "sittings" in c["paired"])
c["paired"]["sittings"][1] = c["paired"]["high"] * 1.5
json.dump(d, open(sys.argv[2], "w"))
c["paired"]["sittings"][1] = c["paired"]["speedup"]; extra = c["paired"].pop("extra_rounds")
json.dump(d, open(sys.argv[3], "w"))
c["paired"]["extra_rounds"] = extra
base = sys.argv[3].rsplit("-", 1)[0]
for name, value in (("text", "fast"), ("negative", [1.0, -2]), ("three", [1.0, 1.0, 1.0]), ("object", {"a": 1}),
                    ("deep", [[[[1.0]]], 1.0])):
    c["paired"]["sittings"] = value
    json.dump(d, open(f"{base}-{name}.json", "w"))
PY
  expect_error 2 "sittings-outside.json: /comparisons/[0-9]+/paired/sittings/1: .* lies outside the interval" -- check "$tmp/sittings-outside.json"
  expect_error 2 "sittings-one.json: /comparisons/[0-9]+/paired/sittings: is given only when extra_rounds is some but not all of rounds" -- check "$tmp/sittings-one.json"
  expect_error 2 "sittings-text.json: /comparisons/[0-9]+/paired/sittings: " -- check "$tmp/sittings-text.json"
  expect_error 2 "sittings-negative.json: /comparisons/[0-9]+/paired/sittings/1: " -- check "$tmp/sittings-negative.json"
  expect_error 2 "sittings-three.json: /comparisons/[0-9]+/paired/sittings: must list two speedups, one per sitting \(lists 3\)" -- check "$tmp/sittings-three.json"
  expect_error 2 "sittings-object.json: /comparisons/[0-9]+/paired/sittings: " -- check "$tmp/sittings-object.json"
  expect_error 2 "sittings-deep.json: /comparisons/[0-9]+/paired/sittings/0: " -- check "$tmp/sittings-deep.json"
else
  echo "FAIL: a bench.json with two sittings does not analyze: $(tail -1 "$tmp/sittings.err")"; failures=$((failures + 1))
fi
# ---- end issue 34 sittings -------------------------------------------------------------

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
