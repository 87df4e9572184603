#!/usr/bin/env bash
# bench.json is the one contract between measuring and analysing: the committed
# examples (docs/examples/*/bench.json, measured before lmroof recorded the pair
# catalogue with the runs) are refused by `analyze` with one line naming the file and
# what is missing; `lmroof migrate` adds this build's catalogue (and says so in the
# context) and changes nothing else; analysing the migrated file gives the committed
# results.json's catalogue and, run by run, the costs it recorded (what bench.json
# carries: the rest follows the analysis of the day). With LMROOF_BASELINE set to an
# lmroof built before the catalogue was recorded (which analysed these files with its
# own registry), the whole results.json must be the same bytes, apart from machine.date.
# Usage: migrate_examples.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof="$1"
src="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_python3
checked=0
claims="$src/claims/cs336-lecture3.yaml"  # one path for both builds: results.json names it
for bench in "$src"/docs/examples/*/bench.json; do
  [ -f "$bench" ] || continue
  name=$(basename "$(dirname "$bench")")
  if grep -q '"lmroof_catalogue"' "$bench"; then
    # Measured with the catalogue recorded: nothing to migrate (one line, exit 2), and it
    # analyses as it is, to the committed results' catalogue.
    "$lmroof" migrate "$bench" -o "$tmp/$name.migrated.json" >/dev/null 2>"$tmp/err"
    { [ $? = 2 ] && grep -q 'already recorded' "$tmp/err"; } || fail "$name: migrate of a file with its catalogue was not refused: $(cat "$tmp/err")"
    "$lmroof" analyze "$bench" -o "$tmp/$name.results.json" --claims "$claims" >/dev/null 2>"$tmp/err" ||
      { fail "$name: analyze: $(cat "$tmp/err")"; continue; }
    python3 - "$(dirname "$bench")/results.json" "$tmp/$name.results.json" <<'PY' || fail "$name: the analysis's catalogue differs from the committed results'"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["catalogue"] == b["catalogue"]
assert [r["id"] for r in a["runs"]] == [r["id"] for r in b["runs"]]
PY
    echo "ok: $name records its catalogue and analyses as it is"
    continue
  fi
  # Refused: one line, exit 2, naming the file, the context key and the way out.
  "$lmroof" analyze "$bench" -o "$tmp/$name.refused.json" --no-claims >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = 2 ] || fail "$name: analyze of a bench.json without a catalogue exited $rc"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "$name: the refusal is not one line: $(cat "$tmp/err")"
  grep -q "$bench: /context/lmroof_catalogue: missing: .*lmroof migrate" "$tmp/err" || fail "$name: refusal: $(cat "$tmp/err")"
  [ -e "$tmp/$name.refused.json" ] && fail "$name: a refused analysis wrote results"
  # Migrated: the catalogue of this build, said so; the original left alone; once only.
  before=$(sha256sum "$bench")
  mkdir -p "$tmp/$name"
  "$lmroof" migrate "$bench" -o "$tmp/$name/bench.json" >/dev/null 2>"$tmp/err" || { fail "$name: migrate: $(cat "$tmp/err")"; continue; }
  [ "$(sha256sum "$bench")" = "$before" ] || fail "$name: migrate changed its input"
  "$lmroof" migrate "$tmp/$name/bench.json" -o "$tmp/$name.twice.json" >/dev/null 2>"$tmp/err"
  { [ $? = 2 ] && grep -q 'already recorded' "$tmp/err"; } || fail "$name: a second migrate was not refused: $(cat "$tmp/err")"
  "$lmroof" analyze "$tmp/$name/bench.json" -o "$tmp/$name/results.json" --claims "$claims" >/dev/null 2>"$tmp/err" ||
    { fail "$name: analyze of the migrated file: $(cat "$tmp/err")"; continue; }
  python3 - "$bench" "$tmp/$name/bench.json" "$(dirname "$bench")/results.json" "$tmp/$name/results.json" <<'PY' ||
import json, math, sys
def load(p):  # Google Benchmark writes NaN and Infinity
    return json.loads(open(p).read(), parse_constant=lambda c: None)
original, migrated, committed, again = (load(p) for p in sys.argv[1:5])
# What pairs declare in the catalogue since the examples were analysed (a pair's
# intensity prediction, its model mapping, its comparisons' less-work controls): this
# build's migrate records them, the committed results predate them.
ADDED_SINCE = {"intensity_predictions", "model_mapping"}
def as_committed_pair(p):
    p = {k: v for k, v in p.items() if k not in ADDED_SINCE}
    if "comparisons" in p:
        p["comparisons"] = [{k: v for k, v in c.items() if k != "less_work_control"} for c in p["comparisons"]]
    return p
def as_committed(catalogue):
    return {**catalogue, "pairs": [as_committed_pair(p) for p in catalogue["pairs"]]}
context = migrated["context"]
assert context.pop("lmroof_catalogue_migrated_by").startswith("lmroof "), "migrate did not say so"
assert as_committed(json.loads(context.pop("lmroof_catalogue"))) == committed["catalogue"], "not the catalogue the examples were analysed with"
assert migrated == original, "migrate changed more than the context"
assert as_committed(again["catalogue"]) == committed["catalogue"], "the analysis did not use the recorded catalogue"
def costs(doc):
    return {r["id"]: (r["shape"], r["flops"]["total"], r["flops"]["matrix"], r["bytes"]["minimum"], r["bytes"]["model"])
            for r in doc["runs"]}
assert costs(again) == costs(committed), "the runs' costs differ from those the examples recorded"
PY
    fail "$name: the migrated file or its analysis"
  if [ -n "${LMROOF_BASELINE:-}" ]; then
    mkdir -p "$tmp/$name/base" && cp "$bench" "$tmp/$name/base/bench.json"
    "$LMROOF_BASELINE" analyze "$tmp/$name/base/bench.json" -o "$tmp/$name/base/results.json" --claims "$claims" >/dev/null 2>&1 ||
      { fail "$name: the baseline's analyze failed"; continue; }
    # Bytes, once the date the analysis ran (the one field that must differ) is the baseline's.
    python3 - "$tmp/$name/base/results.json" "$tmp/$name/results.json" <<'PY'
import re, sys
date = re.compile(r'"date": "[0-9T:-]*Z"')
base, again = (open(p).read() for p in sys.argv[1:3])
open(sys.argv[2] + ".dated", "w").write(date.sub(date.search(base).group(0).replace("\\", "\\\\"), again, count=1))
PY
    cmp -s "$tmp/$name/base/results.json" "$tmp/$name/results.json.dated" ||
      fail "$name: not the baseline's bytes: $(cmp "$tmp/$name/base/results.json" "$tmp/$name/results.json.dated" | head -1)"
  fi
  checked=$((checked + 1))
done

# ===== issue 38, item 22: migrate writes only files analyze accepts ======================
# A bench.json without a catalogue that analyze would refuse for another reason (no
# runs, runs without their costs) is refused by migrate in analyze's words, nothing
# written; one analyze accepts round-trips.
python3 - "$src/tests/data/bench_small.json" "$tmp/i22" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
for key in ("lmroof_catalogue", "lmroof_catalogue_migrated_by"): d["context"].pop(key, None)
def save(name, doc): json.dump(doc, open(os.path.join(sys.argv[2], name), "w"), indent=2)
save("good.json", d)
save("no-runs.json", {**d, "benchmarks": []})
costless = json.loads(json.dumps(d))
for b in costless["benchmarks"]:
    for k in [k for k in b if k in ("flops", "bytes") or k.startswith("lmroof")]: del b[k]
save("no-costs.json", costless)
PY
for bad in no-runs no-costs; do
  "$lmroof" migrate "$tmp/i22/$bad.json" -o "$tmp/i22/$bad.migrated.json" >/dev/null 2>"$tmp/err"; rc=$?
  if [ "$rc" = 2 ] && grep -q "analyze would refuse the migrated file; nothing written" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ] \
     && [ ! -e "$tmp/i22/$bad.migrated.json" ]; then
    echo "ok: migrate refuses $bad.json, which analyze would refuse: $(cut -c1-160 "$tmp/err")"
  else
    fail "migrate of $bad.json: exit $rc, $(cat "$tmp/err"), wrote: $(ls "$tmp/i22" | grep -c "$bad.migrated")"
  fi
done
mkdir "$tmp/i22/good"
if "$lmroof" migrate "$tmp/i22/good.json" -o "$tmp/i22/good/bench.json" >/dev/null 2>"$tmp/err" &&
   "$lmroof" analyze "$tmp/i22/good/bench.json" -o "$tmp/i22/good/results.json" --no-claims >/dev/null 2>>"$tmp/err"; then
  echo "ok: a migrated bench.json round-trips through analyze"
else
  fail "migrate then analyze of good.json: $(cat "$tmp/err")"
fi
# ===== end of issue 38 ===================================================================
[ "$checked" -gt 0 ] || { echo "skipped: no committed example bench.json"; exit 77; }
[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "ok: $checked committed examples refused without a catalogue, migrated (nothing else changed) and re-analysed" \
     "with their catalogue and costs${LMROOF_BASELINE:+, byte for byte as $LMROOF_BASELINE analysed them}"
