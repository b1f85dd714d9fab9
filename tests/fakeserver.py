"""A small OpenAI-compatible chat server for tests and benchmarks, on 127.0.0.1 only.

It speaks just enough HTTP/1.1 (keep-alive, Content-Length bodies) over asyncio streams in a background
thread, so hundreds of concurrent connections cost nothing. Replies are deterministic: the assistant
echoes the last user message (sample ``i`` of ``n`` gets `` #i`` appended), and usage counts characters.

    server = FakeOpenAI().start()
    server.base_url                       # "http://127.0.0.1:PORT/v1"
    server.responder = lambda body: "2"   # script replies: a str is the content, a dict the whole body
    server.inject([Fault("429", retry_after=0.1), Fault("500"), Fault("close")])   # next requests, in order
    server.rules.append(lambda body: Fault("400") if "bad" in last_user(body) else None)   # per request
    server.reasoning = "reasoning_content"   # or "reasoning": add a reasoning text to every reply
    server.delay = 0.05                   # seconds before every normal reply (to make requests overlap)
    server.requests, server.max_in_flight, server.bodies, server.auth_headers   # what came in
    server.headers, server.paths          # every request's headers (lower-case names) and path with query
    server.api_key = "sk-..."             # demand this key: any other gets a 401 echoing it half-masked,
                                          # as OpenAI does ("Incorrect API key provided: sk-proj-****...")
    server.go_down()                      # stop listening: connections are refused from now on
    server.capacity = 4; server.delay = 0.02   # a replica capped at 4 replies at once (the rest queue): 200/s
    server.burst = True                   # a streamed reply written in one piece (a server faster than a client)
    server.hold_after(8); server.release()   # answer 8 more requests, hold the later ones (silent) until released
    server.stop(); FakeOpenAI().start(port)   # ... and come back on the same port

Streaming: a request with ``"stream": true`` gets its reply as server-sent events (chunked), the content
in ``stream_pieces`` pieces, then the finish chunk, a usage chunk when ``stream_options.include_usage``,
and ``data: [DONE]``; ``server.refuse_stream = "message"`` answers such requests 400 with that message
instead (a server without streaming), ``server.ignore_stream = True`` answers plain JSON.
``server.usage = {...}`` is the ``usage`` of every reply instead of the counted one (a server that
sends a negative count).

Fault kinds: ``"429"`` (with ``retry_after`` seconds or an HTTP date), ``"500"``/``"502"``/``"503"``,
``"close"`` (socket closed with no reply), ``"partial"`` (connection cut in the middle of the body),
``"slow"`` (reply after ``delay`` seconds, to trip the client's timeout), ``"drip"`` (the reply trickled
out a byte every ``delay`` seconds: each read is quick, the whole is not), ``"truncated"`` (a 200 whose
body is cut JSON), ``"empty"`` (a 200 with no choices), and any 4xx such as ``"400"``, ``"401"``,
``"404"``, ``"422"`` with ``message`` as the endpoint's error message; ``"ok"`` is a normal reply (to
script a success between faults). ``retry_after_ms`` sends a
``retry-after-ms`` header (OpenAI's and Azure's) with a 429 or 5xx; ``headers`` adds any others
(``llm_provider-retry-after``, ``x-ratelimit-reset-requests: 1m30s``). Streaming faults: ``"trickle"``
(the stream's pieces ``delay`` seconds apart: never silent long, slow as a whole), ``"stall"`` (the
stream starts, then says nothing for ``delay`` seconds before going on), ``"stream_error"`` (a
``data: {"error": ...}`` chunk after the first piece), ``"cut"`` (the connection closed mid-stream).

Byte-level faults (a gateway or proxy that misbehaves below the JSON): ``"ping"`` (the stream starts, then
only SSE keep-alive comments ``: ping`` every ``delay`` seconds, as a gateway sends while its upstream is
stuck; the connection is dropped after ``size`` seconds, 60 by default), ``"after_done"`` (a complete
stream, then more ``data:`` lines and comments after ``data: [DONE]`` and the connection never ended),
``"gzip"`` (a 200 sent with ``Content-Encoding: gzip`` whose body unpacks to ``size`` bytes: the reply
padded with JSON whitespace, a compression bomb), ``"long_line"`` (a stream whose one content chunk is a
single SSE line of ``size`` bytes, written 64 KiB at a time), ``"big_error"`` (a 500 whose body is ``size``
bytes; ``server.bytes_sent`` says how much of it the client let through before hanging up).

A sick replica (a host that misbehaves below HTTP): ``"reset"`` (the request is read, then the connection
is reset: a TCP RST, no reply), ``"silent"`` (the request is read and nothing is ever sent back; the
connection stays open ``delay`` seconds, an hour by default), ``"trickle_bytes"`` (a streamed reply, or a
plain one, sent one byte every ``delay`` seconds: never silent long, never done). A replica sick for good
is ``server.rules.append(lambda body: Fault("reset"))``.

Run ``python tests/fakeserver.py`` to serve in the foreground (the benchmark does, in its own process);
it prints the base URL on its first line of output.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import socket
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = ["FakeOpenAI", "Fault", "last_user"]

Responder = Callable[[dict[str, Any]], "str | dict[str, Any]"]
Rule = Callable[[dict[str, Any]], "Fault | None"]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass
class Fault:
    """One scripted misbehaviour (see the module docstring for the kinds)."""

    kind: str
    retry_after: float | str | None = None
    delay: float = 0.0
    message: str | None = None
    retry_after_ms: float | None = None
    headers: dict[str, str] | None = None
    size: int = 0


def last_user(body: dict[str, Any]) -> str:
    """The content of the last user message of a request body."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content", ""))
    return ""


