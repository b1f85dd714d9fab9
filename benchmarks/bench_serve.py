"""``formatkit serve`` under load (issue 37, item 6): what the HTTP layer costs, and how it holds 50 uploads at once.

    python benchmarks/bench_serve.py                       # both parts, the 1,000-row workbook
    python benchmarks/bench_serve.py --part overhead --runs 21
    python benchmarks/bench_serve.py --part load --clients 50 --uploads 4 --workers 1 2

**overhead**: the server-side time of ``POST /v1/validate`` on a 1,000-row workbook (1.5 KB a row, the
platform's limit), from the request's first byte in to the answer's last byte out, as measured inside the
ASGI application (a wrapper around it; the request, its body encoded beforehand, sent through httpx's ASGI
transport: no network and no client time is counted), against ``formatkit validate --json``'s work on the
same file in the same process (``check_files(...).document()``: reading, every rule, the JSON document; no
process start-up).
Interleaved, medians of wall time and of the process's CPU time (steadier on a shared machine);
target within 1.3x.

**load**: ``formatkit serve --workers N`` (its defaults otherwise: checks at once = cores per worker, a
check waits up to 10 s for a slot, then 503 with Retry-After) on a loopback port; ``clients`` clients
(httpx's async client, one each) upload the workbook at once, each ``uploads`` times in a row. Every answer's
status is counted (the target: each one 200, or 503 with Retry-After; nothing else); throughput is the files
answered 200 per second, from the first request sent to the last answer; p50/p95 are the latencies of those
answers; the server's peak memory is the largest sum of the resident sizes of its processes (parent and
workers, /proc, sampled every 50 ms), beside the sum of each process's own peak (VmHWM), an upper bound.
The clients share the machine with the server: on 2 cores they take part of the CPU the server would have.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_formats import DATA, make_rows, write_xlsx  # noqa: E402

ROWS = 1000
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def workbook(rows: int) -> Path:
    path = DATA / f"serve_{rows}.xlsx"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        write_xlsx(path, make_rows(rows))
    return path


# --- overhead ---------------------------------------------------------------------------------------------


class Timed:
    """An ASGI wrapper that records each HTTP request's server-side time, first call to last body sent: wall
    time, and the process's CPU time (all its threads: the check runs in a worker thread)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.spent: list[tuple[float, float]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start, cpu = time.perf_counter(), time.process_time()

        async def sending(message: dict[str, Any]) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self.spent.append((time.perf_counter() - start, time.process_time() - cpu))

        await self.app(scope, receive, sending)


def _multipart(path: Path) -> tuple[bytes, str]:
    """The upload's body, made once: the client's encoding is then no part of what is timed."""
    request = httpx.Request("POST", "http://bench/", files={"file": (path.name, path.read_bytes())})
    return request.read(), request.headers["content-type"]


async def _overhead(path: Path, runs: int) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    from formatkit import check_files
    from formatkit.serve import Settings, create_app

    timed = Timed(create_app(Settings()))
    body, kind = _multipart(path)
    local: list[tuple[float, float]] = []
    transport = httpx.ASGITransport(app=timed)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for run in range(runs + 1):  # the first of each is a warm-up (imports, caches)
            answer = await client.post("/v1/validate", content=body, headers={"content-type": kind})
            assert answer.status_code == 200, answer.text
            start, cpu = time.perf_counter(), time.process_time()
            document = check_files([path]).document("en")
            took = (time.perf_counter() - start, time.process_time() - cpu)
            assert document.replace(f"{path.parent}/", "") == answer.text  # the same document, named as uploaded
            if run:
                local.append(took)
    return timed.spent[1:], local


def part_overhead(path: Path, runs: int, rows: int) -> None:
    served, local = asyncio.run(_overhead(path, runs))
    print(f"\n== overhead: POST /v1/validate vs validate --json's work, {rows:,} rows, medians of {runs} interleaved")
    for index, what in ((0, "wall"), (1, "CPU")):
        s = [t[index] for t in served]
        v = [t[index] for t in local]
        ms, mv = statistics.median(s), statistics.median(v)
        print(
            f"   {what:4}: server-side {ms * 1000:.0f} ms (p10-p90 {_q(s, 0.1):.0f}-{_q(s, 0.9):.0f}),"
            f" in-process {mv * 1000:.0f} ms (p10-p90 {_q(v, 0.1):.0f}-{_q(v, 0.9):.0f}):"
            f" ratio {ms / mv:.2f}x (target <= 1.3x)"
        )


