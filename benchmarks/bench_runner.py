"""Runner throughput and memory against a local endpoint that answers instantly.

    /work/venv/bin/python benchmarks/bench_runner.py [--records 5000] [--big 20000] [--concurrency 1 8 64 256]
        [--modes streamed plain]

The fake OpenAI server (tests/fakeserver.py) runs in its own process, so it does not share the client's
GIL. Every measurement runs in a fresh worker process (so peak RSS is its own):

- ``formatkit``: :class:`scoring._runner.job.RunJob` over a jsonl set, journal on (each finished record
  appended and flushed), reading the input, running, and writing OUT atomically: the whole ``run`` minus
  the validation pass.
- ``openai``: the official SDK's ``AsyncOpenAI`` (its default connection pool, retries off so both send
  exactly one request per record) driven by an ``asyncio.Semaphore`` at the same concurrency, records
  held in a list, replies discarded: the bare loop a user would write.

Both modes are measured: ``streamed`` (formatkit's default: SSE with usage in the stream; the SDK with
``stream=True, stream_options={"include_usage": True}``, every chunk read) and ``plain`` (formatkit
``--no-stream``; the SDK's ordinary call). The fake server sends a streamed reply as 3 content pieces.

Each cell is the best of ``--repeat`` interleaved runs (a shared machine is noisy). Then peak RSS of
the formatkit worker for ``--records`` vs ``--big`` records shows that memory does not grow with the
number of records. Needs the ``bench`` extra (``openai``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
            line = {
                "system": "请完成下面的计算题",
                "prompt": f"问题 {i}: {i}+1 等于几？",
                "answer": str(i + 1),
                "parameters": {"temperature": 0.7, "max_tokens": 64},
            }
            handle.write(orjson.dumps(line) + b"\n")


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


async def _ours(url: str, src: Path, concurrency: int, stream: bool) -> dict[str, Any]:
    from formatkit._api.validate import iter_dicts
    from scoring._client.http import ChatClient, Dialect, Limits, RetryPolicy
    from scoring._runner.job import RunJob
    from scoring._runner.runner import Runner

    out = src.with_name(f"out-{concurrency}.jsonl")
    limits, retry, dialect = Limits(concurrency=concurrency), RetryPolicy(max_retries=0), Dialect(stream=stream)
    async with ChatClient(url, "bench", limits=limits, retry=retry, dialect=dialect) as client:
        job = RunJob(Runner(client), lambda: iter_dicts(src, mode="infer-eval", profile="none"), out, restart=True)
        start = time.perf_counter()
        summary = await job.run()
        seconds = time.perf_counter() - start
    assert summary.finished == summary.records, summary
    return {"requests": summary.requests, "seconds": seconds}


async def _sdk(url: str, src: Path, concurrency: int, stream: bool) -> dict[str, Any]:
    import orjson
    from openai import AsyncOpenAI

    records = [orjson.loads(line) for line in src.read_bytes().splitlines()]
    semaphore = asyncio.Semaphore(concurrency)
    client = AsyncOpenAI(base_url=url, api_key="not-needed", max_retries=0)

    async def one(line: dict[str, Any]) -> None:
        messages: list[Any] = [
            {"role": "system", "content": line["system"]},
            {"role": "user", "content": line["prompt"]},
        ]
        async with semaphore:
            if not stream:
                reply = await client.chat.completions.create(model="bench", messages=messages, **line["parameters"])
                assert reply.choices[0].message.content is not None
                return
            chunks = await client.chat.completions.create(
                model="bench",
                messages=messages,
                stream=True,
                stream_options={"include_usage": True},
                **line["parameters"],
            )
            pieces = []
            async for chunk in chunks:
                if chunk.choices and chunk.choices[0].delta.content:
                    pieces.append(chunk.choices[0].delta.content)
        assert "".join(pieces)

    start = time.perf_counter()
    await asyncio.gather(*(one(line) for line in records))
    seconds = time.perf_counter() - start
    await client.close()
    return {"requests": len(records), "seconds": seconds}


def _worker(kind: str, url: str, src: Path, concurrency: int, stream: bool) -> None:
    runner = _ours if kind == "formatkit" else _sdk
    result = asyncio.run(runner(url, src, concurrency, stream))
    result["peak_rss_mb"] = _peak_rss_mb()
    print(json.dumps(result))


def _measure(kind: str, url: str, src: Path, concurrency: int, stream: bool = False) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            kind,
            "--url",
            url,
            "--src",
            str(src),
            "--concurrency",
            str(concurrency),
            *(["--stream"] if stream else []),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{kind} worker failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["rps"] = result["requests"] / result["seconds"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--big", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64, 256])
    parser.add_argument("--memory-concurrency", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--modes", nargs="+", choices=["streamed", "plain"], default=["streamed", "plain"])
    parser.add_argument("--skip-memory", action="store_true", help="only the throughput tables")
    parser.add_argument("--stream", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker", choices=["formatkit", "openai"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker, args.url, args.src, args.concurrency[0], args.stream)
        return

    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fakeserver.py")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            small, big = Path(tmp) / "small.jsonl", Path(tmp) / "big.jsonl"
            _write_set(small, args.records)
            _write_set(big, args.big)
            _measure("formatkit", url, small, 8)  # warm-up (imports, page cache)
            print(
                f"{args.records} records, server answering instantly in its own process ({url}), "
                f"best of {args.repeat} interleaved runs"
            )
            for mode in args.modes:
                stream = mode == "streamed"
                print()
                print(f"{mode}:")
                print(
                    f"{'concurrency':>11} | {'formatkit req/s':>15} | {'openai SDK req/s':>16} | {'ratio':>5} | "
                    f"{'fk peak RSS MB':>14} | {'SDK peak RSS MB':>15}"
                )
                print("-" * 92)
                for concurrency in args.concurrency:
                    # Interleaved, best of --repeat: the machine's noise hits both sides alike.
                    runs = [
                        (
                            _measure("formatkit", url, small, concurrency, stream),
                            _measure("openai", url, small, concurrency, stream),
                        )
                        for _ in range(args.repeat)
                    ]
                    ours = max((r[0] for r in runs), key=lambda m: m["rps"])
                    sdk = max((r[1] for r in runs), key=lambda m: m["rps"])
                    print(
                        f"{concurrency:>11} | {ours['rps']:>15.0f} | {sdk['rps']:>16.0f} | "
                        f"{ours['rps'] / sdk['rps']:>5.2f} | {ours['peak_rss_mb']:>14.1f} | "
                        f"{sdk['peak_rss_mb']:>15.1f}"
                    )
            if args.skip_memory:
                return
            c = args.memory_concurrency
            few = _measure("formatkit", url, small, c)
            many = _measure("formatkit", url, big, c)
            print()
            print(
                f"formatkit peak RSS at concurrency {c}: {args.records} records {few['peak_rss_mb']:.1f} MB "
                f"({few['rps']:.0f} req/s), {args.big} records {many['peak_rss_mb']:.1f} MB "
                f"({many['rps']:.0f} req/s)"
            )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
