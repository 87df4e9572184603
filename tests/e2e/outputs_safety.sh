#!/usr/bin/env bash
# Outputs nothing corrupts (issue #9): `-o` replaces only a regular file and never
# the command's input, and is checked before any work; a run's --out holds one
# run's complete set or the previous one; a second run into the same --out fails at
# once; a failed, refused or interrupted run leaves the previous set byte-identical
# and no temporary or staging files behind.
# Usage: outputs_safety.sh LMROOF SOURCE_DIR
set -uo pipefail
lmroof=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
bg_pids=()
cleanup() {
  for p in "${bg_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  mountpoint -q "$tmp/small" 2>/dev/null && umount "$tmp/small"
  mountpoint -q "$tmp/i38/full" 2>/dev/null && umount "$tmp/i38/full"
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
out="$tmp/out"
# Short runs: one pair, small shapes, little time (CI has 2 cores).
quick=(run --quick --backend cpu --suite norm --min-time 0.002 --repetitions 2 --no-claims)

# The visible files of a folder with their checksums, and its hidden entries.
snapshot() { (cd "$1" && sha256sum -- * 2>/dev/null; ls -A | grep '^\.' || true); }
# Nothing but the set and lmroof's two bookkeeping files (.lmroof.lock, .lmroof-set).
no_leftovers() {
  local extra
  extra=$(ls -A "$1" | grep -Ev '^(bench\.json|bench\.kernels\.json|results\.json|report\.html|report\..*\.vl\.json|report\.[a-z]+\.csv|\.lmroof\.lock|\.lmroof-set)$')
  [ -z "$extra" ] || fail "$2: left behind in $1: $(echo $extra)"
}

# expect_error EXPECTED_EXIT PATTERN -- ARGS...: one short line on stderr, that exit code
expect_error() {
  local want="$1" pattern="$2"; shift 3
  local err rc
  err=$(timeout 120 "$lmroof" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != "$want" ]; then fail "lmroof $* exited $rc, expected $want; stderr: $err"; return 1; fi
  if ! grep -qE -- "$pattern" <<<"$err"; then fail "lmroof $*: stderr lacks /$pattern/: $err"; return 1; fi
  # progress lines (backend, run count, Google Benchmark's own note on a filter) are not the error
  if [ "$(grep -Evc '^lmroof: (backend|metrics|[0-9]+ runs)|^Failed to match any benchmarks|^$' <<<"$err")" -gt 1 ]; then
    fail "lmroof $*: error is not one line: $err"; return 1; fi
  if grep -q '^\[ *[0-9]*/' <<<"$err"; then fail "lmroof $*: measured before refusing: $err"; return 1; fi
  ok "lmroof $* -> $rc: $(head -1 <<<"$err")"
}

# --- a first run: the set everything below must keep intact ------------------------
timeout 300 "$lmroof" "${quick[@]}" --out "$out" >"$tmp/first.log" 2>&1 || {
  echo "FAIL: the first run exited $?"; tail -20 "$tmp/first.log"; exit 1; }
for f in bench.json results.json report.html .lmroof-set; do
  [ -s "$out/$f" ] || { echo "FAIL: $out/$f missing after a run"; exit 1; }
done
ls "$out"/report.*.vl.json >/dev/null 2>&1 || fail "no report.*.vl.json after a run"
[ "$(ls "$out" | sort)" = "$(sort "$out/.lmroof-set")" ] || fail ".lmroof-set does not list the set: $(cat "$out/.lmroof-set")"
no_leftovers "$out" "a successful run"
before=$(snapshot "$out")
intact() {  # intact WHAT: the first run's set is byte-identical, nothing added
  if [ "$(snapshot "$out")" = "$before" ]; then ok "$1: previous outputs intact"; else
    fail "$1: the previous outputs changed"; diff <(echo "$before") <(snapshot "$out") | head -10; fi
}

# --- -o: only a regular file, never the input, checked first ------------------------
cp "$out/results.json" "$tmp/r.json"
cp "$out/bench.json" "$tmp/b.json"
if mknod "$tmp/dev" c 1 3 2>/dev/null; then
  expect_error 2 "character device" -- analyze "$out/bench.json" -o "$tmp/dev"
  expect_error 2 "character device" -- report "$out/results.json" -o "$tmp/dev"
  expect_error 2 "character device" -- ceilings --quick --backend cpu --json "$tmp/dev"
  [ -c "$tmp/dev" ] || fail "the device node was replaced"
else
  echo "note: mknod not permitted here; device-node targets not tested"
fi
echo "keep" >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"
expect_error 2 "symbolic link" -- analyze "$out/bench.json" -o "$tmp/link"
expect_error 2 "symbolic link" -- report "$out/results.json" -o "$tmp/link"
{ [ -L "$tmp/link" ] && [ "$(cat "$tmp/target")" = keep ]; } || fail "the symlink or its target was replaced"
mkfifo "$tmp/fifo"
expect_error 2 "named pipe" -- analyze "$out/bench.json" -o "$tmp/fifo"
mkdir "$tmp/adir"
expect_error 2 "is a directory" -- analyze "$out/bench.json" -o "$tmp/adir"
expect_error 2 "does not exist" -- analyze "$out/bench.json" -o "$tmp/nodir/x.json"
expect_error 2 "this command's input" -- report "$tmp/r.json" -o "$tmp/r.json"
expect_error 2 "this command's input" -- analyze "$tmp/b.json" -o "$tmp/b.json"
(cd "$tmp" && expect_error 2 "this command's input" -- analyze b.json -o ./b.json)
cmp -s "$tmp/r.json" "$out/results.json" && cmp -s "$tmp/b.json" "$out/bench.json" || fail "an input was overwritten"
root_before=$(ls -A /)
expect_error 2 "is a directory" -- report "$out/results.json" -o /
[ "$(ls -A /)" = "$root_before" ] || fail "report -o / wrote into /: $(diff <(echo "$root_before") <(ls -A /))"
[ -z "$(ls -A "$tmp/adir")" ] || fail "a refused -o wrote files: $(ls -A "$tmp/adir")"
ls -A "$tmp" | grep -E '\.tmp$|\.partial$' && fail "temporary files left in $tmp"
# and a good -o still works
timeout 60 "$lmroof" report "$out/results.json" -o "$tmp/adir/r.html" >/dev/null 2>&1 && [ -s "$tmp/adir/r.html" ] \
  && ok "report -o into a folder" || fail "report -o $tmp/adir/r.html failed"

# --- issue 26, defect 2: every output, side files included, against every input and
#     each other, before any work -------------------------------------------------------
d2="$tmp/d2"; mkdir "$d2"
cp "$out/results.json" "$d2/A.json"; cp "$out/results.json" "$d2/B.json"; cp "$out/bench.json" "$d2/b.json"
echo "claims: []" >"$d2/c.yaml"
cp "$out/results.json" "$d2/X.roofline.vl.json"; cp "$out/results.json" "$d2/X.runs.csv"
sums() { (cd "$d2" && sha256sum -- *); }
d2_before=$(sums)
expect_error 2 "this command's input" -- compare "$d2/A.json" "$d2/B.json" --html "$d2/A.json"
expect_error 2 "this command's input" -- merge "$d2/A.json" "$d2/B.json" -o "$d2/m.html" --results "$d2/B.json"
expect_error 2 "this command's input" -- merge "$d2/A.json" "$d2/B.json" -o "$d2/B.json"
expect_error 2 "another output of this command" -- merge "$d2/A.json" "$d2/B.json" -o "$d2/m.html" --results "$d2/m.html"
expect_error 2 "this command's input" -- analyze "$d2/b.json" -o "$d2/c.yaml" --claims "$d2/c.yaml"
expect_error 2 "X.roofline.vl.json: is this command's input" -- report "$d2/X.roofline.vl.json" -o "$d2/X.html"
expect_error 2 "X.runs.csv: is this command's input" -- report "$d2/X.runs.csv" -o "$d2/X.html"
cp "$out/results.json" "$d2/m.fleet-rooflines.vl.json"
d2_before=$(sums)
expect_error 2 "m.fleet-rooflines.vl.json: is this command's input" -- merge "$d2/m.fleet-rooflines.vl.json" -o "$d2/m.html"
[ "$(sums)" = "$d2_before" ] && [ ! -e "$d2/m.html" ] && [ ! -e "$d2/X.html" ] && ok "defect 2: no input overwritten, nothing written" \
  || fail "defect 2: an input changed or an output was written: $(ls "$d2")"
rm "$d2/m.fleet-rooflines.vl.json"
# --- defect 3: merge --results into a folder is refused before m.html is written, and a
#     report whose side file cannot be written leaves nothing half written
mkdir "$d2/folder"
expect_error 2 "is a directory" -- merge "$d2/A.json" "$d2/B.json" -o "$d2/m.html" --results "$d2/folder"
[ -z "$(ls "$d2" | grep '^m\.')" ] || fail "defect 3: merge wrote $(ls "$d2" | grep '^m\.') before refusing --results"
mkdir "$d2/r3" && echo "old page" >"$d2/r3/r.html" && mkdir "$d2/r3/r.runs.csv"
expect_error 2 "r.runs.csv: is a directory" -- report "$d2/A.json" -o "$d2/r3/r.html"
[ "$(cat "$d2/r3/r.html")" = "old page" ] && [ "$(ls -A "$d2/r3")" = "$(printf 'r.html\nr.runs.csv')" ] \
  && ok "defect 3: a report that cannot be written whole changes nothing" || fail "defect 3: report left $(ls -A "$d2/r3")"

# --- defect 1: a planted journal naming a symlink to another folder ---------------------
d1="$tmp/d1"; mkdir -p "$d1/D" "$d1/v"
cp "$out/results.json" "$d1/D/results.json"; echo old >"$d1/D/bench.json"; printf 'bench.json\nresults.json\n' >"$d1/D/.lmroof-set"
printf 'secret.txt\nresults.json\n' >"$d1/v/.lmroof-set"; echo secret >"$d1/v/secret.txt"; echo victim >"$d1/v/results.json"
ln -s "$d1/v" "$d1/D/.lmroof-staging-x"; echo .lmroof-staging-x >"$d1/D/.lmroof-publishing"
# (the refused run may create D/.lmroof.lock, its empty lock file; nothing else)
d1_state() { (cd "$d1" && find . ! -name .lmroof.lock | sort && cat v/* D/bench.json); }
d1_before=$(d1_state)
expect_error 2 "publish was left unfinished" -- check "$d1/D/results.json"
expect_error 2 "publish was left unfinished" -- report "$d1/D/results.json" -o "$d1/r.html"
expect_error 2 "not a staging folder this user's lmroof made" -- "${quick[@]}" --out "$d1/D"
[ "$(d1_state)" = "$d1_before" ] && ok "defect 1: nothing moved" \
  || fail "defect 1: files moved: $(cd "$d1" && find . | sort)"

# --- defect 3: a set name that cannot be replaced is refused before measuring ----------
mkdir -p "$tmp/d3/report.html"
expect_error 2 "report.html: is a directory" -- "${quick[@]}" --out "$tmp/d3"

# --- run: every input checked before measuring; refusals leave --out as it was ------
printf 'claims: [\n' >"$tmp/bad.yaml"
expect_error 2 "error" -- run --quick --backend cpu --suite norm --claims "$tmp/bad.yaml" --out "$out"
expect_error 2 "--out is empty" -- run --quick --backend cpu --suite norm --out ''
expect_error 2 "--suite is empty" -- run --quick --backend cpu --suite '' --out "$out"
expect_error 2 "names no pair" -- run --quick --backend cpu --suite ',,,' --out "$out"
for t in nan -1 inf 0; do
  expect_error 2 "min-time" -- run --quick --backend cpu --suite norm --min-time "$t" --out "$out"
done
expect_error 2 "refused: lmroof writes bench.json" -- run "${quick[@]:1}" --out "$out" --benchmark-flag=--benchmark_out_format=csv
expect_error 2 "refused: lmroof writes bench.json" -- run "${quick[@]:1}" --out "$out" --benchmark-flag=--benchmark_out=x.json
expect_error 2 "refused" -- run "${quick[@]:1}" --out "$out" --benchmark-flag=--help
expect_error 2 "use --repetitions" -- run "${quick[@]:1}" --out "$out" --benchmark-flag=--benchmark_repetitions=3
expect_error 2 "not passed on" -- run "${quick[@]:1}" --out "$out" --benchmark-flag=--benchmark_nonsense=1
echo x >"$tmp/afile"
expect_error 2 "is not a folder" -- run "${quick[@]:1}" --out "$tmp/afile"
# a folder lmroof cannot write into: chmod where the user is not root, /proc where it is
if [ "$(id -u)" != 0 ]; then
  mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
  expect_error 2 "cannot write" -- run "${quick[@]:1}" --out "$tmp/ro"
else
  expect_error 2 "cannot (write|create)" -- run "${quick[@]:1}" --out /proc/self/lmroof-out
fi
intact "refused runs"
# a filter that matches nothing: one line, exit 2, previous set untouched
expect_error 2 "no benchmark matched --benchmark_filter=nomatch" -- run "${quick[@]:1}" --out "$out" --benchmark-flag=--benchmark_filter=nomatch
intact "a run whose filter matched nothing"
no_leftovers "$out" "a run whose filter matched nothing"

# A claims file whose problem shows only against the results (a baseline matching
# several runs): exit 2, but the measurements are published, without verdicts.
cat >"$tmp/ambiguous.yaml" <<'YAML'
claims:
  - id: ambiguous
    statement: x
    source: y
    chart: pair-norm
    check:
      kind: faster
      candidate: {pair: norm, variant: rmsnorm, impl: fused}
      baseline: {pair: norm}
      factor: 1.1
YAML
err=$(timeout 300 "$lmroof" run --quick --backend cpu --suite norm --min-time 0.002 --repetitions 2 \
  --claims "$tmp/ambiguous.yaml" --out "$tmp/out2" 2>&1 >/dev/null); rc=$?
if [ "$rc" = 2 ] && grep -q "matches .* runs.*the measurements are in" <<<"$err" && [ -s "$tmp/out2/results.json" ]; then
  ok "an ambiguous claim after measuring: exit 2, measurements kept"
else
  fail "ambiguous claims: exit $rc, $(tail -1 <<<"$err")"
fi
no_leftovers "$tmp/out2" "a run with an ambiguous claim"

# Disk full while staging (a small tmpfs, where this user may mount one): the run
# fails and the previous set stays as it was. A set is about 1 MB (report.html).
mkdir "$tmp/small"
if mount -t tmpfs -o size=1500k tmpfs "$tmp/small" 2>/dev/null; then
  timeout 300 "$lmroof" "${quick[@]}" --out "$tmp/small/out" >/dev/null 2>&1 || fail "a run into a 1.5 MB tmpfs failed"
  small_before=$(snapshot "$tmp/small/out")
  err=$(timeout 300 "$lmroof" "${quick[@]}" --out "$tmp/small/out" 2>&1 >/dev/null); rc=$?
  if [ "$rc" = 2 ] && grep -q "No space left on device" <<<"$err" && [ "$(snapshot "$tmp/small/out")" = "$small_before" ]; then
    ok "disk full while staging: exit 2, previous set intact"
  else
    fail "disk full: exit $rc, $(tail -1 <<<"$err"), set $([ "$(snapshot "$tmp/small/out")" = "$small_before" ] && echo intact || echo changed)"
  fi
  # Past the measurement, the measurement is kept in a named recovery folder (issue 26, defect 3).
  if kept=$(grep -o 'the measurements are kept in [^:]*' <<<"$err" | sed 's/.* kept in //'); [ -n "$kept" ]; then
    [ -d "$kept" ] && [ -e "$kept/bench.json" ] && ok "disk full after measuring: bench.json kept in $kept" \
      || fail "disk full: the message names $kept, which holds no bench.json"
    rm -rf "$kept"
  fi
  no_leftovers "$tmp/small/out" "disk full"
  umount "$tmp/small"
else
  echo "note: cannot mount a tmpfs here; disk full not tested"
fi

# wait_for_progress LOG PID: until LOG shows a progress line "[ k/N ...]" (the run
# is measuring, its signal handler installed), PID exits, or 120 s pass.
wait_for_progress() {
  local deadline=$((SECONDS + 120))
  while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$2" 2>/dev/null; do
    grep -q '^\[ *[0-9]*/' "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  grep -q '^\[ *[0-9]*/' "$1" 2>/dev/null
}

# --- two runs into one --out: the second fails at once, the first completes ---------
"$lmroof" run --quick --backend cpu --suite norm --min-time 0.05 --no-claims --out "$out" >"$tmp/a.log" 2>&1 &
first=$!; bg_pids+=("$first")
deadline=$((SECONDS + 60))
until ls -A "$out" | grep -q '^\.lmroof-staging-' || ! kill -0 "$first" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; do sleep 0.05; done
ls -A "$out" | grep -q '^\.lmroof-staging-' || fail "the first of two runs never started staging; $(tail -2 "$tmp/a.log")"
start=$(date +%s)
expect_error 2 "another lmroof run \(pid $first\) is writing into this folder" -- "${quick[@]}" --out "$out"
[ $(($(date +%s) - start)) -le 10 ] || fail "the second run did not fail at once"
wait "$first"; rc=$?
[ "$rc" = 0 ] || { fail "the first of two concurrent runs exited $rc"; tail -5 "$tmp/a.log"; }
python3 -c "import json,sys; json.load(open(sys.argv[1])); json.load(open(sys.argv[2]))" "$out/bench.json" "$out/results.json" \
  || fail "the first run's bench.json/results.json are not valid JSON"
[ "$(ls "$out" | sort)" = "$(sort "$out/.lmroof-set")" ] || fail "after two runs, the folder is not one set"
no_leftovers "$out" "two concurrent runs"
before=$(snapshot "$out")

# --- interrupted mid-benchmark: previous set intact, nothing left behind ------------
set -m  # background jobs keep SIGINT (without job control bash makes them ignore it)
for sig in INT TERM; do
  # A log of its own, created empty before the run starts: with one shared log the
  # first check could read the previous iteration's progress before the new run's
  # `>` truncated it, and signal the run before its handler was installed.
  log="$tmp/sig-$sig.log"; : >"$log"
  "$lmroof" run --quick --backend cpu --suite norm --min-time 0.2 --no-claims --out "$out" >>"$log" 2>&1 &
  pid=$!; bg_pids+=("$pid")
  wait_for_progress "$log" "$pid" || fail "SIG$sig: the run showed no progress to interrupt: $(tail -2 "$log")"
  kill -"$sig" "$pid"
  wait "$pid"; rc=$?
  want=$([ "$sig" = INT ] && echo 130 || echo 143)
  [ "$rc" = "$want" ] && ok "SIG$sig mid-benchmark -> exit $rc" || { fail "SIG$sig: exit $rc, expected $want"; tail -3 "$log"; }
  intact "SIG$sig mid-benchmark"
  no_leftovers "$out" "SIG$sig mid-benchmark"
done
# SIGKILL cannot be handled: the staging folder stays, the set is intact, and the
# next command into the folder removes the staging folder.
: >"$tmp/kill.log"
"$lmroof" run --quick --backend cpu --suite norm --min-time 0.2 --no-claims --out "$out" >>"$tmp/kill.log" 2>&1 &
pid=$!; bg_pids+=("$pid")
wait_for_progress "$tmp/kill.log" "$pid" || fail "SIGKILL: the run showed no progress to interrupt: $(tail -2 "$tmp/kill.log")"
kill -KILL "$pid"; wait "$pid" 2>/dev/null
set +m
[ "$(cd "$out" && sha256sum -- *)" = "$(grep -v '^\.' <<<"$before")" ] && ok "SIGKILL mid-benchmark: the set is intact" \
  || fail "SIGKILL mid-benchmark changed the set"
expect_error 2 "no benchmark matched" -- run "${quick[@]:1}" --out "$out" --benchmark-flag=--benchmark_filter=nomatch
no_leftovers "$out" "the run after a SIGKILL"


# ===== issue 38: a third hostile review (items 1, 3, 4, 5, 6, 13, 14, 19, 21) ===========
src="$2"
i38="$tmp/i38"; mkdir -p "$i38"
echo precious >"$i38/precious.txt"
# Item 1: run refuses an input that its publish would replace, before measuring, by
# name, another spelling, a symlink or a hard link; the inputs stay as they were.
mkdir -p "$i38/o1"
cp "$src/kernels/models/gpt2.json" "$i38/o1/results.json"
cp "$src/tests/data/claims/faster.yaml" "$i38/o1/report.html"
o1_sums=$(cd "$i38/o1" && sha256sum -- *)
expect_error 2 "results.json: is results.json in --out .*which this run replaces" -- \
  "${quick[@]}" --out "$i38/o1" --model "$i38/o1/results.json"
expect_error 2 "report.html: is report.html in --out" -- \
  run --quick --backend cpu --suite norm --out "$i38/o1" --claims "$i38/o1/report.html"
ln "$i38/o1/results.json" "$i38/hard-config.json"
expect_error 2 "is results.json in --out" -- "${quick[@]}" --out "$i38/o1" --model "$i38/hard-config.json"
ln -s "$i38/o1/report.html" "$i38/claims-link.yaml"
expect_error 2 "is report.html in --out" -- run --quick --backend cpu --suite norm --out "$i38/o1" --claims "$i38/claims-link.yaml"
(cd "$i38/o1" && expect_error 2 "is results.json in --out" -- "${quick[@]}" --out . --model ../o1/results.json)
[ "$(cd "$i38/o1" && sha256sum -- *)" = "$o1_sums" ] && [ "$(ls -A "$i38/o1" | sort | tr '\n' ' ')" = "report.html results.json " ] \
  && ok "item 1: a run's own inputs in --out refused, nothing written" || fail "item 1: $(ls -A "$i38/o1")"

# Item 3: a lock file hard-linked to another file is never written through.
mkdir "$i38/o3" && ln "$i38/precious.txt" "$i38/o3/.lmroof.lock"
expect_error 2 "lmroof.lock: has 2 names \(a hard link" -- "${quick[@]}" --out "$i38/o3"
[ "$(cat "$i38/precious.txt")" = precious ] && ok "item 3: the hard-linked file is untouched" \
  || fail "item 3: precious.txt now holds $(cat "$i38/precious.txt")"

# Item 6: a folder, FIFO or symlink at DIR/.lmroof-set is refused before measuring,
# leaves no journal or staging folder, and the folder works once it is removed.
for kind in folder fifo symlink; do
  d="$i38/o6-$kind"; mkdir "$d"
  case $kind in
    folder) mkdir "$d/.lmroof-set" ;;
    fifo) mkfifo "$d/.lmroof-set" ;;
    symlink) ln -s "$i38/precious.txt" "$d/.lmroof-set" ;;
  esac
  expect_error 2 "\.lmroof-set: is a (directory|named pipe|symbolic link); .*remove it" -- "${quick[@]}" --out "$d"
  ls -A "$d" | grep -qE 'staging|publishing' && fail "item 6 ($kind): left $(ls -A "$d")"
