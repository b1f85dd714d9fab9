"""Runtime errors of the endpoint client and the runner.

ClientError                      base of every error the client raises on purpose
├── PermanentRequestError        a 4xx no retry can fix (400, 401, 403, 404, 422, ...); ``.status``, ``.message``
├── TransientError               one failed attempt that is worth retrying (the ``cause`` of the errors below)
│   ├── RetryableStatusError     429, 408, 409, 425 or 5xx; ``.status``, ``.message``, ``.retry_after``
│   ├── MalformedResponseError   a 2xx whose body is not a chat completion (not JSON, truncated, no choices)
│   └── StreamError              a stream that reported an error in the middle (``data: {"error": ...}``)
├── ReplyTooLargeError           a reply (unpacked), an SSE line or an error body past its bound: not retried
│                                (the next attempt would be as large); ``.limit`` in bytes
├── RequestNotSent               the run is stopping (Ctrl-C, SIGTERM): this request was never sent
├── RetriesExhaustedError        every attempt failed; ``.cause`` is the last failure, ``.attempts`` how many
├── EndpointUnavailableError     the endpoint cannot serve: stop. The first requests of the run all failed the
│                                same way (a wrong model or key, a dead backend behind a gateway), or, after it
│                                served, several requests in a row failed endpoint-wide (scoring._client.health);
│                                ``.status`` (None when no HTTP answer), ``.hint`` (what to check), ``.cause``
│   └── JudgeUnavailableError    the same, met by the LLM judges: judging stopped, the verdicts bought are
│                                journaled; ``.bought``, ``.reused`` (verdicts bought now, taken from it)
├── ForwardedRequestError        a request that failed in a worker process (``--processes``); ``.text`` is its
│                                error as the worker worded it (scoring._client.processes)
├── OutputLockedError            another run holds the output's lock; ``.pid`` (None when unknown)
└── RunInterrupted               the run was stopped by a signal (SIGTERM); ``.signal``. Ctrl-C stays
                                 KeyboardInterrupt. Both keep the journal and remove temporary files.

The errors of the steps above the client, kept here too so that every error scoring raises for a caller
has one home (:mod:`scoring.errors` is their public face) and catching one loads nothing else:

JudgeSetupError        ValueError: the judge cannot start (bad option, template or ``--against`` file)
MetricError            ValueError: a metric name neither in the table nor an importable ``module:function``
ResultsFileError       ValueError: a results file that is not canonical jsonl
MergeError             ValueError: shard parts that cannot be merged; ``.problems``
BadLabelsError         ValueError: people's labels that cannot be used; ``.problems``
ScoringWorkerError     RuntimeError: a scoring worker process failed; nothing was written

Transport failures (timeouts, refused or dropped connections) are httpx's own ``httpx.TransportError``
subclasses; they are retried and end up as the ``cause`` of :class:`RetriesExhaustedError` or
:class:`EndpointUnavailableError` (raised ``from`` them). Every message is scrubbed of the API key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "AnsweredSetError",
    "BadLabelsError",
    "ClientError",
    "EndpointUnavailableError",
    "ForwardedRequestError",
    "JudgeSetupError",
    "JudgeUnavailableError",
    "MalformedResponseError",
    "MergeError",
    "MetricError",
    "OtherModelResultsError",
    "OutputLockedError",
    "PermanentRequestError",
    "PricesError",
    "ReplyTooLargeError",
    "RequestNotSent",
    "ResultsFileError",
    "RetriesExhaustedError",
    "RetryableStatusError",
    "RunInterrupted",
    "ScoringWorkerError",
    "StreamError",
    "TransientError",
    "error_kind",
]


class ClientError(Exception):
    """Base of every error raised on purpose by :mod:`scoring._client.http`."""


class PermanentRequestError(ClientError):
    """The endpoint refused the request in a way no retry can fix; recorded at once as the response's error."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(f"HTTP {status}: {message}")


