#!/usr/bin/env bash
# Evaluate one set in N parts on a Slurm cluster: a job array of N tasks, task K running
# `formatkit eval --shard K/N`, then one more job, started only when every task has succeeded, that merges
# the parts into one scored.jsonl and writes the report.
#
# Run it from a machine that can submit jobs (it calls sbatch twice: the array, then the merge):
#
#   export FORMATKIT_INPUT=/shared/set.xlsx         # the set (Excel or jsonl), on a disk every node sees
#   export FORMATKIT_OUT=/shared/eval-qwen          # where the parts, the merged result and the logs go
#   export FORMATKIT_PARTS=8                        # N: how many parts (array tasks) to split the set into
#   export FORMATKIT_BASE_URL=http://vllm:8000/v1   # the model's OpenAI-compatible endpoint (or several)
#   export FORMATKIT_MODEL=qwen2.5-7b-instruct
#   export OPENAI_API_KEY=...                       # the endpoint's key, if it wants one (never written down)
#   bash slurm-eval.sh
#
# Several replicas of the model: list them all, space-separated, in FORMATKIT_BASE_URL; every part sends to
# all of them (`--base-url` once per replica: a part spreads its requests by the replicas' free capacity, and
# a replica that dies is dropped, its requests going to the others):
#
#   export FORMATKIT_BASE_URL="http://gpu-1:8000/v1 http://gpu-2:8000/v1 http://gpu-3:8000/v1"
#
# FORMATKIT: the formatkit command the jobs run, on a disk every node sees. Installed as the README says
# (a venv in the source tree, not activated), it is that venv's:
#
#   export FORMATKIT=/shared/formatkit/.venv/bin/formatkit
#
# Unset, `formatkit` is looked up on PATH. Before anything is submitted the script checks that the command
# runs (`$FORMATKIT --version`) and stops, saying how to set FORMATKIT, when it does not (the jobs would
# each die at once otherwise). Install formatkit from its source tree or from the wheel CI builds
# (`pip install /shared/formatkit` or `pip install formatkit_eval-*.whl`), never by the bare name: the
# `formatkit` on PyPI is an unrelated project (formatkit's own distribution is formatkit-eval).
#
# Optional: FORMATKIT_OPTIONS, more options for every part (e.g. "--concurrency 32 --param temperature=0");
# sbatch's own variables for the rest (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...).
#
# The jobs see the environment you submit from (sbatch's default, --export=ALL), the key included.
#
# Afterwards, in FORMATKIT_OUT: part.1 ... part.N (each part's eval directory: answers, scores, run.json),
# scored.jsonl (every record once, in the set's order), report.txt, report.json, report.html and
# report.xlsx (as `formatkit eval` writes them), and logs/.
# A task that failed (an endpoint down, records ended in error) leaves the merge waiting for nothing: Slurm
# cancels it. With the same variables set, submit those parts again -- each resumes from its journal -- and
# a new merge that waits for them (afterok), in one command:
#
#   bash slurm-eval.sh resubmit K            # or several: resubmit 2,5
set -euo pipefail

input=${FORMATKIT_INPUT:?set FORMATKIT_INPUT to the set to evaluate}
out=${FORMATKIT_OUT:?set FORMATKIT_OUT to the output directory}
parts=${FORMATKIT_PARTS:?set FORMATKIT_PARTS to the number of parts}
formatkit=${FORMATKIT:-formatkit}

