"""Past one core: the requests of one run sent from several worker processes (``formatkit run --processes N``).

One Python process reads at most ~20k streamed tokens a second: parsing the events, not the network, is
the bound. :class:`ProcessClient` looks like one client to the runner (it has ``complete``), but each
request is handed to one of N worker processes, each with a client of its own (a share of the
concurrency and of ``rpm``), which sends it, reads the reply and hands the results back. The records,
the journal, the output and the progress bar stay in the one process that runs the job: a worker only
sends requests. A request goes to the worker with the fewest requests at work.

- A worker is ``python -m scoring._client.processes FD``: a fresh interpreter (no fork of a process
  with threads) talking over a socket pair in length-prefixed pickle frames. It is given a picklable
  factory of its client (``EndpointOptions.sender`` with its share) and a function that words a failure
  as a response's ``error``; such a failure comes back as :class:`~scoring._errors.ForwardedRequestError`
  holding that text, so a record's error reads the same whatever the number of processes.
- :class:`~scoring._errors.EndpointUnavailableError` in a worker comes back as itself (status, hint,
  cause, kind): the run stops as with one process. A worker that ends unexpectedly stops the run the
  same way (what finished is journaled).
- A worker that ends unexpectedly makes the others send nothing new (the run stops): what is bought
  twice on the rerun is at most what was in flight, ``--concurrency`` requests, as after ``kill -9`` of
  one process.
- Ctrl-C and SIGTERM are the parent's: workers ignore both, and :meth:`ProcessClient.stop_sending`
  tells them to send nothing new, so what is in flight still lands in the journal. A worker whose parent
  is gone sees its socket close and ends.
- Notes and notices (a long wait the server asked for, an endpoint dropped) come back to the parent,
  said once each.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring._client.pool import AnyClient, EndpointPool, EndpointReport
from scoring._client.reply import ChatResult
from scoring._errors import EndpointUnavailableError, ForwardedRequestError, RequestNotSent

__all__ = ["ProcessClient"]

#: Words a failure as a response's ``error``: ``explain(exc, scrub)``.
Explain = Callable[[BaseException, Callable[[str], str]], str]

_HEAD = struct.Struct("!I")
#: Seconds a worker gets to say what it did and end once asked to close.
_CLOSE_WAIT = 10.0


@dataclass
class _Worker:
    number: int
    process: subprocess.Popen[bytes]
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    pending: dict[int, asyncio.Future[tuple[Any, ...]]] = field(default_factory=dict)
    sent: int = 0
    stream: bool = True
    report: list[EndpointReport] | None = None
    reading: asyncio.Task[None] | None = None
    gone: BaseException | None = None

    def send(self, *frame: Any) -> None:
        data = pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)
        self.writer.write(_HEAD.pack(len(data)) + data)


class ProcessClient:
    """One client for the runner, N worker processes sending; see the module docstring.

    ``local`` is a client of the same endpoints that never sends: it names the model and endpoints,
    scrubs secrets and builds request bodies. ``factories``: one per worker, each building that
    worker's client (picklable). ``concurrency``: all workers' requests in flight together.
    """

    def __init__(
        self,
        local: AnyClient,
        factories: Sequence[Callable[[], AnyClient]],
        explain: Explain,
        *,
        concurrency: int,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        if not factories:
            raise ValueError("a process client needs at least one worker")
        self.local = local
        self.model = local.model
        self.endpoint = local.endpoint
        self.concurrency = concurrency
        self.processes = len(factories)
        self.on_notice: Callable[[str], None] = on_notice or local.on_notice
        self._factories = list(factories)
        self._explain = explain
        self._workers: list[_Worker] = []
        self._starting: asyncio.Task[None] | None = None
        self._stopping = False
        self._closing = False
        self._served: list[str] = []
        self._notes: list[str] = []
        self._ids = itertools.count()

    # -- what the runner reads, as from one client -------------------------------------------------------

    @property
    def endpoints(self) -> list[str]:
        return self.local.endpoints

    @property
    def requests_sent(self) -> int:
        return sum(worker.sent for worker in self._workers)

    @property
    def in_flight(self) -> int:
        """Requests handed to a worker and not yet answered (waiting there for a slot included)."""
        return sum(len(worker.pending) for worker in self._workers)

    @property
    def stream(self) -> bool:
        return self.local.stream and all(worker.stream for worker in self._workers)

    @property
    def notes(self) -> list[str]:
        return list(self._notes)

    @property
    def stopping(self) -> bool:
        return self._stopping

    def stop_sending(self) -> None:
        self._stopping = True
        for worker in self._workers:
            if worker.gone is None and not worker.writer.is_closing():
                worker.send("stop")

    def scrub(self, text: str) -> str:
        return self.local.scrub(text)

    def request_body(self, messages: list[dict[str, str]], params: dict[str, object]) -> dict[str, object]:
        return self.local.request_body(messages, params)

    def has_served(self, endpoint: str) -> bool:
        if endpoint not in self.local.endpoints:
            return False
        self._served.append(endpoint)
        for worker in self._workers:
            worker.send("served", endpoint)
        return True

    def report(self) -> list[EndpointReport] | None:
        """Per endpoint, what every worker's pool did, added up (None: the workers had one endpoint each)."""
        reports = [worker.report for worker in self._workers if worker.report is not None]
        if not reports:
            return None
        merged: list[EndpointReport] = []
        for rows in zip(*reports, strict=True):
            first = rows[0]
            merged.append(
                {
                    "base_url": first["base_url"],
                    "concurrency": sum(r["concurrency"] for r in rows),
                    "requests": sum(r["requests"] for r in rows),
                    "replies": sum(r["replies"] for r in rows),
                    "completion_tokens": sum(r["completion_tokens"] for r in rows),
                    "handed_on": sum(r["handed_on"] for r in rows),
                    "dropped": next((r["dropped"] for r in rows if r["dropped"]), None),
                    "set_aside": sum(r["set_aside"] for r in rows),
                }
            )
        return merged

    # -- sending -----------------------------------------------------------------------------------------

    async def complete(self, messages: list[dict[str, str]], params: dict[str, object]) -> list[ChatResult]:
        if self._stopping:
            raise RequestNotSent("not sent: the run is stopping")
        await self._start()
        alive = [worker for worker in self._workers if worker.gone is None]
        if not alive:
            raise next(w.gone for w in self._workers if w.gone is not None)
        worker = min(alive, key=lambda w: len(w.pending))
        number = next(self._ids)
        future: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()
        worker.pending[number] = future
        worker.send("ask", number, messages, params)
        try:
            kind, payload = await future
        finally:
            worker.pending.pop(number, None)
        if kind == "ok":
            results: list[ChatResult] = payload
            return results
        if kind == "down":
            message, fields = payload
            raise EndpointUnavailableError(message, **fields)
        if kind == "unsent":
            raise RequestNotSent(payload)
        raise ForwardedRequestError(payload)

    async def _start(self) -> None:
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._spawn())
        await asyncio.shield(self._starting)

    async def _spawn(self) -> None:
        for number, factory in enumerate(self._factories):
            parent, child = socket.socketpair()
            try:
                process = subprocess.Popen(
                    [sys.executable, "-m", "scoring._client.processes", str(child.fileno())],
                    pass_fds=(child.fileno(),),
                    stdin=subprocess.DEVNULL,
                )
            finally:
                child.close()
            reader, writer = await asyncio.open_unix_connection(sock=parent)
            worker = _Worker(number, process, reader, writer)
            worker.send("setup", factory, self._explain)
            for endpoint in self._served:
                worker.send("served", endpoint)
            if self._stopping:
                worker.send("stop")
            worker.reading = asyncio.ensure_future(self._read(worker))
            self._workers.append(worker)

    async def _read(self, worker: _Worker) -> None:
        try:
            while True:
                frame = await _read_frame(worker.reader)
                if frame is None:
                    break
                kind = frame[0]
                if kind == "notice":
                    self._note(frame[1], say=True)
                    continue
                sent, stream, notes = frame[-1]
                worker.sent, worker.stream = sent, stream
                for note in notes:
                    self._note(note)
                if kind == "report":
                    worker.report = frame[1]
                    continue
                future = worker.pending.get(frame[1])
                if future is not None and not future.done():
                    future.set_result((kind, frame[2]))
        except (ConnectionError, asyncio.IncompleteReadError, pickle.UnpicklingError, EOFError):
            pass
        if not self._closing:  # a worker ended on its own: the run stops, so the others send nothing new
            self.stop_sending()
        code = await asyncio.get_running_loop().run_in_executor(None, worker.process.wait)
        worker.gone = EndpointUnavailableError(
            f"worker process {worker.number + 1} of {self.processes} ended (exit code {code}) with "
            f"{len(worker.pending)} request(s) at work",
            hint="rerun: the run resumes from its journal; with fewer --processes if it happens again",
            kind="other",
        )
        for future in worker.pending.values():
            if not future.done():
                future.set_exception(worker.gone)

    def _note(self, text: str, *, say: bool = False) -> None:
        if say:
            self.on_notice(text)
            return
        if text not in self._notes:
            self._notes.append(text)

    # -- lifecycle ---------------------------------------------------------------------------------------

    async def aclose(self) -> None:
        self._closing = True
        if self._starting is not None:
            with contextlib.suppress(BaseException):
                await self._starting
        for worker in self._workers:
            if worker.gone is None:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    worker.send("close")
        for worker in self._workers:
            if worker.reading is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(worker.reading), _CLOSE_WAIT)
                except (asyncio.TimeoutError, asyncio.CancelledError):
                    worker.process.kill()
                    with contextlib.suppress(BaseException):
                        await worker.reading
            worker.writer.close()
        await self.local.aclose()

    async def __aenter__(self) -> ProcessClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def _read_frame(reader: asyncio.StreamReader) -> tuple[Any, ...] | None:
    try:
        head = await reader.readexactly(_HEAD.size)
    except asyncio.IncompleteReadError:
        return None
    (length,) = _HEAD.unpack(head)
    frame: tuple[Any, ...] = pickle.loads(await reader.readexactly(length))
    return frame


