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
# Optional: FORMATKIT, the command to run (default: formatkit; e.g. /opt/venv/bin/formatkit);
# FORMATKIT_OPTIONS, more options for every part (e.g. "--concurrency 32 --param temperature=0");
# sbatch's own variables for the rest (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...).
#
# The jobs see the environment you submit from (sbatch's default, --export=ALL), the key included.
#
# Afterwards, in FORMATKIT_OUT: part.1 ... part.N (each part's eval directory: answers, scores, run.json),
# scored.jsonl (every record once, in the set's order), report.txt, report.json and report.html, and logs/.
# A task that failed (an endpoint down, records ended in error) leaves the merge waiting for nothing: Slurm
# cancels it. Submit that part again -- it resumes from its journal -- then the merge:
#
#   sbatch --array=K --output="$FORMATKIT_OUT/logs/part-%a.log" slurm-eval.sh
#   sbatch --output="$FORMATKIT_OUT/logs/merge.log" slurm-eval.sh merge
set -euo pipefail

input=${FORMATKIT_INPUT:?set FORMATKIT_INPUT to the set to evaluate}
out=${FORMATKIT_OUT:?set FORMATKIT_OUT to the output directory}
parts=${FORMATKIT_PARTS:?set FORMATKIT_PARTS to the number of parts}
formatkit=${FORMATKIT:-formatkit}

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
    mkdir -p "$out/logs"
    array=$(sbatch --parsable --array="1-$parts" --job-name=formatkit-part \
        --output="$out/logs/part-%a.log" "$0")
    array=${array%%;*}  # --parsable prints "id" or "id;cluster"
    merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
        --job-name=formatkit-merge --output="$out/logs/merge.log" "$0" merge)
    merge=${merge%%;*}
    echo "submitted: the parts as job array $array (tasks 1-$parts), the merge as job $merge after them"
fi
