"""``score --workers N``: rule metrics scored by N worker processes, the output in input order, byte for byte
what one process writes.

The parent reads and validates the input as one process does (the same records, the same issues); the
records go to the workers in batches as canonical jsonl lines, batch ``i`` to worker ``i mod N``, and the
scored lines come back and are written in batch order. Each batch's per-dataset totals come back with it
and are added up in order, so the summary, the intervals and ``auto``'s choices are exactly one
process's. ``auto`` needs every dataset's references before it scores (its first pass): the parent makes
that pass and keeps the validated records in a spool file beside the output (removed at the end), which
the workers' batches are then read from, so the input is read and validated once, not twice.

Workers are fresh interpreters started on :mod:`scoring._pipeline.score_worker` (with this process's import
path, see :func:`formatkit._core.interpreter.worker_command`): never a
fork of this process and never a ``multiprocessing`` spawn, so a user's script that calls the library
without a ``__main__`` guard is not run again in each worker. A worker that fails stops the whole run
(nothing is written); every worker is ended when the call returns.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
import tempfile
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from formatkit._core.interpreter import worker_command
from formatkit._core.record import RecordDict
from formatkit._core.writers import dumps_line
from scoring._errors import ScoringWorkerError
from scoring._metrics.registry import AUTO
from scoring._pipeline.score import Scorer
from scoring._pipeline.score_worker import WorkerSetup, receive, send
from scoring._report.figures.aggregate import DatasetStats

__all__ = ["BATCH", "ScoringWorkerError", "merge_stats", "score_in_workers"]

#: Records per batch: large enough that the pipes cost little, small enough to keep memory flat.
BATCH = 2000


def merge_stats(into: dict[str, DatasetStats], batch: dict[str, DatasetStats]) -> None:
    """Add a batch's per-dataset totals to ``into``, as if its records had been added one by one after
    those already counted: counts summed, per-record lists extended, ``max_*`` the larger, labels kept."""
    for name, stats in batch.items():
        mine = into.get(name)
        if mine is None:
            into[name] = stats
            continue
        for spec in dataclasses.fields(DatasetStats):
            theirs = getattr(stats, spec.name)
            ours = getattr(mine, spec.name)
            if isinstance(ours, bool) or theirs is None:
                continue
            if ours is None:
                setattr(mine, spec.name, theirs)
            elif spec.name.startswith("max_"):
                setattr(mine, spec.name, max(ours, theirs))
            elif isinstance(ours, (int, float)):
                setattr(mine, spec.name, ours + theirs)
            elif isinstance(ours, list):
                ours.extend(theirs)
            elif isinstance(ours, dict):
                for key, value in theirs.items():
                    ours[key] = ours.get(key, 0) + value


def _batches(lines: Iterable[bytes]) -> Iterator[list[bytes]]:
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


class _Pool:
    """N worker processes, one batch at work in each; results read back in the order batches were given.

    One thread does everything (no feeder thread fighting the parsing for the GIL): batch ``b`` goes to
    worker ``b mod N`` once that worker's previous batch (``b - N``, the oldest at work) has been read
    back and written, so a worker is always reading when it is sent a batch and the parent always reads
    the answer it waits for: the pipes cannot deadlock.
    """

    def __init__(self, workers: int, setup: WorkerSetup) -> None:
        # this process's import path, not the current folder's (a user's scoring.py there was run)
        command = worker_command("scoring._pipeline.score_worker", "main()")
        self.procs: list[subprocess.Popen[bytes]] = []
        for _ in range(workers):
            proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self.procs.append(proc)
            _widen(proc)
        for index in range(workers):
            self._send(index, setup)

    def _send(self, index: int, item: Any) -> None:
        stdin = self.procs[index].stdin
        assert stdin is not None
        try:
            send(stdin, item)
        except OSError:
            self._receive(index)  # the worker died: its answer (or its silence) says why
            raise ScoringWorkerError(f"scoring worker {index + 1} stopped reading") from None

    def _receive(self, index: int) -> tuple[bytes, dict[str, DatasetStats], dict[str, Counter[str]]]:
        stdout = self.procs[index].stdout
        assert stdout is not None
        try:
            answer = receive(stdout)
        except EOFError:
            raise ScoringWorkerError(f"scoring worker {index + 1} ended without an answer") from None
        if isinstance(answer, tuple) and len(answer) == 2 and answer[0] == "error":
            lines = [line for line in str(answer[1]).rstrip().splitlines() if line.strip(" ^~")]
            where = "\n".join(lines[-3:])  # the failing frame and the error
            raise ScoringWorkerError(f"scoring worker {index + 1} failed:\n{where}")
        return answer  # type: ignore[no-any-return]

    def run(
        self,
        batches: Iterable[list[bytes]],
        take: Callable[[tuple[bytes, dict[str, DatasetStats], dict[str, Counter[str]]]], None],
    ) -> None:
        count = len(self.procs)
        at_work: deque[int] = deque()
        for number, batch in enumerate(batches):
            worker = number % count
            if len(at_work) == count:
                take(self._receive(at_work.popleft()))  # worker ``worker``'s previous batch, the oldest
            self._send(worker, batch)
            at_work.append(worker)
        while at_work:
            take(self._receive(at_work.popleft()))
        for index in range(count):
            self._send(index, None)

    def close(self) -> None:
        for proc in self.procs:
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
            if proc.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=2)  # told to stop (or its input closed): it leaves
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


def _widen(proc: subprocess.Popen[bytes]) -> None:
    """Linux: 1 MiB pipes, so a worker writes a batch's answer without waiting for the parent to read."""
    try:
        import fcntl

        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                fcntl.fcntl(stream.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ
    except (ImportError, OSError):
        pass


def _spool_path(out: Path) -> Path:
    handle, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".spool", dir=out.parent)
    os.close(handle)
    return Path(name)


def _read_lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        yield from handle


def score_in_workers(
    records: Callable[[], Iterator[RecordDict]],
    handle: IO[bytes],
    scorer: Scorer,
    workers: int,
    math_timeout: float,
    output: Path,
) -> None:
    """Score every record of ``records()`` into ``handle`` (the file being written to ``output``) with
    ``workers`` processes; ``scorer`` ends with the totals (and ``auto``'s choices) one process would have."""
    spool: Path | None = None
    try:
        if scorer.metric == AUTO:
            spool = _spool_path(output)
            with open(spool, "wb") as sink:

                def spooled() -> Iterator[RecordDict]:
                    for record in records():
                        sink.write(dumps_line(record))
                        yield record

                scorer.prepare(spooled())
            lines: Iterable[bytes] = _read_lines(spool)
        else:
            lines = (dumps_line(record) for record in records())
        setup: WorkerSetup = {
            "sys_path": list(sys.path),
            "metric": scorer.metric,
            "default_dataset": scorer.default_dataset,
            "declared": dict(scorer.declared),
            "math_timeout": math_timeout,
            "tallies": scorer.tallies,
        }

        def take(answer: tuple[bytes, dict[str, DatasetStats], dict[str, Counter[str]]]) -> None:
            scored, stats, chosen = answer
            handle.write(scored)
            merge_stats(scorer.stats, stats)
            for name, counts in chosen.items():
                scorer.tallies[name].chosen.update(counts)

        pool = _Pool(workers, setup)
        try:
            pool.run(_batches(lines), take)
        finally:
            pool.close()
    finally:
        if spool is not None:
            spool.unlink(missing_ok=True)