def _q(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


# --- load -------------------------------------------------------------------------------------------------


def _tree(root: int) -> list[int]:
    """The server's processes: those of its process group (it is started in a session of its own)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == root:  # pgrp
            found.append(int(entry))
    return found


def _status_kb(pid: int, key: str) -> int:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    match = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
    return int(match.group(1)) if match else 0


class Sampler(threading.Thread):
    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peak_kb = 0
        self.hwm_kb: dict[int, int] = {}
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            pids = _tree(self.root)
            self.peak_kb = max(self.peak_kb, sum(_status_kb(p, "VmRSS") for p in pids))
            for pid in pids:
                self.hwm_kb[pid] = max(self.hwm_kb.get(pid, 0), _status_kb(pid, "VmHWM"))
            self.stopped.wait(0.05)


def _start(workers: int, log: Path, extra: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    formatkit = shutil.which("formatkit", path=str(Path(sys.executable).parent)) or "formatkit"
    out = log.open("wb")
    process = subprocess.Popen(
        [formatkit, "serve", "--port", "0", "--workers", str(workers), *extra],
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    url = None
    while time.monotonic() < deadline:
        match = re.search(r"Uvicorn running on (http://\S+):(\d+)", log.read_text(errors="replace"))
        if match:
            url = f"http://127.0.0.1:{match.group(2)}"
            try:
                if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                    return process, url
            except httpx.TransportError:
                pass
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGKILL)
    raise SystemExit(f"the server did not start:\n{log.read_text(errors='replace')}")


async def _clients(
    url: str, data: bytes, name: str, clients: int, uploads: int
) -> tuple[list[tuple[int, bool, float]], float]:
    results: list[tuple[int, bool, float]] = []
    ready = asyncio.Event()

    async def one() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(600.0)) as client:
            await ready.wait()
            for _ in range(uploads):
                start = time.perf_counter()
                try:
                    answer = await client.post("/v1/validate", files={"file": (name, data)})
                    status, retry = answer.status_code, "retry-after" in answer.headers
                except httpx.HTTPError:
                    status, retry = -1, False  # no answer at all
                results.append((status, retry, time.perf_counter() - start))

    tasks = [asyncio.create_task(one()) for _ in range(clients)]
    await asyncio.sleep(0.2)  # every client open before the first upload goes
    start = time.perf_counter()
    ready.set()
    await asyncio.gather(*tasks)
    return results, time.perf_counter() - start


def part_load(path: Path, clients: int, uploads: int, workers: int, rows: int, extra: list[str]) -> None:
    data = path.read_bytes()
    with tempfile.TemporaryDirectory() as folder:
        process, url = _start(workers, Path(folder) / "server.log", extra)
        sampler = Sampler(process.pid)
        sampler.start()
        load_before = os.getloadavg()[0]
        try:
            results, wall = asyncio.run(_clients(url, data, path.name, clients, uploads))
        finally:
            sampler.stopped.set()
            sampler.join()
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
    statuses: dict[str, int] = {}
    for status, retry, _ in results:
        key = f"{status}" + ("+Retry-After" if status == 503 and retry else "")
        statuses[key] = statuses.get(key, 0) + 1
    ok = sorted(t for s, _, t in results if s == 200)
    other = {k: v for k, v in statuses.items() if k not in ("200", "503+Retry-After")}
    command = " ".join(["formatkit serve --workers", str(workers), *extra])
    print(f"\n== load: {command}, {clients} clients x {uploads} uploads of {rows:,} rows")
    print(f"   load average before {load_before:.1f}; {os.cpu_count()} CPUs")
    print(f"   answers {dict(sorted(statuses.items()))}; other statuses: {other or 'none'}")
    if ok:
        print(f"   throughput {len(ok) / wall:.2f} files/s (200s over {wall:.1f} s)")
        print(f"   latency p50 {_q(ok, 0.5) / 1000:.2f} s, p95 {_q(ok, 0.95) / 1000:.2f} s, max {ok[-1]:.2f} s")
    print(
        f"   server peak memory {sampler.peak_kb / 1024:.0f} MiB (sum of RSS, sampled); "
        f"sum of each process's peak {sum(sampler.hwm_kb.values()) / 1024:.0f} MiB "
        f"over {len(sampler.hwm_kb)} processes (target < 600 MB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("overhead", "load", "both"), default="both")
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--runs", type=int, default=15, help="interleaved runs of the overhead part")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--uploads", type=int, default=1, help="uploads each client makes, one after the other")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--queue-wait", type=float, help="formatkit serve's --queue-wait (default its own, 10 s): lower it to see 503s"
    )
    args = parser.parse_args()
    path = workbook(args.rows)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; {path.name}: {path.stat().st_size / 1024:.0f} KiB")
    if args.part in ("overhead", "both"):
        part_overhead(path, args.runs, args.rows)
    if args.part in ("load", "both"):
        for workers in args.workers:
            extra = [] if args.queue_wait is None else ["--queue-wait", f"{args.queue_wait:g}"]
            part_load(path, args.clients, args.uploads, workers, args.rows, extra)


if __name__ == "__main__":
    main()
