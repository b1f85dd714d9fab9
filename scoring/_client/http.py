"""An async client for any OpenAI-compatible ``/chat/completions`` endpoint, built to survive faults.

- At most ``concurrency`` requests in flight: each attempt borrows one of ``concurrency`` single-connection
  httpx clients from a free list (connections are kept alive and reused; the cost per request does not
  grow with concurrency), and optionally at most ``rpm`` request starts a minute.
- ``timeout`` bounds each attempt as a whole (connect, send, the full reply), not only each network
  read: a server that trickles its reply a byte at a time cannot hold a request forever.
- Retries with exponential backoff and full jitter on 429, 408/409/425, 5xx, timeouts, refused or dropped
  connections and malformed bodies; ``Retry-After`` (seconds or HTTP date) and ``retry-after-ms`` are
  honoured, capped.
- A 4xx that retrying cannot fix raises :class:`PermanentRequestError` at once with the endpoint's message.
- When ``unavailable_after`` consecutive requests fail the same endpoint-wide way (connections refused or
  502/503/504 after every retry; 401 or 404, which a bad key, model name or URL gives every request),
  :class:`EndpointUnavailableError` is raised, and from then on every call fails fast with it.
- The API key never appears in any error text (:meth:`ChatClient.scrub`).

A client belongs to the event loop it is first used in (like ``httpx.AsyncClient``); close it with
``aclose()`` or ``async with``.

Example::

    async with ChatClient("http://127.0.0.1:8000/v1", "qwen") as client:
        [result] = await client.complete([{"role": "user", "content": "1+1"}], {"temperature": 0})
"""

from __future__ import annotations

import asyncio
import functools
import random
import ssl
import sys
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx
import orjson

from scoring._client.pacing import RateLimiter, backoff_delay, parse_retry_after
from scoring._errors import (
    ClientError,
    EndpointUnavailableError,
    MalformedResponseError,
    PermanentRequestError,
    RetriesExhaustedError,
    RetryableStatusError,
    TransientError,
)

__all__ = ["RETRYABLE_STATUS", "ChatClient", "ChatResult"]

#: Statuses below 500 that a later attempt may get past; every 5xx is retried too.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})

#: Statuses that, still there after every retry, mean the endpoint as a whole is down (a gateway or load
#: balancer up with no working server behind it), not that one request is at fault.
DOWN_STATUS = frozenset({502, 503, 504})

#: Permanent statuses no request of the run can get past: a rejected key (401), an unknown model or a
#: wrong URL (404). Unlike a 400 or 422, they never depend on the record.
REFUSED_STATUS = frozenset({401, 404})

_HINTS = {
    "connect": "check that the server is running and that the base URL is right",
    "down": "the server, or the gateway in front of it, has no working backend; wait until it recovers",
    401: "check the API key",
    404: "check the base URL (most servers expect it to end in /v1) and the model name",
}

_MAX_MESSAGE = 500


@dataclass
class ChatResult:
    """One choice of a chat completion."""

    content: str
    reasoning_content: str | None
    finish_reason: str | None
    usage: dict[str, int] | None
    logprobs: Any | None


