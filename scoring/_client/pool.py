"""Several endpoints serving one model, used as one client: requests go where there is free capacity.

Each endpoint is a :class:`~scoring._client.http.ChatClient` of its own, so each keeps its own
concurrency, ``rpm``, rate-limit pauses, retries and stop rules (:mod:`scoring._client.health`). The pool
adds three things:

- **Spread by free capacity.** A request goes to the endpoint with the most free slots (its concurrency
  less the requests it holds), an endpoint paused by a rate limit last; when every endpoint is full the
  request waits for a slot to free. A fast replica frees its slots sooner and so gets more requests.
- **An endpoint that dies is dropped.** When one endpoint raises
  :class:`~scoring._errors.EndpointUnavailableError`, it is dropped with a notice and a note, and the
  request goes to another endpoint; so do the requests that were waiting on it (its own backoff sees it
  is down). A request that failed endpoint-wide after its retries (connections refused, 502/503/504) is
  also handed to another endpoint rather than becoming the record's error. Only the requests in flight
  on the dying endpoint can have been paid for twice. When the last endpoint is dropped, its error is
  raised: the run stops as with one endpoint.
- **Per endpoint figures** (:meth:`EndpointPool.report`): requests sent, replies, tokens, requests handed
  on, and why it was dropped, for the run record.

    pool = EndpointPool([ChatClient(url, "qwen") for url in urls])
    async with pool:
        [result] = await pool.complete(messages, {"temperature": 0})
        result.endpoint                       # the base URL that answered
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TypedDict

from formatkit._core.record import JsonObject, Parameters
from scoring._client.health import endpoint_wide
from scoring._client.http import ChatClient
from scoring._client.reply import ChatResult
from scoring._errors import EndpointUnavailableError, RetriesExhaustedError

__all__ = ["AnyClient", "EndpointPool", "EndpointReport"]

_log = logging.getLogger("scoring")


class EndpointReport(TypedDict):
    """What one endpoint of a pool did (the run record's ``endpoints``)."""

    base_url: str
    concurrency: int
    requests: int
    replies: int
    completion_tokens: int
    handed_on: int
    dropped: str | None


@dataclass
class _Member:
    client: ChatClient
    held: int = 0  # requests given to it and not yet returned (waiting for a slot included)
    given: int = 0
    replies: int = 0
    completion_tokens: int = 0
    handed_on: int = 0
    dropped: EndpointUnavailableError | None = None

    @property
    def free(self) -> int:
        return self.client.concurrency - self.held


class EndpointPool:
    """Several :class:`ChatClient` of one model as one client; see the module docstring."""

    def __init__(self, clients: Sequence[ChatClient], *, on_notice: Callable[[str], None] | None = None) -> None:
        if not clients:
            raise ValueError("an endpoint pool needs at least one endpoint")
        models = {client.model for client in clients}
        if len(models) != 1:
            raise ValueError(f"the endpoints of a pool serve one model, not {sorted(models)}")
        self._members = [_Member(client) for client in clients]
        self.model = clients[0].model
        #: The first endpoint's public URL (what a response names is the endpoint that answered it).
        self.endpoint = clients[0].endpoint
        #: Every endpoint's slots together: how many requests the pool can have in flight.
        self.concurrency = sum(client.concurrency for client in clients)
        self._freed = asyncio.Event()
        self._stopping = False
        self._notes: list[str] = []
        self._on_notice: Callable[[str], None] = on_notice or _log.warning
        for client in clients:
            client.on_notice = self._on_notice

    # -- what the runner reads, as from one client -------------------------------------------------------

    @property
    def clients(self) -> list[ChatClient]:
        """Every endpoint's client, dropped ones included, in the order given."""
        return [member.client for member in self._members]

    @property
    def alive(self) -> list[ChatClient]:
        return [member.client for member in self._members if member.dropped is None]

    @property
    def on_notice(self) -> Callable[[str], None]:
        return self._on_notice

    @on_notice.setter
    def on_notice(self, say: Callable[[str], None]) -> None:
        self._on_notice = say
        for member in self._members:
            member.client.on_notice = say

    @property
    def requests_sent(self) -> int:
        return sum(member.client.requests_sent for member in self._members)

    @property
    def in_flight(self) -> int:
        return sum(member.client.in_flight for member in self._members)

    @property
    def stream(self) -> bool:
        """Every endpoint still streams (one that refused streaming makes the run's record say so)."""
        return all(member.client.stream for member in self._members)

    @property
    def notes(self) -> list[str]:
        """The pool's own notes (endpoints dropped), then each endpoint's, named by its URL."""
        notes = list(self._notes)
        for member in self._members:
            notes.extend(f"{member.client.endpoint}: {note}" for note in member.client.notes)
        return notes

    @property
    def stopping(self) -> bool:
        return self._stopping

    def stop_sending(self) -> None:
        self._stopping = True
        for member in self._members:
            member.client.stop_sending()
        self._freed.set()

    def scrub(self, text: str) -> str:
        for member in self._members:
            text = member.client.scrub(text)
        return text

    def has_served(self, endpoint: str) -> bool:
        return any([member.client.has_served(endpoint) for member in self._members])

    @property
    def endpoints(self) -> list[str]:
        return [member.client.endpoint for member in self._members]

    def request_body(self, messages: list[dict[str, str]], params: Parameters) -> JsonObject:
        return (self.alive or self.clients)[0].request_body(messages, params)

    def report(self) -> list[EndpointReport]:
        """What each endpoint did, in the order given."""
        return [
            {
                "base_url": member.client.endpoint,
                "concurrency": member.client.concurrency,
                "requests": member.client.requests_sent,
                "replies": member.replies,
                "completion_tokens": member.completion_tokens,
                "handed_on": member.handed_on,
                "dropped": None if member.dropped is None else self.scrub(str(member.dropped)),
            }
            for member in self._members
        ]

    # -- lifecycle ---------------------------------------------------------------------------------------

    async def aclose(self) -> None:
        for member in self._members:
            await member.client.aclose()

    async def __aenter__(self) -> EndpointPool:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- sending -----------------------------------------------------------------------------------------

    async def complete(self, messages: list[dict[str, str]], params: Parameters) -> list[ChatResult]:
        """One chat completion on the endpoint with the most free capacity; handed on as the docstring says."""
        tried: set[int] = set()
        while True:
            index = await self._take(tried)
            member = self._members[index]
            try:
                results = await member.client.complete(messages, params)
            except EndpointUnavailableError as exc:
                self._drop(index, exc)
                if not self.alive:
                    raise
                member.handed_on += 1
                continue
            except RetriesExhaustedError as exc:
                if not endpoint_wide(exc.cause) or not self._others(tried | {index}):
                    raise
                tried.add(index)
                member.handed_on += 1
                continue
            finally:
                member.held -= 1
                self._freed.set()
            member.replies += 1
            for result in results:
                result.endpoint = member.client.endpoint
                if result.usage:
                    member.completion_tokens += max(0, result.usage.get("completion_tokens", 0))
            return results

    def _others(self, tried: set[int]) -> bool:
        return any(m.dropped is None and i not in tried for i, m in enumerate(self._members))

    async def _take(self, tried: set[int]) -> int:
        """The endpoint this request goes to, once one has a free slot (the request is counted on it)."""
        while True:
            best: int | None = None
            best_key: tuple[bool, int, int] | None = None
            candidates = 0
            for index, member in enumerate(self._members):
                if member.dropped is not None or index in tried:
                    continue
                candidates += 1
                if member.free <= 0 and not self._stopping:
                    continue
                key = (not member.client.paused, member.free, -member.given)
                if best_key is None or key > best_key:
                    best, best_key = index, key
            if best is not None:
                member = self._members[best]
                member.held += 1
                member.given += 1
                return best
            if not candidates:  # every endpoint left was tried: the last one's failure stands
                if not self.alive:
                    raise self._last_drop()
                tried.clear()  # those tried were all dropped meanwhile but these: try them again
                continue
            self._freed.clear()
            await self._freed.wait()

    def _last_drop(self) -> EndpointUnavailableError:
        for member in reversed(self._members):
            if member.dropped is not None:
                return member.dropped
        raise AssertionError("no endpoint was dropped")

    def _drop(self, index: int, exc: EndpointUnavailableError) -> None:
        member = self._members[index]
        if member.dropped is not None:
            return
        member.dropped = exc
        left = len(self.alive)
        if not left:
            return  # the last one: its error stops the run, said as with one endpoint
        note = (
            f"endpoint {member.client.endpoint} was dropped: {self.scrub(str(exc))}; its requests go to the "
            f"{left} endpoint(s) left"
        )
        self._notes.append(note)
        self._on_notice(note)


#: What a runner or a judge sends through: one endpoint, or several as one.
AnyClient = ChatClient | EndpointPool
