"""Server-sent events of a streamed chat completion, folded into one :class:`ChatResult` per choice.

The stream is ``data: {chunk}`` lines separated by blank lines, ended by ``data: [DONE]``. Each chunk's
``choices[i].delta`` carries a piece of ``content`` (and of ``reasoning_content`` or ``reasoning``), the
last one per choice its ``finish_reason``; with ``stream_options: {"include_usage": true}`` a final chunk
carries ``usage``. A chunk ``{"error": ...}`` (vLLM, LiteLLM mid-stream) is a failed attempt. Comment
lines (``: ping``) and other SSE fields are ignored.

Reading stops at ``data: [DONE]`` (a proxy may keep the connection open, or send more after it). The
silence allowed (``silence`` seconds) is measured from the last ``data:`` line: keep-alive comments, which
a gateway sends while its upstream is stuck, do not count as the reply going on. A reply whose every
choice has its ``finish_reason`` is kept when the stream then falls silent or hits ``--max-time``
(:meth:`StreamFolder.complete`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from scoring._client.body import LineSplitter
from scoring._client.reply import ChatResult, refused_counts, usage_counts
from scoring._errors import MalformedResponseError, StreamError

__all__ = ["StreamFolder", "fold_stream"]

_MAX_MESSAGE = 500


@dataclass
class _Choice:
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    logprobs: list[Any] | None = None


class StreamFolder:
    """Accumulates chunks; :meth:`results` gives the choices in order."""

    def __init__(self) -> None:
        self.choices: dict[int, _Choice] = {}
        self.usage: dict[str, int] | None = None
        self.refused_usage: str | None = None
        self.done = False
        self.chunks = 0
        #: The monotonic clock when the first piece of text (content or reasoning) arrived.
        self.first_piece_at: float | None = None

    def feed_line(self, line: bytes) -> bool:
        """One SSE line (without its newline); True when it was a piece of the reply (a ``data:`` line)."""
        if not line.startswith(b"data:"):
            return False  # blank separator, comment, event:/id:/retry: fields
        data = line[5:].strip()
        if data == b"[DONE]":
            self.done = True
            return True
        if not data:
            return False
        try:
            chunk = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise MalformedResponseError(f"stream chunk is not JSON: {data[:80]!r}") from exc
        if not isinstance(chunk, dict):
            raise MalformedResponseError("stream chunk is not a JSON object")
        self.feed(chunk)
        return True

    def feed(self, chunk: dict[str, object]) -> None:
        self.chunks += 1
        error = chunk.get("error")
        if error is not None:
            message = error.get("message") if isinstance(error, dict) else error
            raise StreamError(str(message)[:_MAX_MESSAGE])
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = usage_counts(usage)
            self.refused_usage = refused_counts(usage)
        choices = chunk.get("choices")
        for position, choice in enumerate(choices if isinstance(choices, list) else ()):
            if not isinstance(choice, dict):
                continue
            index = choice.get("index")
            slot = self.choices.setdefault(index if isinstance(index, int) else position, _Choice())
            delta = choice.get("delta")
            if isinstance(delta, dict):
                piece = delta.get("content")
                if isinstance(piece, str):
                    slot.content.append(piece)
                thought = delta.get("reasoning_content")
                if thought is None:
                    thought = delta.get("reasoning")
                if isinstance(thought, str):
                    slot.reasoning.append(thought)
                if self.first_piece_at is None and (piece or thought):
                    self.first_piece_at = time.monotonic()
            finish = choice.get("finish_reason")
            if isinstance(finish, str):
                slot.finish_reason = finish
            logprobs = choice.get("logprobs")
            if isinstance(logprobs, dict) and isinstance(logprobs.get("content"), list):
                if slot.logprobs is None:
                    slot.logprobs = []
                slot.logprobs.extend(logprobs["content"])

    def complete(self) -> bool:
        """Every choice has come with its ``finish_reason`` (or ``[DONE]`` came): nothing is missing."""
        return bool(self.choices) and (self.done or all(c.finish_reason is not None for c in self.choices.values()))

    def results(self) -> list[ChatResult]:
        """The folded choices; MalformedResponseError when the stream ended before it was complete."""
        if not self.choices:
            raise MalformedResponseError(f"stream ended with no choices ({self.chunks} chunk(s))")
        if not self.done and any(c.finish_reason is None for c in self.choices.values()):
            raise MalformedResponseError("stream ended before [DONE] and before a finish_reason")
        out = []
        for index in sorted(self.choices):
            slot = self.choices[index]
            out.append(
                ChatResult(
                    content="".join(slot.content),
                    reasoning_content="".join(slot.reasoning) if slot.reasoning else None,
                    finish_reason=slot.finish_reason,
                    usage=self.usage,
                    logprobs={"content": slot.logprobs} if slot.logprobs is not None else None,
                    first_piece_at=self.first_piece_at,
                    refused_usage=self.refused_usage,
                )
            )
        return out


async def fold_stream(
    blocks: AsyncIterator[bytes],
    *,
    silence: float | None = None,
    max_line: int = 64 << 20,
    folder: StreamFolder | None = None,
) -> list[ChatResult]:
    """Read an SSE body (byte blocks, any split) up to ``[DONE]`` and fold it (see the module docstring);
    ``folder`` (optional) is where the pieces go, for a caller that may keep a complete reply on a deadline.

    ``silence`` is checked as blocks come (one clock read per block, no timer): a stream that sends nothing
    at all is the transport's read timeout (the client sets it to the same ``silence``); one that sends only
    comments is caught here, at the first comment past the limit."""
    folder = folder if folder is not None else StreamFolder()
    lines = LineSplitter(max_line)
    clock = asyncio.get_running_loop().time
    last = clock()
    async for block in blocks:
        heard = False
        for line in lines.feed(block):
            heard = folder.feed_line(line) or heard
            if folder.done:
                return folder.results()
        now = clock()
        if heard:
            last = now
        elif silence is not None and now - last > silence:
            if folder.complete():
                return folder.results()
            raise httpx.ReadTimeout(
                f"no reply for {silence:g} s (--timeout: the longest silence allowed); "
                "keep-alive comments are not a reply"
            )
    rest = lines.rest()
    if rest:
        folder.feed_line(rest)
    return folder.results()
