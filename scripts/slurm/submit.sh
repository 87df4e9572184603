#!/usr/bin/env bash
# Fans an lmroof suite out over a Slurm cluster and gathers it into one fleet report.
#
#   scripts/slurm/submit.sh LIST OUTROOT [options] [lmroof run options]
#
# LIST has one task per line: "LABEL [--sbatch=OPT]... [lmroof run options]";
# '#' starts a comment. Each task runs `lmroof run` in its own array task, into
# OUTROOT/task-N/ (N = the task's line number, from 0). A job that depends on
# every task (--dependency=afterany: a failed task is named, the others merged) then runs `lmroof merge` into
# OUTROOT/fleet.html and OUTROOT/fleet.json. Prints the job ids.
#
# Options:
#   --gpu              every task asks for one GPU (--gres=gpu:1)
#   --sbatch OPT       an sbatch option for every task, repeatable (--sbatch=--partition=gpu)
#   --merge-sbatch OPT an sbatch option for the merge job only, repeatable
#   --lmroof PATH      the lmroof executable (default: `lmroof` on PATH, else build/lmroof)
#   --setup FILE       a file every job sources first (module load ..., see docs/cluster.md)
#   --dry-run          print the sbatch commands instead of submitting
# Anything else (--suite norm, --model ..., --quick, --backend cuda, ...) is passed
# to `lmroof run` in every task. Tasks whose lines carry different --sbatch= words
# go into separate arrays (an array's tasks share one resource request).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "submit.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; } && { usage; exit 0; }
[ $# -ge 2 ] || { usage >&2; exit 2; }
list=$1 outroot=$2
shift 2
[ -f "$list" ] || die "$list: no such task list"

gpu=0 dry_run=0 lmroof="" setup=""
task_sbatch=() merge_sbatch=() run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=1 ;;
    --dry-run) dry_run=1 ;;
    --sbatch) [ $# -ge 2 ] || die "--sbatch needs a value"; task_sbatch+=("$2"); shift ;;
    --sbatch=*) task_sbatch+=("${1#--sbatch=}") ;;
    --merge-sbatch) [ $# -ge 2 ] || die "--merge-sbatch needs a value"; merge_sbatch+=("$2"); shift ;;
    --merge-sbatch=*) merge_sbatch+=("${1#--merge-sbatch=}") ;;
    --lmroof) [ $# -ge 2 ] || die "--lmroof needs a value"; lmroof=$2; shift ;;
    --lmroof=*) lmroof=${1#--lmroof=} ;;
    --setup) [ $# -ge 2 ] || die "--setup needs a value"; setup=$2; shift ;;
    --setup=*) setup=${1#--setup=} ;;
    --out|--out=*) die "--out is set per task (OUTROOT/task-N); give OUTROOT instead" ;;
    -h|--help) usage; exit 0 ;;
    *) run_args+=("$1") ;;
  esac
  shift
done
[ "$gpu" = 1 ] && task_sbatch+=("--gres=gpu:1")

if [ -z "$lmroof" ]; then
  lmroof=$(command -v lmroof || true)
  [ -n "$lmroof" ] || lmroof=$here/../../build/lmroof
fi
[ -x "$lmroof" ] || die "$lmroof: not an executable (give --lmroof PATH)"
[ -z "$setup" ] || [ -f "$setup" ] || die "$setup: no such setup file"
command -v sbatch >/dev/null || [ "$dry_run" = 1 ] || die "sbatch not found: is this a Slurm login node?"

# Jobs may run on other nodes: every path they see is absolute.
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
mkdir -p "$outroot/logs"
outroot=$(cd "$outroot" && pwd)
list=$(abs "$list")
lmroof=$(abs "$lmroof")
[ -z "$setup" ] || setup=$(abs "$setup")

