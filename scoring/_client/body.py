"""Reading a reply's bytes with bounds: no body, line or unpacked size can take the memory or the time.

- The body is read raw and unpacked here (gzip, deflate, identity), at most 64 KiB of output per step, so
  a compression bomb (1 MiB that unpacks to 1 GiB) is stopped at the bound after using a few hundred KiB,
  not gigabytes; httpx's own decoder unpacks each network block whole.
- :func:`read_body` gives at most ``limit`` unpacked bytes: past it, :class:`ReplyTooLargeError` (or, with
  ``truncate``, the first ``limit`` bytes, for an error body of which only the message is wanted; the rest
  is never read: the connection is dropped instead).
- A floor on the rate (``floor``: bytes a second over each ``window`` seconds, checked as blocks come):
  a server that trickles a byte every few seconds never falls silent long enough for the read timeout;
  past the first window below the floor the read ends in :class:`httpx.ReadTimeout`, the transport's
  failure (retried, and in a pool handed to another replica).
- :class:`LineSplitter` cuts a byte stream into lines in linear time (a 50 MB line is not re-joined on
  every block) and refuses a line longer than its bound.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Callable, Iterator

import httpx

from scoring._errors import MalformedResponseError, ReplyTooLargeError

__all__ = ["MIB", "LineSplitter", "RateFloor", "decoded_blocks", "read_body"]

MIB = 1 << 20
_STEP = 64 * 1024  # unpacked bytes per step: the most a bomb can put in memory at once


class _Unpacker:
    """One ``Content-Encoding`` (gzip, deflate or none), unpacked a step at a time."""

    def __init__(self, encoding: str) -> None:
        name = encoding.strip().lower()
        self._name = name
        if name in ("", "identity"):
            self._z: zlib._Decompress | None = None
        elif name in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif name == "deflate":
            self._z = zlib.decompressobj()
        else:
            raise MalformedResponseError(f"the reply is packed with {encoding!r}, which formatkit does not unpack")
        self._first = True

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._z is None:
            if data:
                yield data
            return
        try:
            out = self._z.decompress(data, _STEP)
        except zlib.error as exc:
            if not (self._first and self._name == "deflate"):
                raise MalformedResponseError(f"the reply's {self._name} data is corrupt ({exc})") from exc
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)  # "deflate" sent raw, without its zlib header
            out = self._z.decompress(data, _STEP)
        self._first = False
        if out:
            yield out
        while self._z.unconsumed_tail:
            out = self._z.decompress(self._z.unconsumed_tail, _STEP)
            if not out:
                break
            yield out


async def decoded_blocks(
    response: httpx.Response, limit: int, what: str = "the reply", floor: RateFloor | None = None
) -> AsyncIterator[bytes]:
    """The unpacked body of ``response`` in blocks of at most 64 KiB (after unpacking);
    :class:`ReplyTooLargeError` once more than ``limit`` bytes came; ``floor``: see the module docstring."""
    unpacker = _Unpacker("" if response.is_stream_consumed else response.headers.get("content-encoding", ""))
    total = 0
    async for raw in _raw(response):
        if floor is not None:
            floor.came(len(raw))
        for block in unpacker.feed(raw):
            total += len(block)
            if total > limit:
                raise ReplyTooLargeError(
                    f"{what} is larger than {_size(limit)} (unpacked) and was not read further: "
                    "a server or proxy fault, or a reply no evaluation needs",
                    limit=limit,
                )
            yield block


async def _raw(response: httpx.Response) -> AsyncIterator[bytes]:
    if response.is_stream_consumed:  # read already (a test transport): httpx has unpacked it
        yield response.content
        return
    async for raw in response.aiter_raw():
        yield raw


async def read_body(
    response: httpx.Response,
    limit: int,
    *,
    truncate: bool = False,
    what: str = "the reply",
    floor: RateFloor | None = None,
) -> bytes:
    """At most ``limit`` unpacked bytes of the body (see the module docstring)."""
    parts: list[bytes] = []
    try:
        async for block in decoded_blocks(response, limit, what, floor):
            parts.append(block)
    except ReplyTooLargeError:
        if not truncate:
            raise
    return b"".join(parts)


class RateFloor:
    """At least ``rate`` bytes a second over each ``window`` seconds of a body from its first byte on, counted
    as blocks come (one clock read per block, no timer): the wait for the first byte (a long prompt read
    before the first token) and a body that sends nothing at all are the read timeout's."""

    def __init__(self, rate: float, window: float, clock: Callable[[], float] | None = None) -> None:
        self.rate, self.window = rate, window
        self._clock = clock if clock is not None else asyncio.get_running_loop().time
        self._start: float | None = None
        self._bytes = 0

    def came(self, count: int) -> None:
        now = self._clock()
        if self._start is None:
            self._start = now
            self._bytes = count
            return
        self._bytes += count
        spent = now - self._start
        if spent < self.window:
            return
        if self._bytes < self.rate * spent:
            raise httpx.ReadTimeout(
                f"the reply came at {self._bytes / spent:.2f} bytes/s over {spent:.0f} s, below the floor of "
                f"{self.rate:g} bytes/s (--min-rate): a server that trickles its reply"
            )
        self._start, self._bytes = now, 0


class LineSplitter:
    """Bytes in, complete lines out (without ``\n``; a trailing ``\r`` removed), in linear time: the
    pieces of an unfinished line are kept apart and joined once, when its end comes."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self._pending: list[bytes] = []
        self._pending_size = 0

    def feed(self, data: bytes) -> list[bytes]:
        last = data.rfind(b"\n")
        if last < 0:
            self._pending.append(data)
            self._pending_size += len(data)
            if self._pending_size > self.max_line:
                raise ReplyTooLargeError(
                    f"a line of the reply stream is longer than {_size(self.max_line)}: not a chat completion stream",
                    limit=self.max_line,
                )
            return []
        head = data[: last + 1]
        if self._pending:
            self._pending.append(head)
            head = b"".join(self._pending)
        rest = data[last + 1 :]
        self._pending = [rest] if rest else []
        self._pending_size = len(rest)
        lines = head.split(b"\n")
        lines.pop()  # after the last newline: nothing
        return [line[:-1] if line.endswith(b"\r") else line for line in lines]

    def rest(self) -> bytes:
        """What came after the last newline."""
        data = b"".join(self._pending).rstrip(b"\r")
        self._pending, self._pending_size = [], 0
        return data


def _size(count: int) -> str:
    if count >= MIB and count % MIB == 0:
        return f"{count // MIB} MiB"
    if count >= 1024 and count % 1024 == 0:
        return f"{count // 1024} KiB"
    return f"{count} bytes"