done
rm -rf "$i38/o6-folder/.lmroof-set"
timeout 300 "$lmroof" "${quick[@]}" --out "$i38/o6-folder" >/dev/null 2>&1 && [ -f "$i38/o6-folder/.lmroof-set" ] \
  && ok "item 6: the folder recovers once .lmroof-set is removed" || fail "item 6: a run after removing .lmroof-set failed"
[ "$(cat "$i38/precious.txt")" = precious ] || fail "item 6: the symlink's target changed"

# Item 5: a side file's name longer than NAME_MAX is refused before anything is written.
mkdir "$i38/o5"; stem=$(printf 'r%.0s' $(seq 240)); echo "old page" >"$i38/o5/$stem.html"
expect_error 2 "File name too long" -- report "$out/results.json" -o "$i38/o5/$stem.html"
[ "$(ls -A "$i38/o5")" = "$stem.html" ] && [ "$(cat "$i38/o5/$stem.html")" = "old page" ] \
  && ok "item 5: nothing written" || fail "item 5: left $(ls -A "$i38/o5" | cut -c230-)"

# Item 13: compare, merge and predict --device refuse a half-published folder, like report and check.
mkdir -p "$i38/half"; cp "$out/results.json" "$i38/half/results.json"
mkdir "$i38/half/.lmroof-staging-1-0000000000000001"; echo .lmroof-staging-1-0000000000000001 >"$i38/half/.lmroof-publishing"
expect_error 2 "publish was left unfinished" -- compare "$i38/half/results.json" "$out/results.json"
expect_error 2 "publish was left unfinished" -- compare "$out/results.json" "$i38/half/results.json"
expect_error 2 "publish was left unfinished" -- merge "$out/results.json" "$i38/half/results.json" -o "$i38/m.html"
expect_error 2 "publish was left unfinished" -- predict --model gpt2 --device "$i38/half/results.json"
[ ! -e "$i38/m.html" ] || fail "item 13: merge wrote a page from a half-published folder"

