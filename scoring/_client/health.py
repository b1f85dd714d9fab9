"""When an endpoint as a whole cannot serve: the rules that stop a run instead of failing every record.

1. **Same first failures.** While nothing has succeeded yet, ``unavailable_after`` attempts in a row that
   fail the very same way (same status and message, digits ignored; or the same transport error) stop
   the run: a wrong model name (LiteLLM: 400 "Invalid model name"), a rejected key (401, or LiteLLM's
   400 "No connected db."), a dead backend behind a gateway (500 "Connection error"), a wrong URL (404),
   nothing listening. Rate limits (429) and timeouts never count: they say "wait", not "cannot".
2. **Endpoint-wide after it has served.** Once a request has succeeded, a failure that may be the
   record's own (400, 422, a 500) stays that record's error; the run stops only after
   ``unavailable_after`` requests in a row, each after its retries, failed an endpoint-wide way:
   connections refused, 502/503/504, a gateway's 500 saying its backend is unreachable, 401 or 404.

What the endpoint has shown counts, not only what happened first in this process: a run resuming a
journal that holds replies of this model from this endpoint calls :meth:`EndpointHealth.has_served`, and
until a request of this run succeeds, rule 1 then counts only failures that never depend on the record
(a key or model refused, a wrong URL, no connection, a dead backend). Records that failed on their own
before (a prompt longer than the model's context, a parameter one model refuses), sent again first, cannot
stop the resumed run; a key or model name that is wrong now still stops it within a handful of requests.
A prompt longer than the model's context is always the record's own problem (:func:`too_long_for_context`).
"""

from __future__ import annotations

import re

import httpx

from scoring._errors import (
    EndpointUnavailableError,
    MalformedResponseError,
    PermanentRequestError,
    ReplyTooLargeError,
    RetryableStatusError,
    StreamError,
)

__all__ = ["EndpointHealth", "backend_unreachable", "diagnose", "replica_failure", "too_long_for_context"]

#: Statuses that, still there after every retry, mean no server is behind a gateway or load balancer.
DOWN_STATUS = frozenset({502, 503, 504})

#: Permanent statuses that never depend on the record: a rejected key (401), unknown model or URL (404).
REFUSED_STATUS = frozenset({401, 404})

#: What gateways say in a 5xx when they cannot reach the model server behind them (LiteLLM:
#: "OpenAIException - Connection error.", "APIConnectionError"; aiohttp: "Cannot connect to host";
#: Envoy: "no healthy upstream"; nginx: "connect() failed").
_UNREACHABLE = re.compile(
    r"connection error|apiconnectionerror|cannot connect to host|connection refused|no healthy upstream"
    r"|upstream connect error|connect\(\) failed|name or service not known|failed to establish a new connection",
    re.IGNORECASE,
)

#: Kinds of failure (:func:`diagnose`) that no record can cause.
_NEVER_THE_RECORD = frozenset({"connect", "backend", "key", "model", "url", "down"})

_DIGITS = re.compile(r"\d+")

#: What servers say when the prompt (with the tokens asked for) does not fit the model's context (OpenAI,
#: vLLM, LiteLLM's ContextWindowExceededError, TGI, llama.cpp, Anthropic).
_CONTEXT = re.compile(
    r"context length|context window|context_length_exceeded|contextwindowexceeded|maximum model length"
    r"|prompt is too long|exceeds the available context|input is too long|too many input tokens"
    r"|inputs` tokens \+ `max_new_tokens`",
    re.IGNORECASE,
)


def too_long_for_context(exc: BaseException) -> bool:
    """A refusal saying the prompt does not fit the model's context: the record's own problem."""
    return isinstance(exc, (PermanentRequestError, RetryableStatusError)) and bool(_CONTEXT.search(exc.message))


def backend_unreachable(exc: BaseException) -> bool:
    """A 5xx whose message says the gateway could not reach its backend."""
    return isinstance(exc, RetryableStatusError) and exc.status >= 500 and bool(_UNREACHABLE.search(exc.message))


def signature(exc: BaseException) -> str | None:
    """How an attempt failed, comparable across requests; None for failures that say "wait" (429,
    408, timeouts), which never count as the endpoint being unable to serve."""
    if isinstance(exc, (PermanentRequestError, RetryableStatusError)):
        if exc.status in (408, 425, 429) or too_long_for_context(exc):
            return None
        return f"{exc.status} {_DIGITS.sub('#', exc.message)[:300]}"
    if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
        return None
    if isinstance(exc, (MalformedResponseError, StreamError, ReplyTooLargeError)):
        return f"{type(exc).__name__} {_DIGITS.sub('#', str(exc))[:300]}"
    if isinstance(exc, httpx.TransportError):
        return type(exc).__name__
    return None