# Task lines, their labels and their --sbatch= words; group indices by resources.
# CRLF line endings (a list edited on Windows): the \r is not part of a label or option.
mapfile -t lines < <(sed -e 's/\r$//' -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
[ "${#lines[@]}" -gt 0 ] || die "$list: no task lines (one per task: LABEL [options])"
declare -A group_indices=()
group_keys=()
labels=()
for i in "${!lines[@]}"; do
  read -r -a words <<< "${lines[$i]}"
  label=${words[0]}
  case "$label" in -*) die "$list: task line $i starts with an option, not a label: ${lines[$i]}" ;; esac
  for seen in "${labels[@]}"; do [ "$seen" != "$label" ] || die "$list: label '$label' is used twice"; done
  labels+=("$label")
  key="resources:"  # never empty: bash refuses an empty associative-array key
  for word in "${words[@]:1}"; do
    case "$word" in --sbatch=*) key+="${word#--sbatch=}"$'\n' ;; esac
  done
  [ -n "${group_indices[$key]+set}" ] || group_keys+=("$key")
  group_indices[$key]+="${group_indices[$key]:+,}$i"
done

export LMROOF_BIN=$lmroof LMROOF_TASK_LIST=$list LMROOF_OUTROOT=$outroot LMROOF_SITE_SETUP=$setup
LMROOF_RUN_ARGS=$(printf '%s\n' "${run_args[@]}")
export LMROOF_RUN_ARGS

submit() {  # submit SBATCH-ARGS... : prints the job id
  if [ "$dry_run" = 1 ]; then
    printf '%q ' sbatch "$@" >&2; echo >&2
    echo "DRYRUN$RANDOM"
  else
    sbatch --parsable "$@" | cut -d';' -f1
  fi
}

array_jobs=()
for key in "${group_keys[@]}"; do
  line_sbatch=()
  [ "$key" = "resources:" ] || mapfile -t line_sbatch < <(printf '%s' "${key#resources:}")
  job=$(submit --array="${group_indices[$key]}" --export=ALL \
    --output="$outroot/logs/task-%a.out" --chdir="$outroot" \
    "${task_sbatch[@]}" "${line_sbatch[@]}" "$here/lmroof-array.sbatch")
  echo "array job $job: tasks ${group_indices[$key]}"
  array_jobs+=("$job")
done

# The merge: every task's results, labelled from the list, into one fleet report. It
# runs after every task ended however it ended (afterany): a task that exits 1 ("some
# benchmarks could not run") still wrote its results, and a task that wrote none is
# named, not a reason to lose the others. A script of its own, run by bash: --wrap
# runs through sh, which on Debian (dash) has no `source`.
merge_script=$outroot/merge.sh
{
  echo '#!/usr/bin/env bash'
  echo 'set -uo pipefail'
  if [ -n "$setup" ]; then
    echo 'set +u  # site scripts often read unset variables'
    printf 'source %q || { echo "lmroof merge: the setup file failed" >&2; exit 2; }\n' "$setup"
    echo 'set -u'
  fi
  echo 'inputs=() missing=()'
  for i in "${!labels[@]}"; do
    printf 'if [ -s %q ]; then inputs+=(%q --label %q); else missing+=(%q); fi\n' \
      "$outroot/task-$i/results.json" "$outroot/task-$i/results.json" "${labels[$i]}" "${labels[$i]} (task $i)"
  done
  echo '[ "${#missing[@]}" = 0 ] || echo "lmroof merge: no results from ${missing[*]}; merging the others" >&2'
  echo '[ "${#inputs[@]}" -gt 0 ] || { echo "lmroof merge: no task wrote results" >&2; exit 2; }'
  printf 'exec %q merge "${inputs[@]}" -o %q --results %q\n' "$lmroof" "$outroot/fleet.html" "$outroot/fleet.json"
} > "$merge_script"
chmod +x "$merge_script"
dependency=afterany$(printf ':%s' "${array_jobs[@]}")
merge_job=$(submit --job-name=lmroof-merge --dependency="$dependency" \
  --ntasks=1 --cpus-per-task=1 --time=00:15:00 --output="$outroot/logs/merge.out" --chdir="$outroot" \
  "${merge_sbatch[@]}" "$merge_script")
echo "merge job $merge_job: after every task ($dependency) -> $outroot/fleet.html"