# Item 14: `report -o x.html` again removes the side files of the earlier page that
# the new one lacks, and only those.
mkdir "$i38/o14"
timeout 60 "$lmroof" report "$src/tests/data/results_measured.json" -o "$i38/o14/x.html" >/dev/null 2>&1 || fail "item 14: first report"
first_files=$(ls "$i38/o14" | sort)
echo mine >"$i38/o14/x.mine.vl.json"; echo mine >"$i38/o14/y.runs.csv"
timeout 60 "$lmroof" report "$out/results.json" -o "$i38/o14/x.html" >/dev/null 2>&1 || fail "item 14: second report"
timeout 60 "$lmroof" report "$out/results.json" -o "$i38/o14/fresh.html" >/dev/null 2>&1 || fail "item 14: fresh report"
want=$( (ls "$i38/o14" | grep '^fresh\.' | sed 's/^fresh\./x./'; echo x.mine.vl.json; echo y.runs.csv) | sort)
got=$(ls "$i38/o14" | grep -v '^fresh\.' | sort)
if [ "$got" = "$want" ] && [ "$first_files" != "$(ls "$i38/o14" | grep '^x\.' | grep -v mine | sort)" ]; then
  ok "item 14: the earlier page's stale side files removed, the user's kept"
else
  fail "item 14: the folder holds $(echo $got), expected $(echo $want)"