def _prompt_tokens(body: dict[str, Any]) -> int:
    """The server's own token count of a body's messages: one token per character of content."""
    return sum(len(str(m.get("content", ""))) for m in body.get("messages") or [])


class FakeOpenAI:
    """The server; see the module docstring."""

    def __init__(self, *, keep_bodies: bool = True) -> None:
        self.keep_bodies = keep_bodies
        self.responder: Responder | None = None
        self.rules: list[Rule] = []
        self.reasoning: str | None = None
        self.delay = 0.0
        self.api_key: str | None = None
        self.stream_pieces = 3
        self.refuse_stream: str | None = None
        self.ignore_stream = False
        #: At most this many replies made at once (None: no cap); the others queue, as on a busy replica.
        self.capacity: int | None = None
        #: Write a normal streamed reply's events in one write, not one drain per event.
        self.burst = False
        self._slots: asyncio.Semaphore | None = None
        #: When set, the ``usage`` of every reply (plain or streamed) instead of the counted one.
        self.usage: dict[str, Any] | None = None
        #: Serve vLLM's ``POST /tokenize`` beside ``/v1`` (counting as ``usage`` does); its calls are counted in
        #: ``tokenize_requests``, never in ``requests`` (they buy no completion).
        self.tokenize = False
        self.tokenize_requests = 0
        #: When set, the ``count`` every tokenize reply says, whatever it is (-5, 10**18, true: a hostile route).
        self.tokenize_count: Any = None
        self._faults: collections.deque[Fault] = collections.deque()
        self._lock = threading.Lock()
        self._released = threading.Event()
        self.reset()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- control -----------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reset(self) -> None:
        """Forget counters, bodies and pending faults."""
        with self._lock:
            self.requests = 0
            self.in_flight = 0
            self.max_in_flight = 0
            self.bodies: list[dict[str, Any]] = []
            self.auth_headers: list[str | None] = []
            self.headers: list[dict[str, str]] = []
            self.paths: list[str] = []
            self.faults_served: list[str] = []
            self.bytes_sent = 0
            self._faults.clear()
            self._hold_after: int | None = None
        self._released.set()

    def hold_after(self, count: int) -> None:
        """Answer the next ``count`` requests, then hold every later one, sending nothing back, until
        :meth:`release`: a test can act while requests are surely in flight, however slow the machine."""
        with self._lock:
            self._hold_after = self.requests + count
            self._released.clear()

    def release(self) -> None:
        """Let the held requests go on (thread-safe); later ones are no longer held."""
        with self._lock:
            self._hold_after = None
        self._released.set()

    def inject(self, faults: list[Fault]) -> None:
        """Queue faults: the next requests get them, one each, in order; then normal replies resume."""
        self._faults.extend(faults)

    @property
    def pending_faults(self) -> int:
        return len(self._faults)

    def go_down(self) -> None:
        """Stop listening and drop every connection: from now on connections are refused (thread-safe)."""
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(self._go_down)

    def _go_down(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()

    def start(self, port: int = 0) -> FakeOpenAI:
        """Serve in a background thread on ``port`` (0: a free one)."""
        self.port = port
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), name="fake-openai", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("fake server did not start")
        return self

    def stop(self) -> None:
        self._released.set()
        loop = self._loop
        if loop is None or self._thread is None:
            return
        loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._shutdown()))
        self._thread.join(10)
        self._loop = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving -----------------------------------------------------------------------------------------

    def _run(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        loop.run_until_complete(self._listen(self.port))
        ready.set()
        loop.run_forever()
        loop.close()

    async def _listen(self, port: int = 0) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", port, backlog=2048)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.sleep(0)
        asyncio.get_running_loop().stop()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = ([*lines[0].split(" "), "", ""])[:3]
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(length) if length else b""
                keep = await self._respond(method, path, headers, raw, writer)
                if not keep or headers.get("connection", "").lower() == "close":
                    return
        except (asyncio.CancelledError, ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._tasks.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _respond(
        self, method: str, path: str, headers: dict[str, str], raw: bytes, writer: asyncio.StreamWriter
    ) -> bool:
        if self.tokenize and method == "POST" and path.partition("?")[0].rstrip("/") == "/tokenize":
            with self._lock:
                self.tokenize_requests += 1
            asked = orjson.loads(raw) if raw else {}
            count = _prompt_tokens(asked)
            if self.tokenize_count is not None:
                await _send(writer, 200, {"count": self.tokenize_count, "max_model_len": 32768})
                return True
            await _send(writer, 200, {"count": count, "max_model_len": 32768, "tokens": list(range(count))})
            return True
        if method != "POST" or not path.partition("?")[0].rstrip("/").endswith("/chat/completions"):
            await _send(writer, 404, {"error": {"message": f"no route {method} {path}"}})
            return True
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            await _send(writer, 400, {"error": {"message": "body is not JSON"}})
            return True
        with self._lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            held = self._hold_after is not None and self.requests > self._hold_after
            if self.keep_bodies:
                self.bodies.append(body)
                self.auth_headers.append(headers.get("authorization"))
                self.headers.append(headers)
                self.paths.append(path)
        try:
            while held and not self._released.is_set():
                await asyncio.sleep(0.002)
            if self.capacity is not None:
                if self._slots is None:
                    self._slots = asyncio.Semaphore(self.capacity)
                async with self._slots:
                    return await self._answer(headers, body, writer)
            return await self._answer(headers, body, writer)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer(self, headers: dict[str, str], body: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        fault = self._auth_fault(headers.get("authorization")) or self._next_fault(body)
        if fault is not None:
            with self._lock:
                self.faults_served.append(fault.kind)
            return await self._fault(fault, body, writer)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self._streams(body):
            if self.refuse_stream is not None:
                await _send(writer, 400, {"error": {"message": self.refuse_stream, "type": "invalid_request_error"}})
                return True
            return await self._stream(writer, body)
        await _send(writer, 200, self._reply(body))
        return True

    def _auth_fault(self, authorization: str | None) -> Fault | None:
        if self.api_key is None or authorization == f"Bearer {self.api_key}":
            return None
        given = (authorization or "").removeprefix("Bearer ").strip()
        if not given:
            return Fault("401", message="You didn't provide an API key.")
        masked = given[:8] + "*" * max(0, len(given) - 12) + given[-4:] if len(given) > 12 else "****"
        return Fault("401", message=f"Incorrect API key provided: {masked}. You can find your API key at ...")

    def _next_fault(self, body: dict[str, Any]) -> Fault | None:
        for rule in self.rules:
            fault = rule(body)
            if fault is not None:
                return fault
        try:
            return self._faults.popleft()
        except IndexError:
            return None

    async def _fault(self, fault: Fault, body: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        kind = fault.kind
        if kind == "ok":
            if self._streams(body):
                return await self._stream(writer, body)
            await _send(writer, 200, self._reply(body))
            return True
        if kind in ("trickle", "stall", "stream_error", "cut", "ping", "after_done", "long_line"):
            return await self._stream(writer, body, fault)
        if kind == "gzip":
            return await self._gzip_bomb(writer, body, fault.size or 1 << 30)
        if kind == "big_error":
            return await self._big_error(writer, fault.size or 200 << 20)
        if kind == "close":
            return False
        if kind == "reset":
            sock = writer.get_extra_info("socket")
            if sock is not None:  # linger 0: close() sends RST, as a crashed host or a killed proxy does
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        if kind == "silent":
            await asyncio.sleep(fault.delay or 3600.0)
            return False
        if kind == "trickle_bytes":
            return await self._trickle_bytes(writer, body, fault.delay or 3.0)
        if kind == "slow":
            await asyncio.sleep(fault.delay or 5.0)
            await _send(writer, 200, self._reply(body))
            return True
        if kind == "drip":
            data = orjson.dumps(self._reply(body))
            writer.write(_head(200, len(data), {}))
            for i in range(len(data)):
                writer.write(data[i : i + 1])
                await writer.drain()
                await asyncio.sleep(fault.delay or 0.05)
            return True
        if kind == "partial":
            data = orjson.dumps(self._reply(body))
            writer.write(_head(200, len(data), {}) + data[: len(data) // 2])
            await writer.drain()
            return False
        if kind == "truncated":
            data = orjson.dumps(self._reply(body))
            cut = data[: len(data) // 2]
            writer.write(_head(200, len(cut), {}) + cut)
            await writer.drain()
            return True
        if kind == "empty":
            await _send(writer, 200, {"id": "x", "object": "chat.completion", "choices": []})
            return True
        status = int(kind)
        extra: dict[str, str] = {}
        if fault.retry_after is not None:
            extra["Retry-After"] = str(fault.retry_after)
        if fault.retry_after_ms is not None:
            extra["retry-after-ms"] = f"{fault.retry_after_ms:g}"
        extra.update(fault.headers or {})
        message = fault.message or f"fake server says {status}"
        if fault.delay:
            await asyncio.sleep(fault.delay)
        await _send(writer, status, {"error": {"message": message, "type": "fake", "code": status}}, extra)
        return True

    def _streams(self, body: dict[str, Any]) -> bool:
        return bool(body.get("stream")) and not self.ignore_stream

    async def _stream(self, writer: asyncio.StreamWriter, body: dict[str, Any], fault: Fault | None = None) -> bool:
        """The reply as SSE events (see the module docstring), shaped by a streaming ``fault``."""
        kind = fault.kind if fault is not None else "ok"
        gap = fault.delay if fault is not None and kind == "trickle" else 0.0
        reply = self._reply(body)
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        events = _events(reply, self.stream_pieces)
        usage = (body.get("stream_options") or {}).get("include_usage")
        if usage and reply.get("usage") is not None:
            events.append(
                {"id": reply.get("id"), "object": "chat.completion.chunk", "choices": [], "usage": reply["usage"]}
            )
        if self.burst and kind == "ok":
            writer.write(b"".join(_chunked(b"data: " + orjson.dumps(e) + b"\n\n") for e in events))
            writer.write(_chunked(b"data: [DONE]\n\n") + b"0\r\n\r\n")
            await writer.drain()
            return True
        if kind == "long_line":
            return await self._long_line(writer, events, fault.size if fault is not None else 0)
        for number, event in enumerate(events):
            if number == 1 and kind == "ping":
                return await self._keep_alive_only(writer, fault)
            if number == 1 and kind == "stream_error":
                await _chunk(writer, {"error": {"message": "the model server failed mid-stream", "code": 500}})
                await _chunk_end(writer)
                return True
            if number == 1 and kind == "cut":
                return False
            if number == 1 and kind == "stall":
                await asyncio.sleep(fault.delay if fault is not None else 5.0)
            await _chunk(writer, event)
            if gap:
                await asyncio.sleep(gap)
        writer.write(_chunked(b"data: [DONE]\n\n"))
        if kind == "after_done":  # a proxy that forgets to end the response: data and comments go on
            assert fault is not None
            for _ in range(int(60 / (fault.delay or 0.2))):
                writer.write(_chunked(b'data: {"choices": []}\n\n: ping\n\n'))
                await writer.drain()
                await asyncio.sleep(fault.delay or 0.2)
            return False
        await _chunk_end(writer)
        return True

    async def _trickle_bytes(self, writer: asyncio.StreamWriter, body: dict[str, Any], gap: float) -> bool:
        """The whole reply (SSE when streamed, else JSON) one byte every ``gap`` seconds."""
        reply = self._reply(body)
        if self._streams(body):
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: close\r\n\r\n"
            )
            data = b"".join(b"data: " + orjson.dumps(e) + b"\n\n" for e in _events(reply, self.stream_pieces))
            data += b"data: [DONE]\n\n"
        else:
            data = orjson.dumps(reply)
            writer.write(_head(200, len(data), {}))
        for i in range(len(data)):
            writer.write(data[i : i + 1])
            await writer.drain()
            with self._lock:
                self.bytes_sent += 1
            await asyncio.sleep(gap)
        return False

    async def _keep_alive_only(self, writer: asyncio.StreamWriter, fault: Fault | None) -> bool:
        """``: ping`` comments every ``delay`` seconds and nothing else, for ``size`` seconds (60 by default)."""
        gap = (fault.delay if fault is not None else 0.0) or 0.2
        until = time.monotonic() + ((fault.size if fault is not None else 0) or 60)
        while time.monotonic() < until:
            writer.write(_chunked(b": ping\n\n"))
            await writer.drain()
            await asyncio.sleep(gap)
        return False

    async def _long_line(self, writer: asyncio.StreamWriter, events: list[dict[str, Any]], size: int) -> bool:
        """The first event, then one ``data:`` line of ``size`` bytes (one huge content piece), then the end."""
        await _chunk(writer, events[0])
        base = {k: v for k, v in events[0].items() if k != "choices"}
        head = orjson.dumps({**base, "choices": [{"index": 0, "delta": {"content": ""}}]})
        cut = head.index(b'"content":""') + len(b'"content":"')
        prefix, suffix = b"data: " + head[:cut], head[cut:] + b"\n\n"
        block = b"x" * 65536
        writer.write(_chunked(prefix))
        left = max(0, size - len(prefix) - len(suffix))
        while left > 0:
            piece = block[: min(left, len(block))]
            writer.write(_chunked(piece))
            left -= len(piece)
            await writer.drain()
        writer.write(_chunked(suffix))
        for event in events[1:]:
            if event["choices"] and event["choices"][0].get("finish_reason"):
                await _chunk(writer, event)
        writer.write(_chunked(b"data: [DONE]\n\n"))
        await _chunk_end(writer)
        return True

    async def _gzip_bomb(self, writer: asyncio.StreamWriter, body: dict[str, Any], size: int) -> bool:
        """A 200 whose gzip body unpacks to ``size`` bytes: JSON whitespace, then the reply."""
        data = _bomb(orjson.dumps(self._reply(body)), size)
        writer.write(_head(200, len(data), {"Content-Encoding": "gzip"}) + data)
        await writer.drain()
        return True

    async def _big_error(self, writer: asyncio.StreamWriter, size: int) -> bool:
        """A 500 with a ``size``-byte body, written 1 MiB at a time while the client keeps reading."""
        head = b'{"error": {"message": "fake server says 500", "padding": "'
        tail = b'"}}'
        writer.write(_head(500, size, {}) + head)
        block = b"x" * (1 << 20)
        left = size - len(head) - len(tail)
        try:
            while left > 0:
                piece = block[: min(left, len(block))]
                writer.write(piece)
                await writer.drain()
                left -= len(piece)
                with self._lock:
                    self.bytes_sent += len(piece)
            writer.write(tail)
            await writer.drain()
        except ConnectionError:
            return False
        return True

    def _reply(self, body: dict[str, Any]) -> dict[str, Any]:
        scripted: str | dict[str, Any] | None = self.responder(body) if self.responder is not None else None
        if isinstance(scripted, dict):
            return scripted
        text = scripted if isinstance(scripted, str) else last_user(body)
        n = body.get("n") or 1
        prompt_tokens = _prompt_tokens(body)
        choices = []
        completion_tokens = 0
        for i in range(n):
            content = text if n == 1 else f"{text} #{i}"
            completion_tokens += len(content)
            message: dict[str, Any] = {"role": "assistant", "content": content}
            if self.reasoning:
                message[self.reasoning] = f"thinking about: {text}"
            choice: dict[str, Any] = {"index": i, "message": message, "finish_reason": "stop"}
            if body.get("logprobs"):
                choice["logprobs"] = {
                    "content": [{"token": ch, "logprob": -0.25, "bytes": None, "top_logprobs": []} for ch in content]
                }
            choices.append(choice)
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": choices,
            "usage": dict(self.usage)
            if self.usage is not None
            else {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _head(status: int, length: int, extra: dict[str, str]) -> bytes:
    lines = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
        "Content-Type: application/json",
        f"Content-Length: {length}",
    ]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _events(reply: dict[str, Any], pieces: int) -> list[dict[str, Any]]:
    """A chat.completion body as the chunks a streaming server sends (content split in ``pieces``)."""
    base = {"id": reply.get("id", "chatcmpl-fake"), "object": "chat.completion.chunk", "model": reply.get("model")}
    events: list[dict[str, Any]] = []
    for position, choice in enumerate(reply.get("choices") or []):
        index = choice.get("index", position)
        message = choice.get("message") or {}
        events.append({**base, "choices": [{"index": index, "delta": {"role": "assistant", "content": ""}}]})
        for field in ("reasoning_content", "reasoning"):
            if message.get(field):
                events.append({**base, "choices": [{"index": index, "delta": {field: message[field]}}]})
        content = message.get("content") or ""
        size = max(1, -(-len(content) // max(1, pieces)))
        for start in range(0, len(content), size):
            delta: dict[str, Any] = {"index": index, "delta": {"content": content[start : start + size]}}
            if choice.get("logprobs") and start == 0:
                delta["logprobs"] = choice["logprobs"]
            events.append({**base, "choices": [delta]})
        events.append(
            {**base, "choices": [{"index": index, "delta": {}, "finish_reason": choice.get("finish_reason")}]}
        )
    return events


_BLOCK = 1 << 20
_PACKED_BLOCK: list[bytes] = []


def _bomb(reply: bytes, size: int) -> bytes:
    """gzip of about ``size`` bytes of spaces then ``reply``, built from one packed MiB of spaces repeated
    (a full flush makes each packed MiB identical and independent), so a GiB costs no compression time."""
    if not _PACKED_BLOCK:
        packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        _PACKED_BLOCK.append(packer.compress(b" " * _BLOCK) + packer.flush(zlib.Z_FULL_FLUSH))
    blocks = max(0, size - len(reply)) // _BLOCK
    tail = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    last = tail.compress(reply) + tail.flush()
    crc = 0
    spaces = b" " * _BLOCK
    for _ in range(blocks):
        crc = zlib.crc32(spaces, crc)
    crc = zlib.crc32(reply, crc)
    length = (blocks * _BLOCK + len(reply)) & 0xFFFFFFFF
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + _PACKED_BLOCK[0] * blocks + last + crc.to_bytes(4, "little") + length.to_bytes(4, "little")


def _chunked(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


async def _chunk(writer: asyncio.StreamWriter, event: dict[str, Any]) -> None:
    writer.write(_chunked(b"data: " + orjson.dumps(event) + b"\n\n"))
    await writer.drain()


async def _chunk_end(writer: asyncio.StreamWriter) -> None:
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def _send(writer: asyncio.StreamWriter, status: int, data: Any, extra: dict[str, str] | None = None) -> None:
    payload = orjson.dumps(data)
    writer.write(_head(status, len(payload), extra or {}) + payload)
    await writer.drain()


def _serve_forever(port: int, options: argparse.Namespace | None = None) -> None:
    server = FakeOpenAI(keep_bodies=False)
    if options is not None:
        server.delay, server.capacity, server.burst = options.delay, options.capacity, options.burst
        server.stream_pieces = options.pieces
        if options.reply_chars:
            text = ("答" * options.reply_chars)[: options.reply_chars]
            server.responder = lambda body: text

    async def main() -> None:
        await server._listen(port)
        print(server.base_url, flush=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Serve the fake OpenAI-compatible endpoint in the foreground.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every reply")
    parser.add_argument("--capacity", type=int, default=None, help="replies made at once at most (a replica's cap)")
    parser.add_argument("--pieces", type=int, default=3, help="streamed pieces per reply")
    parser.add_argument("--reply-chars", type=int, default=0, help="every reply this many characters (0: echo)")
    parser.add_argument("--burst", action="store_true", help="write a streamed reply in one write")
    arguments = parser.parse_args(sys.argv[1:])
    _serve_forever(arguments.port, arguments)