def diagnose(exc: BaseException) -> tuple[str, str]:
    """What kind of failure stopped the endpoint, and what to check: ``connect``, ``backend``, ``key``,
    ``model``, ``url``, ``down``, ``refused`` or ``other`` (callers such as the judges word their own hint
    from the kind)."""
    status = getattr(exc, "status", None)
    text = str(getattr(exc, "message", "") or exc).lower()
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return "connect", "check that the server is running and that the base URL is right"
    if backend_unreachable(exc):
        return (
            "backend",
            "the gateway answers but cannot reach the model server behind it: start that server or fix the route",
        )
    if status == 401 or "api key" in text or "no connected db" in text or "unauthori" in text or "authenticat" in text:
        return "key", "check the API key"
    if "model" in text and any(w in text for w in ("invalid", "not found", "does not exist", "unknown", "no such")):
        return "model", "check the model name (GET /v1/models on the server lists the names it knows)"
    if status == 404:
        return "url", "check the base URL (most servers expect it to end in /v1) and the model name"
    if status in DOWN_STATUS:
        return "down", "the server, or the gateway in front of it, has no working backend; wait until it recovers"
    if status in (400, 422):
        return "refused", "every request was refused the same way: check the model name, the key and the parameters"
    return "other", "every request failed the same way: check the endpoint"


def hint_for(exc: BaseException) -> str:
    """What to check, from the way requests failed."""
    return diagnose(exc)[1]


def endpoint_wide(exc: BaseException) -> bool:
    """A failure (after its retries) that is the endpoint's, not the record's."""
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return True
    if isinstance(exc, RetryableStatusError):
        return exc.status in DOWN_STATUS or backend_unreachable(exc)
    return isinstance(exc, PermanentRequestError) and exc.status in REFUSED_STATUS


def replica_failure(exc: BaseException) -> bool:
    """A failure that is the replica's, whatever the record: the transport's (a reset, a refused
    connection, a read timeout, ``--max-time``, a reply below ``--min-rate``), or an endpoint-wide status
    (:func:`endpoint_wide`). In a pool such a request goes to another replica."""
    return isinstance(exc, httpx.TransportError) or endpoint_wide(exc)


class EndpointHealth:
    """Counts failures and successes of one endpoint; says when to stop (see the module docstring)."""

    def __init__(self, where: str, unavailable_after: int = 3) -> None:
        self.where = where
        self.unavailable_after = max(1, unavailable_after)
        self.served = False
        self.proven = False
        self.down: EndpointUnavailableError | None = None
        self._first: str | None = None
        self._first_count = 0
        self._bad_in_a_row = 0

    def succeeded(self) -> None:
        self.served = True
        self._bad_in_a_row = 0

    def has_served(self) -> None:
        """The endpoint is known to have answered these requests before (a resumed journal holds its replies)."""
        self.proven = True

    def repeats(self, exc: BaseException) -> bool:
        """Nothing has succeeded and ``exc`` fails the way the previous counted failure did."""
        return not self.served and self.down is None and self._first is not None and signature(exc) == self._first

    def doubtful(self) -> bool:
        """Nothing has succeeded yet and a failure that may prove the endpoint unable to serve was seen."""
        return not self.served and self.down is None and self._first_count > 0

    def attempt_failed(self, exc: BaseException) -> EndpointUnavailableError | None:
        """Rule 1, per attempt; the stop error when the run must stop."""
        if self.served or self.down is not None:
            return self.down
        sig = signature(exc)
        if sig is None or (self.proven and diagnose(exc)[0] not in _NEVER_THE_RECORD):
            return None
        if sig == self._first:
            self._first_count += 1
        else:
            self._first, self._first_count = sig, 1
        if self._first_count < self.unavailable_after:
            return None
        return self._stop(exc, f"the first {self._first_count} requests all failed the same way and none succeeded")

    def request_failed(self, exc: BaseException, attempts: int) -> EndpointUnavailableError | None:
        """Rule 2, per request after its retries."""
        if self.down is not None:
            return self.down
        if not endpoint_wide(exc):
            self._bad_in_a_row = 0
            return None
        self._bad_in_a_row += 1
        if self._bad_in_a_row < self.unavailable_after:
            return None
        return self._stop(exc, f"{self._bad_in_a_row} requests in a row failed, each after {attempts} attempt(s)")

    def _stop(self, exc: BaseException, why: str) -> EndpointUnavailableError:
        status = getattr(exc, "status", None)
        kind, hint = diagnose(exc)
        self.down = EndpointUnavailableError(
            f"endpoint {self.where} cannot serve: {why}; {_how(exc)}",
            status=status if isinstance(status, int) else None,
            hint=hint,
            cause=describe(exc),
            kind=kind,
        )
        return self.down


def _how(exc: BaseException) -> str:
    if isinstance(exc, PermanentRequestError):
        return f"refused with HTTP {exc.status}: {exc.message}"
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return f"could not connect ({describe(exc)})"
    return describe(exc)


def describe(exc: BaseException) -> str:
    if isinstance(exc, (PermanentRequestError, RetryableStatusError, MalformedResponseError)):
        return str(exc)
    if isinstance(exc, httpx.ConnectTimeout):
        return "could not connect in time"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
