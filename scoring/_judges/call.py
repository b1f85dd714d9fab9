"""Asking the judge: one prompt in, one reply out, through the runner's client and a journal.

Every finished reply is appended to the journal under a key derived from exactly what was sent (judge
model, messages, parameters), before it is parsed. A rerun finds the key and reuses the reply without
a request, so a verdict is never bought twice, and a reply that could not be parsed is kept as it came.
Identical prompts in one run (the same answer twice) share one request.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from formatkit._core.record import JsonObject, Parameters
from scoring._errors import ClientError, EndpointUnavailableError, error_kind
from scoring._judges.stop import judge_stopped
from scoring._runner.journal import JournalSlot

__all__ = ["Ask", "CallFailed", "JournaledAsker", "Reply", "add_usage", "failure_text", "request_key"]


@dataclass(frozen=True)
class Reply:
    """The judge's reply text and the tokens it cost (``from_journal``: reused, not bought now)."""

    content: str
    usage: dict[str, int] | None
    from_journal: bool = False
    finish_reason: str | None = None

    def no_verdict(self, reason: str) -> str:
        """Why the reply gave no verdict, noting a reply cut off at the judge's token limit."""
        if self.finish_reason == "length":
            return f"{reason} (the reply was cut off at the judge's token limit)"
        return reason


class CallFailed(Exception):
    """The judge could not be asked (endpoint error after retries); ``kind`` is a short stable label."""

    def __init__(self, message: str, kind: str, *, unavailable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.unavailable = unavailable


#: ``await ask(prompt)`` → the judge's :class:`Reply`, or :class:`CallFailed`.
Ask = Callable[[str], Awaitable[Reply]]


class _Result(Protocol):
    @property
    def content(self) -> str: ...
    @property
    def usage(self) -> dict[str, int] | None: ...
    @property
    def finish_reason(self) -> str | None: ...


class _Client(Protocol):
    model: str

    async def complete(self, messages: list[dict[str, str]], params: Parameters) -> list[Any]: ...


class _Journal(Protocol):
    def index(self) -> dict[str, JournalSlot]: ...
    def read(self, slot: JournalSlot) -> JsonObject: ...
    def append_slot(self, key: str, entry: JsonObject) -> JournalSlot: ...


def request_key(model: str, messages: list[dict[str, str]], params: Parameters, seat: str | None = None) -> str:
    """A stable key for one judge request: sha256 of the model, messages and parameters; ``seat`` tells
    apart what a panel asks twice with the same words (a repeat, the same model at two endpoints): each
    judge x repeat x order is its own journal entry. A lone judge's first ask has none."""
    fields: dict[str, Any] = {"model": model, "messages": messages, "params": params}
    if seat is not None:
        fields["seat"] = seat
    data = orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
    return "judge:" + hashlib.sha256(data).hexdigest()


def add_usage(total: dict[str, int], usage: Mapping[str, object] | None) -> dict[str, int]:
    """Add one call's token counts into ``total`` (in place) and return it."""
    for key, value in (usage or {}).items():
        if isinstance(value, int) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value
    return total


class JournaledAsker:
    """The :data:`Ask` used by the judges: journal first, then the client."""

    def __init__(
        self,
        client: _Client,
        *,
        params: Parameters,
        journal: _Journal | None,
        concurrency: int = 8,
    ) -> None:
        self._client = client
        # Requests wait here, not in the client: once the endpoint is proven down, those still waiting
        # are never sent (a handful of requests prove it, not the whole set).
        self._slots_free = asyncio.Semaphore(max(1, concurrency))
        self._params = params
        self._journal = journal
        # Where each finished reply sits in the journal (or the reply itself, without a journal):
        # memory stays small however many verdicts a long run has collected.
        self._slots: dict[str, JournalSlot] = journal.index() if journal is not None else {}
        self._memory: dict[str, JsonObject] = {}
        self._in_flight: dict[str, asyncio.Future[Reply]] = {}
        self.bought = 0
        self.reused = 0
        #: Set when the endpoint proved unusable (down, or refusing the key, model or URL): the run stops.
        self.down: EndpointUnavailableError | None = None

    @property
    def stopping(self) -> bool:
        """The run is stopping (Ctrl-C, SIGTERM): no further verdict is bought."""
        return bool(getattr(self._client, "stopping", False))

    def _finished(self, key: str) -> JsonObject | None:
        if key in self._memory:
            return self._memory[key]
        slot = self._slots.get(key)
        if slot is None or self._journal is None:
            return None
        return self._journal.read(slot)

    def seat(self, seat: str | None) -> Ask:
        """The :data:`Ask` of one panel seat (a repeat, a judge met twice): its requests keyed apart."""

        async def ask(prompt: str) -> Reply:
            return await self(prompt, seat=seat)

        return ask

    async def __call__(self, prompt: str, *, seat: str | None = None) -> Reply:
        messages = [{"role": "user", "content": prompt}]
        key = request_key(self._client.model, messages, self._params, seat)
        entry = self._finished(key)
        if entry is not None and isinstance(entry.get("content"), str):
            self.reused += 1
            return Reply(
                content=entry["content"],
                usage=entry.get("usage"),
                from_journal=True,
                finish_reason=entry.get("finish_reason"),
            )
        pending = self._in_flight.get(key)
        if pending is not None:
            reply = await asyncio.shield(pending)
            return Reply(content=reply.content, usage=None, from_journal=True, finish_reason=reply.finish_reason)
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            reply = await self._buy(key, messages)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # marked retrieved: the waiters re-raise it, nobody else has to
            raise
        finally:
            self._in_flight.pop(key, None)
        future.set_result(reply)
        return reply

    def _stop(self, down: EndpointUnavailableError) -> CallFailed:
        if self.down is None:
            self.down = down
        return CallFailed(str(down), error_kind(down), unavailable=True)

    async def _buy(self, key: str, messages: list[dict[str, str]]) -> Reply:
        async with self._slots_free:
            if self.down is not None:
                raise CallFailed(f"not sent: {self.down}", "unavailable", unavailable=True)
            try:
                results = await self._client.complete(messages, self._params)
            except EndpointUnavailableError as exc:
                raise self._stop(judge_stopped(exc)) from exc
            except ClientError as exc:
                raise CallFailed(str(exc), error_kind(exc)) from exc
        first: _Result = results[0]
        reply = Reply(content=first.content or "", usage=first.usage, finish_reason=first.finish_reason)
        entry = {"content": reply.content, "usage": reply.usage, "finish_reason": reply.finish_reason}
        if self._journal is not None:
            self._slots[key] = self._journal.append_slot(key, entry)
        else:
            self._memory[key] = entry
        self.bought += 1
        return reply


def failure_text(exc: CallFailed) -> str:
    """The analysis line for a response whose judge could not be asked."""
    return f"judge request failed ({exc.kind}): {exc.message}"