class ChatClient:
    """Sends chat completions; see the module docstring for the guarantees."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        concurrency: int = 8,
        rpm: float | None = None,
        timeout: float = 60.0,
        max_retries: int = 5,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
        retry_after_cap: float = 60.0,
        unavailable_after: int = 3,
        seed: int | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.model = model
        self.concurrency = concurrency
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.max_retries = max_retries
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.retry_after_cap = retry_after_cap
        self.unavailable_after = max(1, unavailable_after)
        self._api_key = api_key or None
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        self._http = self._make_clients(concurrency, headers, timeout, transport)
        # The free list is the concurrency bound: a request takes a client, sends, gives it back.
        self._idle: asyncio.Queue[httpx.AsyncClient] = asyncio.Queue()
        for client in self._http:
            self._idle.put_nowait(client)
        if len(self._http) == 1:
            for _ in range(concurrency - 1):
                self._idle.put_nowait(self._http[0])
        self._limiter = RateLimiter(rpm) if rpm else None
        self._rng = random.Random(seed)
        self._bad_in_a_row = 0  # consecutive requests that failed an endpoint-wide way
        self._down: EndpointUnavailableError | None = None
        self.requests_sent = 0

    # -- lifecycle ---------------------------------------------------------------------------------------

    @staticmethod
    def _make_clients(
        concurrency: int, headers: dict[str, str], timeout: float, transport: httpx.AsyncBaseTransport | None
    ) -> list[httpx.AsyncClient]:
        """One single-connection httpx client per slot (a given ``transport`` is shared by one client).

        httpcore's pool scans every connection on each request, so one pool of N connections costs O(N)
        per request: at 64-256 in flight that scan, not the network, bounds throughput. N pools of one
        connection each, handed out from a free list, keep the cost per request constant.
        """
        options: dict[str, Any] = {"headers": headers, "timeout": httpx.Timeout(timeout), "follow_redirects": False}
        if transport is not None:
            return [httpx.AsyncClient(transport=transport, **options)]
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        ssl_context = _ssl_context()  # shared: building one costs tens of milliseconds
        return [httpx.AsyncClient(limits=limits, verify=ssl_context, **options) for _ in range(concurrency)]

    async def aclose(self) -> None:
        for client in self._http:
            await client.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- public ------------------------------------------------------------------------------------------

    def request_body(self, messages: list[dict[str, str]], params: dict[str, Any]) -> dict[str, Any]:
        """The JSON body sent for these messages and parameters (``model`` and ``messages`` are ours)."""
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        for key, value in params.items():
            if key not in body:
                body[key] = value
        return body

    async def complete(self, messages: list[dict[str, str]], params: dict[str, Any]) -> list[ChatResult]:
        """One chat completion (retried as needed); one :class:`ChatResult` per choice, in choice order."""
        self._fail_if_down()
        payload = orjson.dumps(self.request_body(messages, params))
        attempt = 0
        while True:
            try:
                results = await self._attempt(payload)
            except PermanentRequestError as exc:
                down = self._count_failure(exc, 1)
                if down is not None:
                    raise down from exc
                raise
            except (TransientError, httpx.TransportError) as exc:
                self._scrub_exception(exc)
                if attempt >= self.max_retries:
                    raise self._give_up(exc, attempt + 1) from exc
                await asyncio.sleep(self._delay(exc, attempt))
                self._fail_if_down()
                attempt += 1
                continue
            self._bad_in_a_row = 0
            return results

    def scrub(self, text: str) -> str:
        """``text`` with the API key (and any word holding a recognisable piece of it) masked."""
        key = self._api_key
        if not key or not text:
            return text
        text = text.replace(key, "***")
        if len(key) >= 12:
            head, tail = key[:8], key[-6:]
            if head in text or tail in text:
                words = text.split(" ")
                text = " ".join("***" if head in w or tail in w else w for w in words)
        return text

    # -- internals ---------------------------------------------------------------------------------------

    async def _attempt(self, payload: bytes) -> list[ChatResult]:
        client = await self._idle.get()
        try:
            if self._limiter is not None:
                await self._limiter.acquire()
            self._fail_if_down()  # it may have gone down while this request waited for its turn
            self.requests_sent += 1
            try:  # the whole attempt is bounded (httpx bounds each read only)
                if sys.version_info >= (3, 11):  # no task per request, unlike wait_for before 3.12
                    async with asyncio.timeout(self.timeout):
                        response = await client.post(self.url, content=payload)
                else:
                    response = await asyncio.wait_for(client.post(self.url, content=payload), self.timeout)
            except asyncio.TimeoutError:
                raise httpx.ReadTimeout(f"no complete reply within {self.timeout:g} s") from None
        finally:
            self._idle.put_nowait(client)
        status = response.status_code
        if status >= 400 or status < 200:
            message = self.scrub(_error_message(response))
            if status >= 500 or status in RETRYABLE_STATUS:
                raise RetryableStatusError(status, message, _retry_after(response.headers))
            raise PermanentRequestError(status, message)
        if 300 <= status < 400:
            raise PermanentRequestError(status, f"redirected to {response.headers.get('location', '?')}")
        return _parse_completion(response.content)

    def _delay(self, exc: BaseException, attempt: int) -> float:
        if isinstance(exc, RetryableStatusError) and exc.retry_after is not None:
            return min(exc.retry_after, self.retry_after_cap)
        return backoff_delay(attempt, base=self.backoff_base, cap=self.backoff_cap, rng=self._rng)

    def _give_up(self, exc: BaseException, attempts: int) -> ClientError:
        detail = self.scrub(_describe(exc, self.timeout))
        down = self._count_failure(exc, attempts, detail)
        if down is not None:
            return down
        return RetriesExhaustedError(exc, attempts, f"{detail} (after {attempts} attempt(s))")

    def _count_failure(
        self, exc: BaseException, attempts: int, detail: str | None = None
    ) -> EndpointUnavailableError | None:
        """Count a request that failed for good; the down error once ``unavailable_after`` in a row failed
        an endpoint-wide way (a failure that may be the request's own breaks the row)."""
        kind = _endpoint_wide(exc)
        if kind is None:
            self._bad_in_a_row = 0
            return None
        self._bad_in_a_row += 1
        if self._bad_in_a_row < self.unavailable_after:
            return None
        status = getattr(exc, "status", None)
        if detail is None:
            detail = self.scrub(str(exc))
        if kind == "connect":
            what = f"could not connect after {attempts} attempt(s) each"
        elif kind == "down":
            what = f"got HTTP {status} after {attempts} attempt(s) each"
        else:
            what = f"were refused with HTTP {status}"
        self._down = EndpointUnavailableError(
            f"endpoint {self.url} is unavailable: {self._bad_in_a_row} requests in a row {what} ({detail})",
            status=status if isinstance(status, int) else None,
            hint=_HINTS[kind],
        )
        return self._down

    def _fail_if_down(self) -> None:
        down = self._down
        if down is not None:
            raise EndpointUnavailableError(str(down), status=down.status, hint=down.hint) from down

    def _scrub_exception(self, exc: BaseException) -> None:
        if self._api_key and any(isinstance(a, str) and self._api_key[:8] in a for a in exc.args):
            exc.args = tuple(self.scrub(a) if isinstance(a, str) else a for a in exc.args)


def _endpoint_wide(exc: BaseException) -> str | int | None:
    """Which endpoint-wide failure ``exc`` is (a key of ``_HINTS``), or None when it may be the request's own."""
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return "connect"
    if isinstance(exc, RetryableStatusError) and exc.status in DOWN_STATUS:
        return "down"
    if isinstance(exc, PermanentRequestError) and exc.status in REFUSED_STATUS:
        return exc.status
    return None


def _retry_after(headers: httpx.Headers) -> float | None:
    """``retry-after-ms`` (OpenAI, Azure) when given, else ``Retry-After`` (seconds or an HTTP date)."""
    millis = parse_retry_after(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    return parse_retry_after(headers.get("retry-after"))


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def _describe(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, (RetryableStatusError, MalformedResponseError)):
        return str(exc)
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect within {timeout:g} s"
    if isinstance(exc, httpx.TimeoutException):
        return f"no complete reply within {timeout:g} s"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _error_message(response: httpx.Response) -> str:
    """The endpoint's own words: ``error.message``, ``detail``, ``message``, else the body text."""
    raw = response.content
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = None
    message: Any = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            message = error.get("message")
        elif isinstance(error, str):
            message = error
        if message is None:
            message = data.get("detail") or data.get("message")
    if message is None:
        message = raw.decode("utf-8", "replace").strip() or response.reason_phrase
    text = message if isinstance(message, str) else orjson.dumps(message).decode()
    return text[:_MAX_MESSAGE]


def _parse_completion(raw: bytes) -> list[ChatResult]:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MalformedResponseError(f"response body is not JSON ({len(raw)} bytes): {exc}") from exc
    if not isinstance(data, dict):
        raise MalformedResponseError("response body is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        error = data.get("error")
        hint = f": {error}" if error else ""
        raise MalformedResponseError(f"response has no choices{hint}"[:_MAX_MESSAGE])
    usage = _usage(data.get("usage"))
    results: list[tuple[int, ChatResult]] = []
    for position, choice in enumerate(choices):
        if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
            raise MalformedResponseError(f"choice {position} has no message")
        message = choice["message"]
        content = message.get("content")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise MalformedResponseError(f"choice {position} content is not text")
        reasoning = message.get("reasoning_content")
        if reasoning is None:
            reasoning = message.get("reasoning")
        finish = choice.get("finish_reason")
        index = choice.get("index")
        results.append(
            (
                index if isinstance(index, int) else position,
                ChatResult(
                    content=content,
                    reasoning_content=reasoning if isinstance(reasoning, str) else None,
                    finish_reason=finish if isinstance(finish, str) else None,
                    usage=usage,
                    logprobs=choice.get("logprobs"),
                ),
            )
        )
    results.sort(key=lambda pair: pair[0])
    return [result for _, result in results]


def _usage(raw: Any) -> dict[str, int] | None:
    """Integer counts; nested details (``completion_tokens_details.reasoning_tokens``) are flattened."""
    if not isinstance(raw, dict):
        return None
    usage: dict[str, int] = {}
    for key, value in raw.items():
        if isinstance(value, int) and not isinstance(value, bool):
            usage[key] = value
        elif isinstance(value, dict):
            for inner, count in value.items():
                if isinstance(count, int) and not isinstance(count, bool) and inner not in usage:
                    usage[inner] = count
    return usage or None
