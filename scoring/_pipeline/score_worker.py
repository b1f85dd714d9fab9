"""A scoring worker process: ``python -m scoring._pipeline.score_worker`` (started by :mod:`score_workers`).

It is a fresh interpreter started on this module, never a fork or a ``multiprocessing`` spawn, so a
user's script (a ``__main__`` without a guard) is never imported again in it. It talks to its parent over
its standard input and output in length-prefixed pickle frames (its own parent only: nothing else writes
to these pipes); anything the metrics print goes to standard error.

1. The parent sends the set-up: ``sys.path``, the metric, the default dataset, the math time limit, and
   for ``auto`` every dataset's reference kinds (the first pass, done by the parent).
2. Then batches of canonical jsonl lines. For each, the worker scores every record with a
   :class:`~scoring._pipeline.score.Scorer` like the parent's and answers the scored lines (one bytes
   object), the batch's per-dataset totals and the metrics ``auto`` chose in it (so the parent's totals
   are exactly one worker's).
3. ``None`` ends it. An exception is answered as ``("error", text)`` and ends it too.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import sys
import traceback
from collections import Counter
from typing import IO, TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from scoring._metrics.auto import AutoTally

_HEADER = struct.Struct("<Q")


def send(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError("the other side closed the pipe")
    (size,) = _HEADER.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other side closed the pipe mid-frame")
    return pickle.loads(data)


class WorkerSetup(TypedDict):
    """What the parent sends a worker first: its import path, and the scorer's settings and ``auto`` tallies."""

    sys_path: list[str]
    metric: str
    default_dataset: str
    declared: dict[str, str]
    math_timeout: float
    tallies: dict[str, AutoTally]


def _serve(inbox: IO[bytes], outbox: IO[bytes]) -> None:
    setup: WorkerSetup = receive(inbox)
    sys.path[:] = setup["sys_path"]

    import orjson

    from formatkit._core.writers import dumps_line
    from scoring._metrics.math.sympy_guard import SympyGuard
    from scoring._pipeline.score import Scorer

    guard = SympyGuard(timeout=setup["math_timeout"])
    try:
        scorer = Scorer(
            metric=setup["metric"], default_dataset=setup["default_dataset"], guard=guard, declared=setup["declared"]
        )
        scorer.tallies = setup["tallies"]
        while (batch := receive(inbox)) is not None:
            out = bytearray()
            for line in batch:
                out += dumps_line(scorer.score_record(orjson.loads(line)))
            chosen = {name: tally.chosen for name, tally in scorer.tallies.items() if tally.chosen}
            send(outbox, (bytes(out), scorer.stats, chosen))
            scorer.stats = {}
            for tally in scorer.tallies.values():
                tally.chosen = Counter()
    finally:
        guard.close()


def main() -> None:
    inbox = os.fdopen(os.dup(0), "rb")
    outbox = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a metric prints goes to stderr, never into the frames
    sys.stdout = sys.stderr
    try:
        _serve(inbox, outbox)
    except EOFError:
        pass  # the parent went away: nothing to answer
    except BaseException:
        with contextlib.suppress(OSError):
            send(outbox, ("error", traceback.format_exc()))


if __name__ == "__main__":
    main()