# -- the worker's side ---------------------------------------------------------------------------------


async def _serve(sock: socket.socket) -> None:
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    setup = await _read_frame(reader)
    if setup is None or setup[0] != "setup":
        return
    factory: Callable[[], AnyClient] = setup[1]
    explain: Explain = setup[2]
    client = factory()
    seen = 0

    def send(*frame: Any) -> None:
        data = pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)
        writer.write(_HEAD.pack(len(data)) + data)

    def state() -> tuple[int, bool, list[str]]:
        nonlocal seen
        notes = client.notes
        fresh, seen = notes[seen:], len(notes)
        return client.requests_sent, client.stream, fresh

    client.on_notice = lambda text: send("notice", text)

    async def ask(number: int, messages: list[dict[str, str]], params: dict[str, object]) -> None:
        try:
            results = await client.complete(messages, params)
        except EndpointUnavailableError as exc:
            fields = {"status": exc.status, "hint": exc.hint, "cause": exc.cause, "kind": exc.kind}
            send("down", number, (client.scrub(str(exc)), fields), state())
        except RequestNotSent as exc:
            send("unsent", number, str(exc), state())
        except Exception as exc:  # the record's error, worded here as the runner words it
            send("failed", number, explain(exc, client.scrub), state())
        else:
            send("ok", number, results, state())

    tasks: set[asyncio.Task[None]] = set()
    try:
        while True:
            frame = await _read_frame(reader)
            if frame is None:  # the parent is gone
                client.stop_sending()
                break
            kind = frame[0]
            if kind == "ask":
                task = asyncio.ensure_future(ask(frame[1], frame[2], frame[3]))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            elif kind == "stop":
                client.stop_sending()
            elif kind == "served":
                client.has_served(frame[1])
            elif kind == "close":
                client.stop_sending()
                for task in list(tasks):
                    with contextlib.suppress(BaseException):
                        await task
                send("report", client.report() if isinstance(client, EndpointPool) else None, state())
                await writer.drain()
                break
    finally:
        for task in list(tasks):
            task.cancel()
        await client.aclose()
        writer.close()


def main(argv: list[str]) -> None:
    """``python -m scoring._client.processes FD``: serve the parent on the socket ``FD``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop (Ctrl-C's grace)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sock = socket.socket(fileno=int(argv[0]))
    with contextlib.suppress(ConnectionError):
        asyncio.run(_serve(sock))
    os._exit(0)  # no atexit work: the parent holds the run


if __name__ == "__main__":
    main(sys.argv[1:])
