"""The client's options as three objects, httpx-style (``httpx.Limits``, ``httpx.Timeout``): a
:class:`~scoring._client.http.ChatClient` takes a few of them, and the same objects travel down from
:class:`~scoring._runner.options.EndpointOptions` (``formatkit run``'s options) unchanged.

    ChatClient(url, "qwen", limits=Limits(concurrency=32, rpm=600), retry=RetryPolicy(max_retries=0))

Each has a default for every field: ``Limits()`` is what a client takes without being told.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["Dialect", "Limits", "RetryPolicy", "with_fields"]

Options = TypeVar("Options", bound="DataclassInstance")

_MIB = 1024 * 1024  # as scoring._client.body's MIB (not imported: that module loads httpx)


@dataclass(frozen=True)
class Limits:
    """How much a client takes on at once, and how long and how large one attempt may be.

    - ``concurrency``: requests in flight at most (one connection each).
    - ``rpm``: request starts a minute at most (None: no bound).
    - ``timeout``: the longest *silence* allowed, in seconds: to connect, or between two pieces of a
      streamed reply (a long generation at any speed completes).
    - ``max_time``: a cap on one attempt as a whole, in seconds (None: none; 1800 by default, so a reply
      that trickles forever ends; a reply whose every choice has finished is kept at the cap).
    - ``min_rate``: the slowest a reply may come, in bytes a second, measured over each ``timeout``
      seconds of it from its first byte on (None or 0: no floor; the wait for the first byte is
      ``timeout``'s). A server that sends a byte every few seconds never falls silent long enough for
      ``timeout``: this floor cuts it (a streamed token is ~100 bytes of SSE, so 8 bytes a second is far
      below any model that generates).
    - ``max_reply_bytes``: a reply (or one line of a stream) unpacked at most; past it the request fails
      with :class:`~scoring._errors.ReplyTooLargeError`, not retried.
    - ``max_error_bytes``: how much of an error body is read (its message is all that is wanted).
    """

    concurrency: int = 8
    rpm: float | None = None
    timeout: float = 60.0
    max_time: float | None = 1800.0
    min_rate: float | None = 8.0
    max_reply_bytes: int = 64 * _MIB
    max_error_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")


@dataclass(frozen=True)
class RetryPolicy:
    """When a failed request is asked again, how long the client waits first, and when it gives up.

    - ``max_retries``: retries per request after the first try (a rate limit is always waited out: see
      ``rate_limit_window``).
    - ``backoff_base``, ``backoff_cap``: the exponential backoff after a 5xx, a timeout or a dropped
      connection (seconds: the first wait, the longest); ``backoff_base`` is also the jitter added to a
      wait the server asked for.
    - ``rate_limit_base``, ``rate_limit_cap``: the same after a 429 that says no wait of its own (longer).
    - ``rate_limit_window``: a rate-limited request is not given up before this many seconds (or the
      server's stated wait, if longer) have passed since it was first limited, whatever ``max_retries``.
    - ``retry_after_cap``: a server wait longer than this (a daily quota) stops the run with
      :class:`~scoring._errors.EndpointUnavailableError` (kind ``quota``) instead of sleeping.
    - ``notice_wait``: a server wait of this many seconds or more is said at once (the client's
      ``on_notice``).
    - ``unavailable_after``: how many first requests failing the same way, or requests in a row failing
      endpoint-wide, prove the endpoint unable to serve (:mod:`scoring._client.health`).
    - ``failover_after``: in a pool of replicas (:mod:`scoring._client.pool`), the attempts a request
      makes on one replica when its failure is the transport's (a reset, a read timeout, ``max_time``, a
      reply below ``min_rate``, a refused connection, 502/503/504) before it goes to another live replica;
      its retries go on there. With one endpoint, or none left untried, ``max_retries`` applies as ever.
    - ``probe_after``: seconds a replica set aside by the pool (its requests failing while the others
      answer) rests before one request tries it again; doubled after each failed try, up to ``probe_cap``.
    - ``seed``: seeds the jitter of the waits (None: fresh randomness), for reproducible runs and tests.
    """

    max_retries: int = 5
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    rate_limit_base: float = 2.0
    rate_limit_cap: float = 60.0
    rate_limit_window: float = 60.0
    retry_after_cap: float = 600.0
    notice_wait: float = 10.0
    unavailable_after: int = 3
    failover_after: int = 1
    probe_after: float = 30.0
    probe_cap: float = 600.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        if self.failover_after < 1:
            raise ValueError("failover_after must be at least 1")


@dataclass(frozen=True)
class Dialect:
    """How this endpoint wants its requests worded, applied to every body sent.

    - ``stream``: stream replies (SSE, usage asked for in the stream); a server that refuses streaming
      is asked again without it, and the client stays non-streaming.
    - ``headers``: extra HTTP headers for every request (after the client's own, so they may replace them).
    - ``rename_params``: parameters sent under another name (``max_tokens`` → ``max_completion_tokens``).
    - ``drop_params``: parameters never sent.
    """

    stream: bool = True
    headers: Mapping[str, str] = field(default_factory=dict)
    rename_params: Mapping[str, str] = field(default_factory=dict)
    drop_params: tuple[str, ...] = ()


def with_fields(options: Options | None, kind: type[Options], changes: Mapping[str, Any]) -> Options:
    """``options`` (None: ``kind()``, the defaults) with the fields given as keywords replaced, for a call
    that takes an options object and each of its fields as a keyword too (``run_file(..., limit=10)``).
    Without keywords it is ``options`` itself: an object passed down the stack stays the same object."""
    base = options if options is not None else kind()
    return replace(base, **changes) if changes else base
