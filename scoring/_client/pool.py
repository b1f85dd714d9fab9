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
  is down). When the last endpoint is dropped, its error is raised: the run stops as with one endpoint.
- **A request that fails the replica's way goes to another replica at once.** A transport failure (a
  reset, a read timeout, ``--max-time``, a reply slower than ``--min-rate``, a refused connection) or
  an endpoint-wide status (502/503/504, a gateway that cannot reach its backend) is tried
  ``failover_after`` times (:class:`~scoring._client.options.RetryPolicy`; once by default) on that
  replica, then handed to another live replica not tried yet, where its retries go on. On the last
  replica untried it gets the whole ``max_retries``, as with one endpoint: a request fails only where
  every replica failed it.
- **A sick replica is set aside and tried again later.** A replica whose requests fail the replica's
  way ``unavailable_after`` times in a row while another replica answered meanwhile is set aside (said
  at once, ``ui.pool.benched``): no request goes to it for ``probe_after`` seconds; then one request
  tries it. If that one is answered the replica takes requests again (``ui.pool.back``), else it rests
  twice as long (up to ``probe_cap``). When every live replica is set aside they are all tried again at
  once rather than stopping the run. The requests in flight on it when it is set aside finish or fail
  there and are handed on: nothing is sent twice but what a replica took and never answered.
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

from formatkit._core.messages import Msg
from formatkit._core.record import JsonObject, Parameters
from scoring._client.health import describe, replica_failure
from scoring._client.http import ChatClient
from scoring._client.notice import Said
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
    set_aside: int


