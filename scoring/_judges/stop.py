"""When the judge endpoint cannot serve at all: stop judging instead of writing every score null.

The client stops on what it recognises itself (refused connections, 401/404/502-504 in a row). A gateway
hides more than that behind ordinary statuses: LiteLLM answers a wrong model name with **400** ("Invalid
model name passed in model=…"), a missing key database with 400, and a dead backend with **500**
("Connection error"). The judges watch their own failures and stop when:

- nothing has succeeded yet and the first :data:`SAME_FAILURES` failures all carry the same HTTP status and
  message (a wrong model or key fails every request alike; one record's own 400, such as a prompt too
  long, differs from the others' or comes after a success, and stays that record's error);
- a 5xx says the backend behind the gateway cannot be reached: no later request will do better.

Rate limiting (408, 409, 425, 429) never counts: it says the endpoint serves, only not yet. Only the
exceptions' public ``status`` and ``message`` are read (on the error or its ``cause``), never their types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from scoring._errors import EndpointUnavailableError

__all__ = ["SAME_FAILURES", "FailureWatch", "failure_of"]

#: How many identical failures, with no success before them, prove the endpoint cannot serve.
SAME_FAILURES = 3

_NOT_FAILURES = frozenset({408, 409, 425, 429})

_UNREACHABLE = re.compile(
    r"connection error|connection refused|connect(?:ion)? timed? ?out|(?:cannot|could not|can't|failed to) connect"
    r"|unreachable|name or service not known|no healthy upstream|upstream connect error|apiconnectionerror"
    r"|failed to establish a new connection|no route to host|network is unreachable",
    re.IGNORECASE,
)


def failure_of(exc: BaseException) -> tuple[int | None, str]:
    """The HTTP status and the endpoint's message behind ``exc`` (looking through ``cause`` and
    ``__cause__``); ``(None, str(exc))`` when no HTTP answer was had."""
    current: BaseException | None = exc
    seen: set[int] = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        status = getattr(current, "status", None)
        message = getattr(current, "message", None)
        if isinstance(status, int) and not isinstance(status, bool) and isinstance(message, str):
            return status, message
        cause = getattr(current, "cause", None)
        current = cause if isinstance(cause, BaseException) else current.__cause__
    return None, str(exc)


def _hint(status: int, message: str, unreachable: bool) -> str:
    if unreachable:
        return (
            "the judge endpoint answers but cannot reach the model behind it: check that the backend server "
            "is up and that the gateway routes the judge model to it"
        )
    if status not in (401, 403) and re.search(r"model", message, re.IGNORECASE):
        return "check --judge-model: the endpoint does not serve a model by that name"
    if status in (401, 403) or re.search(r"\bkey\b|auth|\bdb\b|database", message, re.IGNORECASE):
        return "check the judge API key (--judge-api-key-env names the environment variable that holds it)"
    return "every judge request failed with the same error: check --judge-base-url, --judge-model and the key"


@dataclass
class FailureWatch:
    """Fed every judge request's outcome; :meth:`failed` returns the reason to stop, once it is proven."""

    threshold: int = SAME_FAILURES
    succeeded: bool = False
    _failures: list[tuple[int, str]] = field(default_factory=list)

    def success(self) -> None:
        self.succeeded = True

    def failed(self, exc: BaseException) -> EndpointUnavailableError | None:
        status, message = failure_of(exc)
        if status is None or status in _NOT_FAILURES:
            return None
        if status >= 500 and _UNREACHABLE.search(message):
            return EndpointUnavailableError(
                f"endpoint cannot reach its backend (HTTP {status}: {message})",
                status=status,
                hint=_hint(status, message, unreachable=True),
            )
        if self.succeeded:
            return None
        self._failures.append((status, message))
        if len(self._failures) < self.threshold or len(set(self._failures)) != 1:
            return None
        return EndpointUnavailableError(
            f"endpoint cannot serve: its first {len(self._failures)} requests all failed alike "
            f"(HTTP {status}: {message})",
            status=status,
            hint=_hint(status, message, unreachable=False),
        )
