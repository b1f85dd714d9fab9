"""An async client for any OpenAI-compatible ``/chat/completions`` endpoint, built to survive faults.

- **Streaming by default** (SSE, usage asked for in the stream): ``timeout`` is the longest *silence*
  allowed (connect, or between two pieces of the reply), so a long generation at any speed completes;
  ``max_time`` optionally caps an attempt as a whole. A server that refuses streaming (a 400/422 naming
  ``stream``) is asked again without it, and the client stays non-streaming; a server that ignores
  ``stream`` and answers plain JSON is read as such. When streamed requests fail alike (a 5xx, a broken
  stream) before anything has succeeded, one plain request is tried: if it works, the server's streaming
  path is what is broken, and the client stops streaming (a note says so).
- At most ``concurrency`` requests in flight (a free list of single-connection httpx clients: the cost
  per request does not grow with concurrency), optionally at most ``rpm`` request starts a minute.
- Retries on 429, 408/409/425, 5xx, timeouts, dropped connections and malformed bodies. Rate limits
  (429) are waited out: the server's own wait is honoured (``Retry-After``, ``retry-after-ms``, LiteLLM's
  ``llm_provider-retry-after[-ms]``, ``x-ratelimit-reset-requests/-tokens`` such as ``1m30s``), every
  request pauses meanwhile, the backoff without a header is longer than for 5xx, and a rate-limited
  request is never given up before the server's window (its stated wait, at least ``rate_limit_window``)
  has passed, whatever ``max_retries`` says. A server wait of ``notice_wait`` seconds or more is said at
  once (``on_notice``); one beyond ``retry_after_cap`` (a daily quota) stops the run with
  :class:`EndpointUnavailableError` (kind ``quota``) instead of sleeping; a wait of 0 or less, or a date
  in the past, counts as not said (the client's own backoff, never a hot loop).
- Every body is bounded (:mod:`scoring._client.body`): a reply at ``max_reply_bytes`` unpacked (a
  compression bomb is stopped there, using little memory), an SSE line likewise, an error body read only
  up to ``max_error_bytes`` (its message is all that is wanted). Past the bound the request fails with
  :class:`ReplyTooLargeError`, the record's error; nothing is retried.
- Before anything has succeeded, once a request has failed in a way that could prove the endpoint
  unable to serve, new requests wait for those in flight to settle: the proof needs the same handful of
  requests whatever the concurrency and however the replies interleave.
- When the endpoint as a whole cannot serve, :class:`EndpointUnavailableError` is raised (with the
  cause and a hint) and every later call fails fast: see :mod:`scoring._client.health`.
- The API key and any credentials in the URL never appear in an error (:meth:`ChatClient.scrub`).
- Per endpoint: extra ``headers``, ``rename_params`` (``max_tokens`` → ``max_completion_tokens``) and
  ``drop_params``, applied to every body sent.

The options named above are fields of three objects (:mod:`scoring._client.options`): ``limits``
(:class:`Limits`: concurrency, rpm, timeout, max_time, the body bounds), ``retry`` (:class:`RetryPolicy`:
retries, backoff, rate-limit waits, when the endpoint counts as unavailable) and ``dialect``
(:class:`Dialect`: stream, headers, renamed and dropped parameters).

A client belongs to the event loop it is first used in (like ``httpx.AsyncClient``); close it with
``aclose()`` or ``async with``.

    async with ChatClient("http://127.0.0.1:8000/v1", "qwen") as client:
        [result] = await client.complete([{"role": "user", "content": "1+1"}], {"temperature": 0})
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import random
import re
import ssl
import sys
import time
import unicodedata
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any

import httpx
import orjson

from formatkit._core.record import JsonObject, Parameters
from scoring._client.body import RateFloor, decoded_blocks, read_body
from scoring._client.health import EndpointHealth, describe, replica_failure
from scoring._client.options import Dialect, Limits, RetryPolicy
from scoring._client.pacing import Clock, RateLimiter, asked_wait, backoff_delay, rate_limit_delay
from scoring._client.reply import ChatResult, parse_completion
from scoring._client.stream import StreamFolder, fold_stream
from scoring._client.url import check_base_url, endpoint_url, public_url, url_secrets
from scoring._errors import (
    ClientError,
    EndpointSetupError,
    EndpointUnavailableError,
    PermanentRequestError,
    ProxyUnsupportedError,
    ReplyTooLargeError,
    RequestNotSent,
    RetriesExhaustedError,
    RetryableStatusError,
    StreamError,
    TransientError,
)

__all__ = ["RETRYABLE_STATUS", "ChatClient", "ChatResult", "Dialect", "Limits", "RetryPolicy", "clean_api_key"]

#: Statuses below 500 that a later attempt may get past; every 5xx is retried too.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})

#: Parameters the client owns: a set or ``--param`` cannot switch streaming on or off per request.
CLIENT_OWNED = frozenset({"stream", "stream_options"})

_MAX_MESSAGE = 500

# What a client takes when not told (frozen: one of each serves every client).
_LIMITS, _RETRY, _DIALECT = Limits(), RetryPolicy(), Dialect()

_log = logging.getLogger("scoring")

#: An error body's ``"message": "..."`` when the body as a whole cannot be read as JSON.
_MESSAGE_FIELD = re.compile(rb'"message"\s*:\s*"((?:[^"\\]|\\.){0,2000})"')


def clean_api_key(key: str | None) -> tuple[str | None, str | None]:
    """``key`` without surrounding whitespace (a CRLF ``.env`` leaves a ``\\r``), and a warning when that
    changed it; an empty key is no key. :class:`~scoring.errors.EndpointSetupError` when what is left
    holds a character no HTTP header carries (a pasted ``…``, a zero-width space), naming the character
    and its place, never the key."""
    if key is None:
        return None, None
    stripped = key.strip()
    for position, char in enumerate(stripped, start=1):
        if not " " <= char <= "~":  # an HTTP header carries printable ASCII only: refuse before any request
            name = unicodedata.name(char, "a control character")
            raise EndpointSetupError(
                f"the API key holds {name.lower()} (U+{ord(char):04X}) at character {position} of "
                f"{len(stripped)}: an HTTP header carries ASCII only (a key pasted from a document or a chat?); "
                "copy the key again from its source"
            )
    warning = None
    if stripped != key:
        ends = "a carriage return (\\r)" if key.rstrip(" \t").endswith("\r") else "whitespace"
        warning = f"the API key ends in {ends} (a file saved with Windows line ends?); it was stripped"
    return stripped or None, warning


#: The longest model name taken: names are sent in every request and written into every response and
#: report (a 10 MB name would make every one of them 10 MB).
MAX_MODEL_NAME = 512


def check_model(model: str) -> None:
    """:class:`~scoring.errors.EndpointSetupError` for a model name no server has: empty, or longer than
    :data:`MAX_MODEL_NAME` characters. (Control characters are sent as JSON escapes and printed escaped.)"""
    if not model.strip():
        raise EndpointSetupError("the model name is empty")
    if len(model) > MAX_MODEL_NAME:
        raise EndpointSetupError(
            f"the model name is {len(model)} characters long ({model[:40]!r}...): at most {MAX_MODEL_NAME}"
        )


def _proxy_unsupported() -> ProxyUnsupportedError | None:
    """The proxy variable httpx read that names a SOCKS proxy (the one its ImportError is about), if any."""
    for variable in ("ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        value = os.environ.get(variable, "")
        if value.lower().startswith("socks"):
            try:
                shown = public_url(value)
            except ValueError:
                shown = value.partition("://")[0] + "://..."
            return ProxyUnsupportedError(variable, shown)
    return None


class ChatClient:
    """Sends chat completions; see the module docstring for the guarantees."""

    #: What backoff, rate-limit pauses and ``rpm`` read the time from and wait on (a test sets a fake one).
    clock: Clock = Clock()

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        limits: Limits = _LIMITS,
        retry: RetryPolicy = _RETRY,
        dialect: Dialect = _DIALECT,
        transport: httpx.AsyncBaseTransport | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        check_model(model)
        self.model = model
        #: The options as given (:mod:`scoring._client.options`); the retry path reads ``retry`` as it is.
        self.limits, self.retry, self.dialect = limits, retry, dialect
        check_base_url(base_url)
        self.url = endpoint_url(base_url)
        #: The base URL as it may be shown and recorded: no credentials.
        self.endpoint = public_url(base_url.strip().rstrip("/"))
        # What every attempt reads, as plain attributes; ``stream`` changes when the server refuses it.
        self.concurrency = limits.concurrency
        self.timeout = limits.timeout
        self.max_time = limits.max_time
        self.min_rate = limits.min_rate
        self.max_reply_bytes = limits.max_reply_bytes
        self.max_error_bytes = limits.max_error_bytes
        self.stream = dialect.stream
        self.stream_usage = True
        #: Called with a sentence a user should hear now (a long wait the server asked for); logged by default.
        self.on_notice: Callable[[str], None] = on_notice or _log.warning
        self.rename_params = dict(dialect.rename_params)
        self.drop_params = frozenset(dialect.drop_params)
        self._api_key, self.key_warning = clean_api_key(api_key)
        self._secrets = [s for s in [self._api_key, *url_secrets(base_url)] if s]
        self.health = EndpointHealth(public_url(self.url), retry.unavailable_after)
        #: Things the client decided on its own that a user should hear (streaming refused, ...).
        self.notes: list[str] = []
        self._usage_refused = False  # a count below zero was noted (once per client)
        sent_headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Accept-Encoding": "gzip, deflate",  # the encodings scoring._client.body unpacks with a bound
        }
        if self._api_key:
            sent_headers["Authorization"] = f"Bearer {self._api_key}"
        sent_headers.update(dialect.headers)
        try:
            self._http = self._make_clients(self.concurrency, sent_headers, self.timeout, transport)
        except ImportError as exc:  # httpx met ALL_PROXY=socks5://... and has no SOCKS support installed
            raise _proxy_unsupported() or exc from None
        # The free list is the concurrency bound: a request takes a client, sends, gives it back.
        self._idle: asyncio.Queue[httpx.AsyncClient] = asyncio.Queue()
        for client in self._http:
            self._idle.put_nowait(client)
        if len(self._http) == 1:
            for _ in range(self.concurrency - 1):
                self._idle.put_nowait(self._http[0])
        self._limiter = RateLimiter(limits.rpm) if limits.rpm else None
        self._rng = random.Random(retry.seed)
        self._resume_at = 0.0  # monotonic time before which no attempt starts (a rate limit's pause)
        self.requests_sent = 0
        self.in_flight = 0
        self._stopping = False
        #: The one plain request asked when streaming alone fails (_plain_works): its results, None if it failed.
        self._plain_probe: asyncio.Future[list[ChatResult] | None] | None = None
        self._settled: asyncio.Event | None = None  # set whenever an attempt ends (see _wait_for_proof)

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
        # connect/read/write each bounded by ``timeout``: for a stream, read is the silence between pieces.
        options: JsonObject = {
            "headers": headers,
            "timeout": httpx.Timeout(timeout, pool=None),
            "follow_redirects": False,
        }
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

    def request_body(self, messages: list[dict[str, str]], params: Parameters) -> JsonObject:
        """The JSON body sent for these messages and parameters: ``model`` and ``messages`` are ours, the
        endpoint's renames and drops applied, ``stream`` set by the client."""
        body: JsonObject = {"model": self.model, "messages": messages}
        for key, value in params.items():
            if key in body or key in CLIENT_OWNED or key in self.drop_params:
                continue
            body[self.rename_params.get(key, key)] = value
        if self.stream:
            body["stream"] = True
            if self.stream_usage:
                body["stream_options"] = {"include_usage": True}
        return body

    async def complete(
        self, messages: list[dict[str, str]], params: Parameters, *, hand_on_after: int | None = None
    ) -> list[ChatResult]:
        """One chat completion (retried as needed); one :class:`ChatResult` per choice, in choice order.

        ``hand_on_after`` (a pool that has another replica to try): after that many attempts failing the
        transport's way (:func:`~scoring._client.health.replica_failure`), give up at once with
        :class:`RetriesExhaustedError` instead of retrying here: the pool sends the request elsewhere."""
        self._fail_if_down()
        if self._stopping:
            raise RequestNotSent("not sent: the run is stopping")
        attempt = 0
        limited_since: float | None = None  # when this request was first rate limited
        window = self.retry.rate_limit_window
        while True:
            body = self.request_body(messages, params)
            try:
                results = await self._attempt(body)
            except (PermanentRequestError, ReplyTooLargeError) as exc:
                if isinstance(exc, PermanentRequestError) and self._refuses_streaming(exc, body):
                    continue  # asked again at once, without streaming (not a retry)
                down = self.health.attempt_failed(exc) or self.health.request_failed(exc, attempt + 1)
                if down is not None:
                    raise down from exc
                raise
            except (TransientError, httpx.TransportError) as exc:
                self._scrub_exception(exc)
                plain = await self._plain_works(body, exc)
                if plain is True:
                    continue  # streaming was just given up: asked again at once, plain (not a retry)
                if plain:
                    return plain
                down = self.health.attempt_failed(exc)
                if down is not None:
                    raise down from exc
                if hand_on_after is not None and attempt + 1 >= hand_on_after and replica_failure(exc):
                    raise self._give_up(exc, attempt + 1) from exc
                limited = isinstance(exc, RetryableStatusError) and exc.status == 429
                in_window = False
                wait = exc.retry_after if isinstance(exc, RetryableStatusError) else None  # None: not said
                if isinstance(exc, RetryableStatusError) and wait is not None and wait > self.retry.retry_after_cap:
                    raise self._too_long(exc, wait) from exc
                if limited:
                    now = self.clock.now()
                    limited_since = now if limited_since is None else limited_since
                    window = max(window, wait or 0.0)
                    in_window = now - limited_since < window
                    wait = (
                        wait + self._rng.uniform(0.0, self.retry.backoff_base)  # jitter: not all at the same instant
                        if wait is not None
                        else rate_limit_delay(
                            attempt, base=self.retry.rate_limit_base, cap=self.retry.rate_limit_cap, rng=self._rng
                        )
                    )
                    if isinstance(exc, RetryableStatusError) and wait >= self.retry.notice_wait:
                        self._say_wait(exc, wait, now + wait)
                    self._resume_at = max(self._resume_at, now + wait)
                elif wait is None:
                    wait = backoff_delay(
                        attempt, base=self.retry.backoff_base, cap=self.retry.backoff_cap, rng=self._rng
                    )
                if attempt >= self.retry.max_retries and not (limited and in_window):
                    raise self._give_up(exc, attempt + 1) from exc
                await self.clock.sleep(wait)
                self._fail_if_down()
                attempt += 1
                continue
            self.health.succeeded()
            return results

    def revive(self) -> None:
        """Start the endpoint's health afresh (what it has served still counts): a pool that dropped it for
        now tries it again (:mod:`scoring._client.pool`)."""
        old = self.health
        self.health = EndpointHealth(old.where, self.retry.unavailable_after)
        self.health.served, self.health.proven = old.served, old.proven

    def has_served(self, endpoint: str) -> bool:
        """A journaled reply from ``endpoint`` proves it can serve (:meth:`EndpointHealth.has_served`);
        False when ``endpoint`` is not this client's."""
        if endpoint != self.endpoint:
            return False
        self.health.has_served()
        return True

    @property
    def endpoints(self) -> list[str]:
        """The public base URLs requests go to: this client's one."""
        return [self.endpoint]

    @property
    def paused(self) -> bool:
        """Every request waits out a rate limit the server asked for (a pool sends elsewhere first)."""
        return self._resume_at > self.clock.now()

    @property
    def stopping(self) -> bool:
        """:meth:`stop_sending` was called."""
        return self._stopping

    def stop_sending(self) -> None:
        """From now on no request is sent (:class:`RequestNotSent`); those in flight go on (Ctrl-C's grace)."""
        self._stopping = True
        if self._settled is not None:
            self._settled.set()

    def scrub(self, text: str) -> str:
        """``text`` with the API key, URL credentials (and words holding a recognisable piece of the key)
        masked."""
        if not text:
            return text
        for secret in self._secrets:
            text = text.replace(secret, "***")
        key = self._api_key
        if key and len(key) >= 12:
            head, tail = key[:8], key[-6:]
            if head in text or tail in text:
                words = text.split(" ")
                text = " ".join("***" if head in w or tail in w else w for w in words)
        return text

    # -- internals ---------------------------------------------------------------------------------------

    async def _attempt(self, body: JsonObject) -> list[ChatResult]:
        probe = self._plain_probe
        if body.get("stream") and probe is not None and not probe.done():
            await asyncio.shield(probe)  # a plain request is deciding whether to stream at all (no slot held)
        client = await self._idle.get()
        try:
            if self._limiter is not None:
                await self._limiter.acquire(self.clock)
            pause = self._resume_at - self.clock.now()
            if pause > 0:  # another request was told to wait: so is this one
                await self.clock.sleep(pause)
            await self._wait_for_proof(bool(body.get("stream")))
            self._fail_if_down()  # it may have gone down while this request waited for its turn
            if self._stopping:
                raise RequestNotSent("not sent: the run is stopping")
            if body.get("stream") and not self.stream:  # streaming was given up while this one waited
                body = {key: value for key, value in body.items() if key not in CLIENT_OWNED}
            payload = orjson.dumps(body)
            streamed = bool(body.get("stream"))
            self.requests_sent += 1
            self.in_flight += 1
            sent_at = time.monotonic()
            try:
                results = _timed(await self._exchange(client, payload, streamed), sent_at)
                if results[0].refused_usage is not None and not self._usage_refused:
                    self._usage_refused = True
                    self.notes.append(
                        f"the endpoint sent a token count below zero ({self.scrub(results[0].refused_usage)[:120]}): "
                        "such a count is unknown, left out of the token totals"
                    )
                return results
            finally:
                self.in_flight -= 1
                if self._settled is not None:
                    self._settled.set()
        finally:
            self._idle.put_nowait(client)

    async def _wait_for_proof(self, streamed: bool) -> None:
        """Before anything has succeeded and after a failure that may prove the endpoint down, start no
        request until those in flight have settled (one succeeded, or the proof is complete); no streamed
        one while the plain request of :meth:`_plain_works` decides whether to stream at all."""
        while not self._stopping and (
            (self.health.doubtful() and self.in_flight > 0)
            or (streamed and self._plain_probe is not None and not self._plain_probe.done())
        ):
            if self._settled is None:
                self._settled = asyncio.Event()
            self._settled.clear()
            await self._settled.wait()

    async def _exchange(self, client: httpx.AsyncClient, payload: bytes, streamed: bool) -> list[ChatResult]:
        """One HTTP exchange, every body read with its bound (see the module docstring)."""
        folder = StreamFolder()
        try:
            async with _deadline(self.max_time), client.stream("POST", self.url, content=payload) as response:
                status = response.status_code
                floor = RateFloor(self.min_rate, self.timeout) if self.min_rate else None
                if not 200 <= status < 300:
                    raw = await read_body(
                        response, self.max_error_bytes, truncate=True, what="the error body", floor=floor
                    )
                    self._check_status(response, raw)
                if streamed and "text/event-stream" in response.headers.get("content-type", ""):
                    blocks = decoded_blocks(response, self.max_reply_bytes, "the reply stream", floor)
                    return await fold_stream(blocks, silence=self.timeout, max_line=self.max_reply_bytes, folder=folder)
                # ``stream`` ignored too
                return parse_completion(await read_body(response, self.max_reply_bytes, floor=floor))
        except asyncio.TimeoutError:
            if folder.complete():  # every choice had finished: the reply is whole, only [DONE] was missing
                return folder.results()
            raise httpx.ReadTimeout(f"no complete reply within {self.max_time:g} s (--max-time)") from None

    def _check_status(self, response: httpx.Response, raw: bytes) -> None:
        status = response.status_code
        if 200 <= status < 300:
            return
        if 300 <= status < 400:
            raise PermanentRequestError(status, f"redirected to {self.scrub(response.headers.get('location', '?'))}")
        message = self.scrub(_error_message(raw, response.reason_phrase))
        if status >= 500 or status in RETRYABLE_STATUS:
            asked = asked_wait(response.headers)
            if asked is None or asked.seconds <= 0:  # 0 or less, or a date gone by: not said
                raise RetryableStatusError(status, message)
            raise RetryableStatusError(status, message, asked.seconds, asked.said)
        raise PermanentRequestError(status, message)

    def _say_wait(self, exc: RetryableStatusError, wait: float, until: float) -> None:
        """Tell the user at once about a long wait the server asked for (once per pause)."""
        if until <= self._resume_at + 1.0:
            return  # this pause was said already
        clock = time.strftime("%H:%M:%S", time.localtime(time.time() + (until - self.clock.now())))
        self.on_notice(
            f"the endpoint answered HTTP {exc.status} ({exc.said}): it asks to wait {_duration(wait)}; "
            f"every request pauses until {clock}, then goes on (Ctrl-C to stop: finished records are kept)"
        )

    def _too_long(self, exc: RetryableStatusError, wait: float) -> EndpointUnavailableError:
        """A wait far beyond ``retry_after_cap`` (a daily quota): stop, saying when to rerun."""
        clock = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() + wait))
        down = EndpointUnavailableError(
            f"endpoint {self.endpoint} asks to wait {_duration(wait)} before any further request "
            f"(HTTP {exc.status}, {exc.said}: {exc.message}); formatkit does not wait more than "
            f"{_duration(self.retry.retry_after_cap)}, so the run stops instead of sleeping",
            status=exc.status,
            hint=f"a quota is spent: rerun after {clock}, or use another key or endpoint",
            cause=describe(exc),
            kind="quota",
        )
        self.health.down = self.health.down or down
        return down

    async def _plain_works(self, body: JsonObject, exc: BaseException) -> list[ChatResult] | bool:
        """Once per client: when streamed requests fail alike (a 5xx, a broken stream) before anything has
        succeeded, ask once without streaming; if that works, the server's streaming path is what is
        broken, and the client stops streaming (said at once and in the notes). The results of that plain
        request for the request that asked it; True for a streamed request that failed meanwhile (ask again,
        plain); False: go on as before (plain requests fail too, or no reason to try)."""
        if not body.get("stream") or self.health.served or self._stopping:
            return False
        if not (isinstance(exc, StreamError) or (isinstance(exc, RetryableStatusError) and exc.status >= 500)):
            return False  # a network failure, a rate limit, a malformed body: not the streaming path's
        probe = self._plain_probe
        if probe is None and not self.health.repeats(exc):
            return False  # one failure may be chance: the second alike asks
        if probe is not None:  # asked already, or being asked: its answer decides for this request too
            return await asyncio.shield(probe) is not None and not self.stream
        probe = self._plain_probe = asyncio.get_running_loop().create_future()
        plain = {key: value for key, value in body.items() if key not in CLIENT_OWNED}
        results: list[ChatResult] | None = None
        try:
            results = await self._attempt(plain)
        except (ClientError, httpx.TransportError):
            return False  # plain requests fail too: the endpoint's failure, judged as before
        finally:
            probe.set_result(results)
            if self._settled is not None:
                self._settled.set()  # the requests held at the gate for its answer
        self.stream = False
        note = (
            f"streamed requests failed ({self.scrub(describe(exc))[:160]}) while a plain request worked: "
            "requests are not streamed from now on (--timeout then bounds the wait for a whole reply; "
            "for this endpoint, try --no-stream from the start)"
        )
        self.notes.append(note)
        self.on_notice(note)
        self.health.succeeded()
        return results

    def _refuses_streaming(self, exc: PermanentRequestError, body: JsonObject) -> bool:
        """A 4xx naming streaming, for a streamed ``body``: drop ``stream_options`` first, then streaming
        (once for the whole client; requests built before the switch are simply asked again); True to ask again."""
        text = exc.message.lower()
        if not body.get("stream") or exc.status not in (400, 422, 501) or "stream" not in text:
            return False
        if "stream_options" in body and ("stream_options" in text or "include_usage" in text):
            if self.stream_usage:
                self.stream_usage = False
                self.notes.append(f"the endpoint refused stream_options ({exc.message[:120]}); streaming without usage")
        elif self.stream:
            self.stream = False
            self.notes.append(f"the endpoint refused streaming ({exc.message[:120]}); requests are not streamed")
        return True

    def _give_up(self, exc: BaseException, attempts: int) -> ClientError:
        detail = self.scrub(describe(exc))
        if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout) and not str(exc):
            detail = f"no reply for {self.timeout:g} s (--timeout: the longest silence allowed)"
        down = self.health.request_failed(exc, attempts)
        if down is not None:
            return down
        return RetriesExhaustedError(exc, attempts, f"{detail} (after {attempts} attempt(s))")

    def _fail_if_down(self) -> None:
        down = self.health.down
        if down is not None:
            raise EndpointUnavailableError(
                self.scrub(str(down)), status=down.status, hint=down.hint, cause=down.cause, kind=down.kind
            ) from down

    def _scrub_exception(self, exc: BaseException) -> None:
        if self._secrets and any(isinstance(a, str) and a != self.scrub(a) for a in exc.args):
            exc.args = tuple(self.scrub(a) if isinstance(a, str) else a for a in exc.args)