# The command the jobs will run, checked here before anything is submitted: its absolute path, and that it
# runs. A name that is not on PATH, a directory (a source tree's formatkit/ reached through PATH), a file
# that is not executable: each would make every task die at once while the submission said "submitted".
check_formatkit() {
    local found
    if ! found=$(command -v -- "$formatkit") || [ -d "$found" ] || [ ! -x "$found" ] ||
        ! "$found" --version >/dev/null 2>&1; then
        echo "slurm-eval.sh: the command to run, FORMATKIT=$formatkit, cannot be run here${found:+ ($found)}." >&2
        echo "  Set FORMATKIT to the formatkit of the venv you installed it in, on a disk every node sees, e.g." >&2
        echo "    export FORMATKIT=/shared/formatkit/.venv/bin/formatkit" >&2
        echo "  (installed from the source tree: python3 -m venv .venv && .venv/bin/pip install -e .)" >&2
        exit 2
    fi
    case $found in
        /*) formatkit=$found ;;
        *) formatkit=$(cd "$(dirname -- "$found")" && pwd)/$(basename -- "$found") ;;
    esac
    export FORMATKIT=$formatkit  # the jobs run the very file checked here
}

# The merge job, submitted to wait for every job of $1 (afterok) and cancelled if one fails.
submit_merge() {
    local merge
    merge=$(sbatch --parsable --dependency="afterok:$1" --kill-on-invalid-dep=yes \
        --job-name=formatkit-merge --output="$out/logs/merge.log" "$0" merge)
    echo "${merge%%;*}"  # --parsable prints "id" or "id;cluster"
}

if [ "${1:-}" = merge ]; then
    # The merge job: the N parts back into one file, in the set's order, then the report.
    # merge refuses (exit 1, nothing written) unless the parts make the whole set exactly once.
    dirs=()
    for k in $(seq 1 "$parts"); do
        dirs+=("$out/part.$k")
    done
    "$formatkit" merge "${dirs[@]}" -o "$out/scored.jsonl"
    "$formatkit" report "$out/scored.jsonl" -o "$out/report.txt"
    "$formatkit" report "$out/scored.jsonl" --format json -o "$out/report.json"
    "$formatkit" report "$out/scored.jsonl" --format html -o "$out/report.html"
    "$formatkit" report "$out/scored.jsonl" --format xlsx -o "$out/report.xlsx"
elif [ "${1:-}" = resubmit ]; then
    # Parts that failed, submitted again (each resumes from its journal), and a new merge after them.
    tasks=${2:?name the parts to submit again, e.g. resubmit 3 or resubmit 2,5}
    if ! [[ $tasks =~ ^[0-9]+(,[0-9]+)*$ ]]; then
        echo "slurm-eval.sh: resubmit $tasks: expected part numbers such as 3 or 2,5" >&2
        exit 2
    fi
    check_formatkit
    mkdir -p "$out/logs"
    array=$(sbatch --parsable --array="$tasks" --job-name=formatkit-part \
        --output="$out/logs/part-%a.log" "$0")
    array=${array%%;*}
    merge=$(submit_merge "$array")
    echo "submitted again: parts $tasks as job array $array, the merge as job $merge after them"
elif [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # One array task: part K of N, K being the task's index (the array is 1-N, so K counts from 1).
    k=$SLURM_ARRAY_TASK_ID
    read -r -a urls <<<"${FORMATKIT_BASE_URL:?set FORMATKIT_BASE_URL to the endpoint (or several, space-separated)}"
    base_urls=()
    for url in "${urls[@]}"; do
        base_urls+=(--base-url "$url")
    done
    # shellcheck disable=SC2086 # FORMATKIT_OPTIONS is split into options on purpose
    exec "$formatkit" eval "$input" -o "$out/part.$k" --shard "$k/$parts" "${base_urls[@]}" \
        --model "${FORMATKIT_MODEL:?set FORMATKIT_MODEL to the model name}" ${FORMATKIT_OPTIONS:-}
else
    # Submitting: the array of N parts, then the merge, which waits for every part to succeed (afterok)
    # and is cancelled if one fails (--kill-on-invalid-dep).
    : "${FORMATKIT_BASE_URL:?set FORMATKIT_BASE_URL to the endpoint (or several, space-separated)}"
    : "${FORMATKIT_MODEL:?set FORMATKIT_MODEL to the model name}"
    check_formatkit
    mkdir -p "$out/logs"
    array=$(sbatch --parsable --array="1-$parts" --job-name=formatkit-part \
        --output="$out/logs/part-%a.log" "$0")
    array=${array%%;*}  # --parsable prints "id" or "id;cluster"
    merge=$(submit_merge "$array")
    echo "submitted: the parts as job array $array (tasks 1-$parts), the merge as job $merge after them"
fi
