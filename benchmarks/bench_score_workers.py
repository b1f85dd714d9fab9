"""``score --workers``: 1 worker (the plain one-process path) against N, as whole processes, in one run.

Run: python benchmarks/bench_score_workers.py [--records 1000000] [--workers 2] [--repeats 1] [--metric auto]

The input is the choice and exact mix of bench_scoring.py (half each, two datasets), written once to a
temporary folder (default: /dev/shm when it exists, so the disk is not what is measured). Each repeat
runs ``formatkit score IN -o OUT --metric M --json`` with --workers 1 and then --workers N, interleaved,
and prints wall time, records/s, the CPU time of the whole process tree, and the peak memory of the tree
(the sum of the RSS of the command and its workers, sampled every 50 ms). It checks that both outputs
and both summaries are byte-identical, and prints the median ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))

from bench_scoring import choice_records, exact_records

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(pid: int) -> int:
    """Bytes resident in ``pid`` and its descendants (Linux /proc)."""
    total = 0
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
            with open(f"/proc/{current}/task/{current}/children") as handle:
                todo += [int(child) for child in handle.read().split()]
        except (OSError, ValueError):
            continue
    return total


def run(args: list[str]) -> tuple[float, float, int, bytes]:
    """Wall seconds, CPU seconds of the tree, peak tree RSS, stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.05)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0,):
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{err.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--metric", default="auto")
    parser.add_argument("--folder", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=options.folder) as folder:
        src = Path(folder) / "responses.jsonl"
        rng = random.Random(7)
        started = time.perf_counter()
        with open(src, "wb") as handle:
            left = options.records
            session = 0
            while left > 0:  # in chunks: memory stays small; every record its own session id
                n = min(left, 50_000)
                for line in choice_records(n // 2, rng) + exact_records(n - n // 2, rng):
                    record = orjson.loads(line)
                    record["session_id"] = session
                    session += 1
                    handle.write(orjson.dumps(record) + b"\n")
                left -= n
        size = src.stat().st_size
        print(
            f"input: {options.records:,} records, {size / 2**20:,.0f} MiB (written in "
            f"{time.perf_counter() - started:.0f} s); metric {options.metric}; {os.cpu_count()} CPUs; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        entry = "import sys; from formatkit.cli import main; sys.argv[0] = 'formatkit'; main()"
        command = [sys.executable, "-c", entry, "score", str(src), "--metric", options.metric, "--json"]
        walls: dict[int, list[float]] = {1: [], options.workers: []}
        for repeat in range(options.repeats):
            outputs: dict[int, tuple[bytes, bytes]] = {}
            for workers in (1, options.workers):
                out = Path(folder) / f"scored{workers}.jsonl"
                wall, cpu, peak, summary = run([*command, "-o", str(out), "--workers", str(workers)])
                walls[workers].append(wall)
                outputs[workers] = (out.read_bytes(), summary)
                print(
                    f"  repeat {repeat + 1}, --workers {workers}: {wall:7.1f} s  "
                    f"{options.records / wall:9,.0f} records/s  CPU {cpu:7.1f} s  peak RSS {peak / 2**20:7,.0f} MiB"
                    f"  (load {os.getloadavg()[0]:.1f})"
                )
                out.unlink()
            same = outputs[1] == outputs[options.workers]
            print(f"  outputs and summaries byte-identical: {same}")
            if not same:
                raise SystemExit("the outputs differ")
        one, many = statistics.median(walls[1]), statistics.median(walls[options.workers])
        print(f"median: --workers 1 {one:.1f} s, --workers {options.workers} {many:.1f} s: speed-up {one / many:.2f}x")


if __name__ == "__main__":
    main()