@dataclass
class _Member:
    client: ChatClient
    held: int = 0  # requests given to it and not yet returned (waiting for a slot included)
    given: int = 0
    replies: int = 0
    completion_tokens: int = 0
    handed_on: int = 0
    dropped: EndpointUnavailableError | None = None
    failures: int = 0  # requests in a row that failed the replica's way (replica_failure)
    benched_until: float | None = None  # set aside until this time (the client's clock); None: in use
    rest: float = 0.0  # how long the next setting aside lasts (doubled after each failed probe)
    probing: bool = False  # the one request trying a set-aside replica is in flight
    set_aside: int = 0  # times it was set aside
    why: str | None = None  # why it is set aside (the report's ``dropped`` while it is)

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
                "dropped": self.scrub(str(member.dropped)) if member.dropped is not None else member.why,
                "set_aside": member.set_aside,
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
            elsewhere = self._others(tried | {index})
            after = member.client.retry.failover_after if elsewhere else None
            try:
                results = await member.client.complete(messages, params, hand_on_after=after)
            except EndpointUnavailableError as exc:
                if exc.kind in _PROBED and any(self._open(m) for m in self._members if m is not member):
                    self._rest(index, exc)  # dropped for now: probed again later
                else:
                    self._drop(index, exc)
                    if not self.alive:
                        raise
                member.handed_on += 1
                continue
            except RetriesExhaustedError as exc:
                self._failed(index, exc.cause)
                if not replica_failure(exc.cause) or not self._others(tried | {index}):
                    raise
                tried.add(index)
                member.handed_on += 1
                continue
            finally:
                member.held -= 1
                member.probing = False
                self._freed.set()
            self._answered(index)
            member.replies += 1
            for result in results:
                result.endpoint = member.client.endpoint
                if result.usage:
                    member.completion_tokens += max(0, result.usage.get("completion_tokens", 0))
            return results

    def _now(self) -> float:
        return self._members[0].client.clock.now()

    def _open(self, member: _Member) -> bool:
        """Alive and not set aside."""
        return member.dropped is None and member.benched_until is None

    def _others(self, tried: set[int]) -> bool:
        return any(self._open(m) and i not in tried for i, m in enumerate(self._members))

    def _answered(self, index: int) -> None:
        member = self._members[index]
        member.failures = 0
        if member.benched_until is not None:
            member.benched_until = None
            member.why = None
            member.rest = 0.0
            self._say(Msg("ui.pool.back", endpoint=member.client.endpoint))

    def _failed(self, index: int, cause: BaseException) -> None:
        """A request failed on this endpoint after its tries there: set it aside when the docstring says."""
        member = self._members[index]
        if not replica_failure(cause):
            member.failures = 0  # the record's own failure: the replica answers
            return
        member.failures += 1
        if member.dropped is not None:
            return
        if member.benched_until is not None:  # its probe failed (or one in flight when it was set aside)
            if member.probing:
                self._bench(member, cause, again=True)
            return
        retry = member.client.retry
        if member.failures < retry.unavailable_after:
            return
        # another one in use answers (its last request did): else the failures are the records' errors,
        # as with one endpoint
        if any(self._open(m) and m.replies and not m.failures for m in self._members if m is not member):
            self._bench(member, cause, again=False)

    def _rest(self, index: int, exc: EndpointUnavailableError) -> None:
        """An endpoint proven unable to serve in a way that may pass (no connection, no backend): dropped
        for now, said once, and tried again after its rest (its client's health starts afresh then)."""
        member = self._members[index]
        member.client.revive()
        if member.benched_until is not None:  # set aside already: its probe failed, or one sent before
            if member.probing:
                self._bench(member, exc, again=True)
            return
        self._bench(member, exc, again=False, quiet=True)
        left = sum(1 for m in self._members if self._open(m))
        self._say(
            Msg(
                "ui.pool.dropped_probe",
                endpoint=member.client.endpoint,
                reason=self.scrub(str(exc)),
                left=left,
                seconds=f"{member.rest:g}",
            )
        )

    def _bench(self, member: _Member, cause: BaseException, *, again: bool, quiet: bool = False) -> None:
        retry = member.client.retry
        member.rest = min(retry.probe_cap, member.rest * 2) if again and member.rest else retry.probe_after
        member.benched_until = self._now() + member.rest
        if again:
            return
        member.set_aside += 1
        if quiet:
            member.why = self.scrub(str(cause))
            return
        member.why = self.scrub(
            f"set aside: {member.failures} request(s) in a row failed ({describe(cause)}) while the others answered"
        )
        left = sum(1 for m in self._members if self._open(m))
        self._say(
            Msg(
                "ui.pool.benched",
                endpoint=member.client.endpoint,
                failures=member.failures,
                cause=self.scrub(describe(cause))[:200],
                left=left,
                seconds=f"{member.rest:g}",
            )
        )

    def _say(self, msg: Msg) -> None:
        said = Said(msg)
        self._notes.append(said)
        self._on_notice(said)

    async def _take(self, tried: set[int]) -> int:
        """The endpoint this request goes to, once one has a free slot (the request is counted on it)."""
        while True:
            now = self._now()
            if not any(self._open(m) for m in self._members):  # every live one is set aside: try them all now
                for member in self._members:
                    if member.dropped is None and member.benched_until is not None:
                        member.benched_until = min(member.benched_until, now)
            for index, member in enumerate(self._members):  # a set-aside replica whose rest is over: one probe
                if (
                    member.dropped is None
                    and member.benched_until is not None
                    and member.benched_until <= now
                    and not member.probing
                    and index not in tried
                    and (member.free > 0 or self._stopping)
                ):
                    member.probing = True
                    member.held += 1
                    member.given += 1
                    return index
            best: int | None = None
            best_key: tuple[bool, int, int] | None = None
            candidates = 0
            for index, member in enumerate(self._members):
                if not self._open(member) or index in tried:
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
                if any(self._open(m) for m in self._members):
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
        self._say(Msg("ui.pool.dropped", endpoint=member.client.endpoint, reason=self.scrub(str(exc)), left=left))


#: Ways of being unable to serve that may pass (a server restarting, a backend coming back): such an
#: endpoint is dropped for now and probed again later; a refused key, model or URL is dropped for good.
_PROBED = frozenset({"connect", "down", "backend", "other"})

#: What a runner or a judge sends through: one endpoint, or several as one.
AnyClient = ChatClient | EndpointPool