class TransientError(ClientError):
    """One attempt failed in a way a later attempt may not."""


class RetryableStatusError(TransientError):
    """An HTTP status worth retrying (rate limited, server error)."""

    def __init__(self, status: int, message: str, retry_after: float | None = None, said: str | None = None) -> None:
        self.status = status
        self.message = message
        #: Seconds the server asked to wait (None: not said, or 0 or less), and the header that said it.
        self.retry_after = retry_after
        self.said = said
        super().__init__(f"HTTP {status}: {message}")


class MalformedResponseError(TransientError):
    """A successful status with a body that is not a usable chat completion."""


class StreamError(TransientError):
    """A streamed reply that reported an error after it began (the server's message)."""


class ReplyTooLargeError(ClientError):
    """A reply past the client's bound on bytes (see :mod:`scoring._client.body`); the record's error."""

    def __init__(self, message: str, *, limit: int) -> None:
        self.limit = limit
        super().__init__(message)


class RequestNotSent(ClientError):
    """The run is stopping: the request was not sent (its response stays open, without an error)."""


class RetriesExhaustedError(ClientError):
    """Every attempt failed; ``cause`` is the last failure."""

    def __init__(self, cause: BaseException, attempts: int, message: str) -> None:
        self.cause = cause
        self.attempts = attempts
        super().__init__(message)


class EndpointUnavailableError(ClientError):
    """The endpoint cannot be used at all; the run stops (what finished is kept).

    ``status`` is the HTTP status that every request got (None when connections failed), ``hint`` a
    sentence saying what to check (the key, the URL, the model name, whether the server is up), ``kind``
    the same as data: ``connect``, ``backend``, ``key``, ``model``, ``url``, ``down``, ``refused``, ``other``.
    """

    def __init__(
        self, message: str, *, status: int | None = None, hint: str = "", cause: str = "", kind: str = "other"
    ) -> None:
        self.status = status
        self.hint = hint
        self.kind = kind
        #: How the requests failed, in the endpoint's words (HTTP status and message, or the network error).
        self.cause = cause
        super().__init__(message)


class JudgeUnavailableError(EndpointUnavailableError):
    """The judge endpoint proved unusable, so judging stopped before every response had its verdict.

    The verdicts bought before are in the judge journal (a rerun does not buy them again); no record is
    returned, since the rest would all read "request failed" and their summary would be a meaningless
    score. ``bought``: verdicts bought in this run; ``reused``: taken from the journal.
    """

    def __init__(self, message: str, *, status: int | None, hint: str, bought: int, reused: int) -> None:
        super().__init__(message, status=status, hint=hint)
        self.bought = bought
        self.reused = reused


