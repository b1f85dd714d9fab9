"""Several endpoints in one run, and past one core (issue #30 items 1 and 2).

    .venv/bin/python benchmarks/bench_endpoints.py [--part replicas processes] [--repeat 3]

Every fake server (tests/fakeserver.py) runs in its own process; every measurement is a whole
``run_file`` (journal on, output written) in a fresh process. Throughput is the steady state, from the
first record finished to the last (making 32 httpx clients, or starting worker processes, is start-up:
it costs about a second on a loaded machine); the whole run's figure is printed beside it. Interleaved, best of
``--repeat``; the ratios against the baseline measured in the same run are the figures to read.

- **replicas**: four servers, each capped (``--capacity 4 --delay 0.1``: at most 4 replies at once,
  each 0.1 s, so 40 replies a second at most), plain replies. The baseline is one run against one
  replica; then one run with ``--base-url`` given for all four. The target is 3.5x.
- **processes**: one server that streams faster than a client process can read (every reply 300 events
  of one character written in one piece: ``--burst --pieces 300 --reply-chars 300``). Streamed tokens a
  second (the ``completion_tokens`` the server reports) for ``processes`` 1 (the baseline), 2, 3, 4.
  On a machine of C cores, the server takes part of one: more processes than cores gain nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _write_set(path: Path, count: int) -> None:
    import orjson

    with path.open("wb") as handle:
        for i in range(count):
            line = {"prompt": f"问题 {i}: {i}+1 等于几？", "answer": str(i + 1)}
            handle.write(orjson.dumps(line) + b"\n")


def _serve(*options: str) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fakeserver.py"), *options], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def _worker(urls: list[str], src: Path, concurrency: int, processes: int, stream: bool) -> None:
    from scoring import Dialect, EndpointOptions, Limits, RetryPolicy, run_file

    endpoint = EndpointOptions(
        urls[0],
        "bench",
        replicas=tuple(urls[1:]),
        api_key_env=None,
        limits=Limits(concurrency=concurrency),
        retry=RetryPolicy(max_retries=0),
        dialect=Dialect(stream=stream),
    )
    out = src.with_name(f"out-{len(urls)}-{processes}.jsonl")
    clock = _Clock()
    start = time.perf_counter()
    summary = run_file(src, out, endpoint, restart=True, processes=processes, run_record=False, progress=clock)
    seconds = time.perf_counter() - start
    assert summary.finished == summary.records, summary.to_dict()
    tokens = summary.tokens["completion_tokens"]
    # steady state: from the first record finished to the last (start-up, clients and processes, left out)
    steady = clock.last - clock.first
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = {"parent_cpu": own.ru_utime + own.ru_stime, "workers_cpu": workers.ru_utime + workers.ru_stime}
    print(json.dumps({"records": summary.records, "tokens": tokens, "seconds": seconds, "steady": steady, **cpu}))


class _Clock:
    """A progress that notes when the first and the last record finished."""

    first = last = 0.0

    def start(self, total: int | None) -> None:
        pass

    def advance(self, *, error: bool = False, resumed: bool = False) -> None:
        self.last = time.perf_counter()
        self.first = self.first or self.last

    def stop(self) -> None:
        pass


def _measure(urls: list[str], src: Path, concurrency: int, processes: int = 1, stream: bool = False) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", "--src", str(src), "--concurrency", str(concurrency)]
    command += ["--processes", str(processes), *(["--stream"] if stream else []), "--urls", *urls]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"worker failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    # the first record's tokens came before the clock started: counted out
    result["rps"] = (result["records"] - 1) / result["steady"]
    result["tps"] = result["tokens"] * (result["records"] - 1) / result["records"] / result["steady"]
    result["whole_rps"] = result["records"] / result["seconds"]
    return result


def _replicas(tmp: Path, records: int, repeat: int) -> None:
    servers = [_serve("--capacity", "4", "--delay", "0.1") for _ in range(4)]
    try:
        urls = [url for _, url in servers]
        src = tmp / "replicas.jsonl"
        _write_set(src, records)
        runs = [(_measure(urls[:1], src, 8), _measure(urls, src, 8)) for _ in range(repeat)]
        one = max((r[0] for r in runs), key=lambda m: m["rps"])
        four = max((r[1] for r in runs), key=lambda m: m["rps"])
        print(f"replicas: {records} records, 4 servers each capped at 4 replies at once x 0.1 s (40 req/s)")
        print("  (steady state: first to last record finished; whole run, start-up included, in brackets)")
        print(f"  one --base-url    {one['rps']:7.1f} req/s  (baseline)       [{one['whole_rps']:.1f}]")
        ratio, whole = four["rps"] / one["rps"], four["whole_rps"] / one["whole_rps"]
        print(
            f"  four --base-url   {four['rps']:7.1f} req/s  {ratio:.2f}x (target 3.5x)"
            f"  [{four['whole_rps']:.1f}, {whole:.2f}x]"
        )
    finally:
        for server, _ in servers:
            server.kill()


def _processes(tmp: Path, records: int, repeat: int, counts: list[int]) -> None:
    server, url = _serve("--burst", "--pieces", "300", "--reply-chars", "300")
    try:
        src = tmp / "processes.jsonl"
        _write_set(src, records)
        runs = [[_measure([url], src, 32, n, stream=True) for n in counts] for _ in range(repeat)]
        best = [max((run[i] for run in runs), key=lambda m: m["tps"]) for i in range(len(counts))]
        print(f"processes: {records} records of 300 streamed tokens, server in burst mode, {os.cpu_count()} cores")
        print("  (steady-state tokens/s; whole run in brackets; CPU seconds of the run's process and of its workers;")
        print("   'per busiest CPU': tokens per CPU second of the busiest process, the rate with a core for each)")
        base = best[0]["tps"]
        base_cpu = _per_busiest_cpu(best[0], counts[0])
        for n, result in zip(counts, best, strict=True):
            whole = result["tokens"] / result["seconds"]
            per_cpu = _per_busiest_cpu(result, n)
            print(
                f"  --processes {n}   {result['tps']:9.0f} tokens/s  {result['tps'] / base:.2f}x"
                f"  [whole run {whole:.0f}]  CPU {result['parent_cpu']:.2f} s + workers {result['workers_cpu']:.2f} s"
                f"  per busiest CPU {per_cpu:.0f} tokens/s {per_cpu / base_cpu:.2f}x"
            )
        split = [r for n, r in zip(counts, best, strict=True) if n > 1]
        if split:
            share = split[0]["parent_cpu"] / (split[0]["parent_cpu"] + split[0]["workers_cpu"])
            print(f"  the run's own process does {share:.0%} of the CPU work with workers: with free cores, the")
            print(f"  speed-up is bounded near {1 / share:.1f}x (the workers' part spreads, the rest does not)")
    finally:
        server.kill()


def _per_busiest_cpu(result: dict[str, Any], processes: int) -> float:
    """Tokens per CPU second of the busiest process (workers share their work evenly)."""
    busiest = result["parent_cpu"] if processes == 1 else max(result["parent_cpu"], result["workers_cpu"] / processes)
    return float(result["tokens"] / busiest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", nargs="+", choices=["replicas", "processes"], default=["replicas", "processes"])
    parser.add_argument("--records", type=int, default=600, help="records of the replicas part")
    parser.add_argument("--streamed-records", type=int, default=1500, help="records of the processes part")
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 2, 3, 4], help="processes to measure")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--urls", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, default=8, help=argparse.SUPPRESS)
    parser.add_argument("--processes", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--stream", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.urls, args.src, args.concurrency, args.processes, args.stream)
        return
    with tempfile.TemporaryDirectory() as tmp:
        if "replicas" in args.part:
            _replicas(Path(tmp), args.records, args.repeat)
        if "processes" in args.part:
            _processes(Path(tmp), args.streamed_records, args.repeat, args.counts)


if __name__ == "__main__":
    main()