def _timed(results: list[ChatResult], sent_at: float) -> list[ChatResult]:
    """The results with the attempt's latency, and the time to the first piece when it was streamed."""
    now = time.monotonic()
    for result in results:
        result.latency = now - sent_at
        if result.first_piece_at is not None:
            result.ttft = result.first_piece_at - sent_at
    return results


@contextlib.asynccontextmanager
async def _deadline(seconds: float | None) -> AsyncIterator[None]:
    if seconds is None:
        yield
    elif sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            yield
    else:  # pragma: no cover - Python 3.10
        task = asyncio.current_task()
        assert task is not None
        handle = asyncio.get_running_loop().call_later(seconds, task.cancel)
        try:
            yield
        except asyncio.CancelledError:
            raise asyncio.TimeoutError from None
        finally:
            handle.cancel()


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def _error_message(raw: bytes, reason: str) -> str:
    """The endpoint's own words: ``error.message``, ``detail``, ``message``, else the body text."""
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
    if message is None and data is None:  # cut at the bound, or not JSON: its "message" field if it has one
        found = _MESSAGE_FIELD.search(raw[: _MAX_MESSAGE * 8])
        if found is not None:
            with contextlib.suppress(orjson.JSONDecodeError):
                message = orjson.loads(b'"' + found.group(1) + b'"')
    if message is None:
        message = raw[: _MAX_MESSAGE * 4].decode("utf-8", "replace").strip() or reason
    text = message if isinstance(message, str) else orjson.dumps(message).decode()
    return text[:_MAX_MESSAGE]


def _duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``27 h 46 min``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"