class ForwardedRequestError(ClientError):
    """A request failed in a worker process (``formatkit run --processes``); ``text`` is the response's
    ``error`` as the worker worded it (``kind: detail``), kept as it is."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(text)


class OutputLockedError(ClientError):
    """Another run is writing the same output (it holds the lock on its journal)."""

    def __init__(self, message: str, *, pid: int | None) -> None:
        self.pid = pid
        super().__init__(message)


class RunInterrupted(Exception):
    """The run was stopped by a signal other than Ctrl-C (SIGTERM from ``timeout``, Docker, Kubernetes)."""

    def __init__(self, signal: int) -> None:
        self.signal = signal
        super().__init__(f"stopped by signal {signal}")


class EndpointSetupError(ValueError):
    """The endpoint cannot be asked as it is set up (a base URL that is no URL, an API key holding a
    character no HTTP header can carry); found before the first request, so nothing was sent."""


class ProxyUnsupportedError(EndpointSetupError):
    """A proxy variable of the environment (``ALL_PROXY=socks5://...``) names a SOCKS proxy, and httpx's
    SOCKS support (the ``socksio`` package) is not installed; ``variable`` and ``proxy`` (its URL, without
    credentials) say which."""

    def __init__(self, variable: str, proxy: str) -> None:
        super().__init__(f"{variable}={proxy} names a SOCKS proxy, but httpx's SOCKS support is not installed")
        self.variable = variable
        self.proxy = proxy


class JudgeSetupError(ValueError):
    """The judge cannot start (bad option, template or ``--against`` file); nothing was sent."""


class MetricError(ValueError):
    """A metric name that is neither in the table nor an importable ``module:function``."""


class ResultsFileError(ValueError):
    """A results file that is not canonical jsonl (a line that is not JSON, or not a record)."""


class BadLabelsError(ValueError):
    """People's labels that cannot be used (off the judge's scale, not a number, not finite, given twice for
    one response, matching no record): ``problems`` holds each as a catalogue message naming its place (file,
    line or cell); nothing was computed. ``skip_bad_labels`` leaves them out instead."""

    def __init__(self, problems: Sequence[Any]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(str(problem) for problem in self.problems))

    @property
    def count(self) -> int:
        return len(self.problems)

    def listed(self, lang: str = "en", limit: int = 20) -> str:
        """The problems in ``lang``, one indented line each (the first ``limit``, then how many more)."""
        shown = [p.render(lang) if hasattr(p, "render") else str(p) for p in self.problems[:limit]]
        more = [f"… +{len(self.problems) - limit}"] if len(self.problems) > limit else []
        return "".join(f"\n  {line}" for line in [*shown, *more])


class MergeError(ValueError):
    """The parts cannot be merged; ``problems`` lists every reason in English, each naming its part, and
    ``messages`` the same reasons as catalogue messages (``.render(lang)`` says them in another language)."""

    def __init__(self, problems: Sequence[object]) -> None:
        self.messages = list(problems)
        self.problems = [str(problem) for problem in problems]
        super().__init__("; ".join(self.problems))


class AnsweredSetError(ValueError):
    """Sets given to eval whose records already hold replies another model made (a results file among
    them): ``.datasets`` (dataset → records), ``.model`` (the model being evaluated)."""

    def __init__(self, datasets: dict[str, int], model: str) -> None:
        self.datasets, self.model = datasets, model
        super().__init__(f"replies not made by {model!r} already in: {self.names}")

    @property
    def names(self) -> str:
        """The datasets with their counts, ``seed_output_single_turn (2), ...``."""
        return ", ".join(f"{name} ({count})" for name, count in self.datasets.items())


class OtherModelResultsError(ValueError):
    """An eval directory that holds another model's results (its ``run.json``): evaluating a second model
    there would replace them. ``.directory``, ``.held`` (the model whose results are there), ``.model``."""

    def __init__(self, directory: str, held: str, model: str) -> None:
        self.directory, self.held, self.model = directory, held, model
        super().__init__(f"{directory} holds the results of model {held!r}, not {model!r}")


class PricesError(ValueError):
    """A price file (``--prices``) that cannot be read or does not price the model; the message says what to change."""


class ScoringWorkerError(RuntimeError):
    """A scoring worker failed (its traceback is the message); nothing was written."""


def error_kind(exc: BaseException) -> str:
    """A short stable label for summaries: ``http_401``, ``timeout``, ``connection``, ``malformed``, ..."""
    import httpx

    if isinstance(exc, RetriesExhaustedError):
        return error_kind(exc.cause)
    if isinstance(exc, (PermanentRequestError, RetryableStatusError)):
        return f"http_{exc.status}"
    if isinstance(exc, MalformedResponseError):
        return "malformed"
    if isinstance(exc, StreamError):
        return "stream_error"
    if isinstance(exc, ReplyTooLargeError):
        return "too_large"
    if isinstance(exc, EndpointUnavailableError):
        return "unavailable"
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, (httpx.NetworkError, httpx.RemoteProtocolError)):
        return "connection"
    return type(exc).__name__