fi

# Item 21: a filter that matches nothing prints one line (none from Google Benchmark)
# and leaves no folder behind; an interrupted first run leaves none either.
err=$(timeout 120 "$lmroof" "${quick[@]}" --out "$i38/o21" --benchmark-flag=--benchmark_filter=nomatch 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && [ "$(grep -Evc '^lmroof: (backend|metrics|[0-9]+ runs)' <<<"$err")" = 1 ] && ! grep -q "Failed to match" <<<"$err" \
  && ok "item 21: a filter matching nothing: one line" || fail "item 21: exit $rc, stderr: $err"
[ ! -e "$i38/o21" ] && ok "item 21: no folder left by an empty first run" || fail "item 21: left $(ls -A "$i38/o21")"
mkdir "$i38/o21-mine"
expect_error 2 "no benchmark matched" -- "${quick[@]}" --out "$i38/o21-mine" --benchmark-flag=--benchmark_filter=nomatch
[ -z "$(ls -A "$i38/o21-mine")" ] && ok "item 21: the user's empty folder stays empty" || fail "item 21: left $(ls -A "$i38/o21-mine")"
set -m
log="$i38/sig21.log"; : >"$log"
"$lmroof" run --quick --backend cpu --suite norm --min-time 0.2 --no-claims --out "$i38/o21-int" >>"$log" 2>&1 &
pid=$!; bg_pids+=("$pid")
wait_for_progress "$log" "$pid" || fail "item 21: the run showed no progress to interrupt: $(tail -2 "$log")"
kill -INT "$pid"; wait "$pid"; rc=$?
set +m
[ "$rc" = 130 ] && [ ! -e "$i38/o21-int" ] && ok "item 21: an interrupted first run leaves no folder" \
  || fail "item 21: SIGINT: exit $rc, left $(ls -A "$i38/o21-int" 2>&1)"

# Item 19: SIGINT after the commit point says that the new set was published. The run
# is held after publishing by a full stdout pipe (its tables come after the publish).
python3 - "$lmroof" "$i38/o19" "$i38/sig19.log" <<'PY' || fail "item 19: the driver failed"
import fcntl, os, signal, subprocess, sys, time
lmroof, out, log = sys.argv[1:4]
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
os.set_blocking(w, False)
try:
    while True: os.write(w, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(w, True)
with open(log, "w") as err:
    p = subprocess.Popen([lmroof, "run", "--quick", "--backend", "cpu", "--suite", "norm", "--min-time", "0.002",
                          "--repetitions", "2", "--no-claims", "--out", out], stdout=w, stderr=err)
os.close(w)
deadline = time.time() + 240
while time.time() < deadline and p.poll() is None and not (
        os.path.exists(os.path.join(out, "results.json")) and not os.path.exists(os.path.join(out, ".lmroof-publishing"))):
    time.sleep(0.05)
time.sleep(0.3)
p.send_signal(signal.SIGINT)
rc = p.wait(60)
os.close(r)
sys.exit(0 if rc == 130 else 1)
PY
if grep -q "interrupted by SIGINT; the new outputs were published in $i38/o19 before it" "$i38/sig19.log" \
   && ! grep -q "unfinished outputs were removed" "$i38/sig19.log" && [ -s "$i38/o19/results.json" ]; then
  ok "item 19: SIGINT after the commit point says the set was published"
else
  fail "item 19: $(tail -2 "$i38/sig19.log")"
fi

# Item 4: a disk that fills while bench.json is written: one short line that says "No
# space left on device", and the measurements kept whole where they fit ($TMPDIR here),
# readable by `analyze`; ceilings --json the same, leaving no partial file.
mkdir "$i38/full"
bench_kb=$(( $(stat -c %s "$out/bench.json") / 1024 ))
if [ "$bench_kb" -ge 16 ] && mount -t tmpfs -o size=$(( bench_kb / 2 ))k tmpfs "$i38/full" 2>/dev/null; then
  mkdir "$i38/keep"
  err=$(TMPDIR="$i38/keep" timeout 300 "$lmroof" "${quick[@]}" --out "$i38/full/o" 2>&1 >/dev/null); rc=$?
  line=$(grep '^lmroof: error' <<<"$err")
  kept=$(grep -o 'the measurements are kept in [^:]*' <<<"$line" | sed 's/.* kept in //')
  if [ "$rc" = 2 ] && grep -q "No space left on device" <<<"$line" && [ "${#line}" -lt 600 ] && [ -n "$kept" ] \
     && timeout 120 "$lmroof" analyze "$kept/bench.json" -o "$i38/recovered.json" --no-claims >/dev/null 2>&1; then
    ok "item 4: disk full while bench.json is written: said so, measurements kept whole in $kept"
  else
    fail "item 4: exit $rc, $(head -c 600 <<<"$line"), kept in '$kept'"
  fi
  ls -A "$i38/full/o" 2>/dev/null | grep -qE 'staging|recovered' && fail "item 4: left $(ls -A "$i38/full/o")"
  cat /dev/zero >"$i38/full/filler" 2>/dev/null  # the rest of the disk
  err=$(timeout 300 "$lmroof" ceilings --quick --backend cpu --json "$i38/full/c.json" 2>&1 >/dev/null); rc=$?
  { [ "$rc" = 2 ] && grep '^lmroof: error' <<<"$err" | grep -q "cannot write $i38/full/c.json: No space left on device" \
    && [ "$(grep -c '^lmroof: error' <<<"$err")" = 1 ] && [ ! -e "$i38/full/c.json" ] \
    && [ -z "$(ls -A "$i38/full" | grep -v '^filler$')" ]; } && ok "item 4: ceilings --json on a full disk: said so, no partial file" \
    || fail "item 4: ceilings --json: exit $rc, $(tail -1 <<<"$err"), left $(ls -A "$i38/full")"
  umount "$i38/full"
else
  echo "note: cannot mount a tmpfs here (or bench.json is small); item 4's full disk not tested end to end (the ulimit case below covers short writes)"
fi
# The same without root or a full disk: a file size limit (ulimit -f, SIGXFSZ ignored)
# makes bench.json's write come up short ("File too large"); nothing can hold it then,
# and the line says so, never "malformed JSON", and no truncated file is kept.
limit_kb=$(( $(stat -c %s "$out/bench.json") / 2048 ))
mkdir "$i38/keep4"
err=$( (trap '' XFSZ; ulimit -f "$limit_kb"; TMPDIR="$i38/keep4" timeout 300 "$lmroof" "${quick[@]}" --out "$i38/o4") 2>&1 >/dev/null); rc=$?
line=$(grep '^lmroof: error' <<<"$err")
if [ "$rc" = 2 ] && grep -q "File too large" <<<"$line" && grep -q "the measurements could not be kept" <<<"$line" \
   && ! grep -qi "malformed" <<<"$line" && [ "${#line}" -lt 600 ] && [ -z "$(ls -A "$i38/keep4")" ] && [ ! -e "$i38/o4" ]; then
  ok "item 4: a short write of bench.json said so in one line, nothing truncated kept"
else
  fail "item 4 (ulimit): exit $rc, $(head -c 600 <<<"$line"); left: $(ls -A "$i38/keep4") $(ls -A "$i38/o4" 2>&1)"
fi
err=$( (trap '' XFSZ; ulimit -f 4; timeout 300 "$lmroof" ceilings --quick --backend cpu --json "$i38/c.json") 2>&1 >/dev/null); rc=$?
{ [ "$rc" = 2 ] && grep '^lmroof: error' <<<"$err" | grep -q "cannot write $i38/c.json: File too large" && [ ! -e "$i38/c.json" ] && [ -z "$(ls -A "$i38" | grep 'c\.json')" ]; } \
  && ok "item 4: ceilings --json cut short: said so, no partial file" || fail "item 4: ceilings --json (ulimit): exit $rc, $(tail -1 <<<"$err"), $(ls -A "$i38" | grep 'c\.json')"
# ===== end of issue 38 =================================================================

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "PASS: outputs safety"
