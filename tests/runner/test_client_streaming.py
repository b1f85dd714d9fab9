"""Streaming, rate-limit headers, URLs, keys and per-endpoint request shaping, against the fake server."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from clients import client_options
from fakeclock import FakeClock
from fakeserver import FakeOpenAI, Fault

from scoring import Dialect, RetryPolicy
from scoring._client.http import ChatClient, ChatResult, clean_api_key
from scoring._client.pacing import parse_duration, rate_limit_delay, server_wait
from scoring._client.url import endpoint_url, public_url
from scoring._errors import ClientError, EndpointUnavailableError, RetriesExhaustedError, error_kind

USER = [{"role": "user", "content": "请逐步思考：1+1=?"}]


def client_for(server: FakeOpenAI, clock: FakeClock | None = None, **kw: Any) -> ChatClient:
    """A client of the fake server; with ``clock``, its waits are counted on that clock, not slept."""
    options: dict[str, Any] = {"backoff_base": 0.001, "timeout": 2.0, "max_retries": 3}
    options.update(kw)
    client = ChatClient(server.base_url, "fake-model", **client_options(**options))
    if clock is not None:
        client.clock = clock
    return client


def many(
    server: FakeOpenAI, count: int, params: dict[str, Any] | None = None, clock: FakeClock | None = None, **kw: Any
) -> list[Any]:
    async def go() -> list[Any]:
        out: list[Any] = []
        async with client_for(server, clock, **kw) as client:
            for _ in range(count):
                try:
                    out.append(await client.complete(USER, params or {}))
                except ClientError as exc:
                    out.append(exc)
        return out

    return asyncio.run(go())


def one(
    server: FakeOpenAI, params: dict[str, Any] | None = None, clock: FakeClock | None = None, **kw: Any
) -> ChatResult:
    [result] = many(server, 1, params, clock, **kw)
    assert isinstance(result, list), result
    first: ChatResult = result[0]
    return first


# -- streaming -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_a_stream_keeps_content_reasoning_finish_reason_and_usage(fake_openai: FakeOpenAI, field: str) -> None:
    fake_openai.reasoning = field
    fake_openai.stream_pieces = 5
    result = one(fake_openai)
    assert result.content == USER[0]["content"]
    assert result.reasoning_content == f"thinking about: {USER[0]['content']}"
    assert result.finish_reason == "stop"
    assert result.usage == {"prompt_tokens": 11, "completion_tokens": 11, "total_tokens": 22}


def test_a_streamed_reply_as_a_whole_dict_keeps_length_and_empty_content(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda body: {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "", "reasoning_content": "想了很久"},
                "finish_reason": "length",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
    }
    result = one(fake_openai)
    assert (result.content, result.reasoning_content, result.finish_reason) == ("", "想了很久", "length")
    assert result.usage == {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12}


def test_logprobs_survive_streaming(fake_openai: FakeOpenAI) -> None:
    result = one(fake_openai, {"logprobs": True})
    assert result.logprobs is not None and result.logprobs["content"][0]["token"] == "请"


def test_a_slow_steady_stream_longer_than_the_timeout_completes(fake_openai: FakeOpenAI) -> None:
    # 30 pieces 0.02 s apart: over 0.6 s in all, longer than the timeout, never silent for long (a gap 25 times
    # shorter than the timeout, so that a loaded machine's hiccup between two pieces is not a silence).
    fake_openai.responder = lambda body: "字" * 30
    fake_openai.stream_pieces = 30
    fake_openai.inject([Fault("trickle", delay=0.02)])
    result = one(fake_openai, timeout=0.5, max_retries=0)
    assert result.content == "字" * 30
    assert fake_openai.requests == 1


@pytest.mark.parametrize(
    ("fault", "kind"),
    [(Fault("stall", delay=1.0), "timeout"), (Fault("stream_error"), "stream_error"), (Fault("cut"), "connection")],
    ids=["stall", "error-chunk", "cut"],
)
def test_a_broken_stream_is_retried_then_reported(fake_openai: FakeOpenAI, fault: Fault, kind: str) -> None:
    fake_openai.inject([Fault("ok"), fault, fault, fault])
    served, error = many(fake_openai, 2, timeout=0.2, max_retries=1)
    assert isinstance(served, list)
    assert isinstance(error, RetriesExhaustedError) and error_kind(error) in (kind, "malformed")
    fake_openai.inject([fault])
    assert one(fake_openai, timeout=0.2).content == USER[0]["content"]


def test_a_stall_reports_the_silence(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("ok"), Fault("stall", delay=1.0), Fault("stall", delay=1.0)])
    _, error = many(fake_openai, 2, timeout=0.2, max_retries=1)
    assert "no reply for 0.2 s (--timeout: the longest silence allowed)" in str(error)


def test_max_time_caps_a_steady_stream(fake_openai: FakeOpenAI) -> None:
    fake_openai.stream_pieces = 20
    fake_openai.inject([Fault("ok"), Fault("trickle", delay=0.05)])
    _, error = many(fake_openai, 2, timeout=2.0, max_time=0.3, max_retries=0)  # no silence comes near 2 s
    assert isinstance(error, RetriesExhaustedError) and "(--max-time)" in str(error)


def test_a_server_that_refuses_streaming_is_asked_again_without_it(fake_openai: FakeOpenAI) -> None:
    fake_openai.refuse_stream = "streaming is not supported by this server"

    async def go() -> tuple[list[ChatResult], ChatClient]:
        async with client_for(fake_openai) as client:
            results = [(await client.complete(USER, {}))[0] for _ in range(3)]
            return results, client

    results, client = asyncio.run(go())
    assert [r.content for r in results] == [USER[0]["content"]] * 3
    assert [bool(b.get("stream")) for b in fake_openai.bodies] == [True, False, False, False]
    assert client.stream is False and "refused streaming" in client.notes[0]


def test_a_server_that_refuses_stream_options_keeps_streaming(fake_openai: FakeOpenAI) -> None:
    fake_openai.rules.append(
        lambda body: (
            Fault("400", message="Extra inputs are not permitted: stream_options") if "stream_options" in body else None
        )
    )
    result = one(fake_openai)
    assert result.content == USER[0]["content"] and result.usage is None
    assert [("stream" in b, "stream_options" in b) for b in fake_openai.bodies] == [(True, True), (True, False)]


def test_a_server_that_ignores_stream_is_read_as_plain_json(fake_openai: FakeOpenAI) -> None:
    fake_openai.ignore_stream = True
    assert one(fake_openai).usage == {"prompt_tokens": 11, "completion_tokens": 11, "total_tokens": 22}


def test_stream_is_owned_by_the_client(fake_openai: FakeOpenAI) -> None:
    one(fake_openai, {"stream": False, "stream_options": {"include_usage": False}}, stream=False)
    assert "stream" not in fake_openai.bodies[0] and "stream_options" not in fake_openai.bodies[0]


# -- rate limits -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after-ms": "2500"}, 2.5),
        ({"llm_provider-retry-after": "7"}, 7.0),
        ({"llm_provider-retry-after-ms": "2500"}, 2.5),
        ({"x-ratelimit-reset-requests": "1m30s"}, 90.0),
        ({"x-ratelimit-reset-tokens": "6ms"}, 0.006),
        ({"x-ratelimit-reset-requests": "2s", "x-ratelimit-reset-tokens": "1m"}, 60.0),
        (
            {
                "x-ratelimit-reset-requests": "2s",
                "x-ratelimit-reset-tokens": "1m",
                "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-remaining-tokens": "5000",
            },
            2.0,
        ),
        ({"llm_provider-x-ratelimit-reset-requests": "0.5s"}, 0.5),
        ({"x-ratelimit-remaining-requests": "0"}, None),
        ({}, None),
    ],
    ids=[
        "retry-after",
        "retry-after-ms",
        "litellm-retry-after",
        "litellm-retry-after-ms",
        "reset-1m30s",
        "reset-6ms",
        "longer-of-two",
        "the-one-spent",
        "litellm-reset",
        "remaining-only",
        "nothing",
    ],
)
def test_server_wait_reads_every_rate_limit_header(headers: dict[str, str], seconds: float | None) -> None:
    assert server_wait(httpx.Headers(headers)) == (pytest.approx(seconds) if seconds is not None else None)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2s", 2.0), ("1m30s", 90.0), ("6ms", 0.006), ("0.5s", 0.5), ("1h2m", 3720.0), ("17", 17.0), ("soon", None)],
)
def test_parse_duration(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == (pytest.approx(seconds) if seconds is not None else None)


def test_a_429_backs_off_longer_than_a_5xx() -> None:
    import random

    from scoring._client.pacing import backoff_delay

    rng = random.Random(3)
    assert min(rate_limit_delay(0, base=2.0, cap=60.0, rng=rng) for _ in range(100)) >= 1.0
    assert max(backoff_delay(0, base=0.5, cap=30.0, rng=rng) for _ in range(100)) <= 0.5


@pytest.mark.parametrize(
    "fault",
    [
        Fault("429", headers={"llm_provider-retry-after": "0.4"}),
        Fault("429", headers={"x-ratelimit-reset-requests": "400ms", "x-ratelimit-remaining-requests": "0"}),
    ],
    ids=["litellm", "openai-reset"],
)
def test_the_servers_wait_is_honoured(fake_openai: FakeOpenAI, fault: Fault) -> None:
    fake_openai.inject([fault])
    clock = FakeClock()
    one(fake_openai, clock=clock, backoff_base=0.0)
    assert clock.sleeps == [pytest.approx(0.4)] and fake_openai.requests == 2


def test_a_rate_limited_request_outlasts_max_retries_until_the_window_passed(fake_openai: FakeOpenAI) -> None:
    # max_retries=1, but the server keeps saying "wait 0.1 s" for longer than that: the request waits out
    # the server's window (rate_limit_window) instead of giving up after two attempts.
    fake_openai.inject([Fault("ok"), *[Fault("429", retry_after=0.1)] * 6])
    clock = FakeClock()
    served, result = many(fake_openai, 2, clock=clock, max_retries=1, rate_limit_window=1.0)
    assert isinstance(served, list) and isinstance(result, list)
    assert fake_openai.requests == 8
    assert len(clock.sleeps) == 6 and all(0.1 <= s <= 0.101 for s in clock.sleeps)  # each the server's 0.1 s


def test_a_rate_limit_that_never_ends_is_given_up_after_the_window(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("ok")])
    fake_openai.rules.append(lambda body: Fault("429", retry_after=0.1) if fake_openai.requests > 1 else None)
    clock = FakeClock()
    _, error = many(fake_openai, 2, clock=clock, max_retries=1, rate_limit_window=0.3)
    assert isinstance(error, RetriesExhaustedError) and error_kind(error) == "http_429"
    assert 4 <= error.attempts <= 6
    assert len(clock.sleeps) == error.attempts - 1  # waited before each attempt after the first, then gave up


def test_a_rate_limit_pauses_the_other_requests_too(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("429", retry_after=0.5)])
    clock = FakeClock()

    async def go() -> None:
        clock.hold = asyncio.Event()  # the pause lasts until the test ends it
        async with client_for(fake_openai, clock, concurrency=4) as client:
            first = asyncio.ensure_future(client.complete(USER, {}))
            while not clock.sleeps and not first.done():  # until the 429 has come and the first waits
                await asyncio.sleep(0.001)
            second = asyncio.ensure_future(client.complete(USER, {}))
            while len(clock.sleeps) < 2 and not second.done():
                await asyncio.sleep(0.001)
            # the second request, started during the pause, waits for what is left of it before sending
            assert not second.done() and fake_openai.requests == 1
            assert clock.sleeps[1] == pytest.approx(clock.sleeps[0]) and clock.sleeps[1] >= 0.5
            clock.hold.set()
            await asyncio.gather(first, second)

    asyncio.run(go())
    assert fake_openai.requests == 3


# -- URLs, keys, headers, parameters ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://h:1/v1", "http://h:1/v1/chat/completions"),
        ("http://h:1/v1/", "http://h:1/v1/chat/completions"),
        (
            "https://x.openai.azure.com/openai/deployments/gpt?api-version=2024-06-01",
            "https://x.openai.azure.com/openai/deployments/gpt/chat/completions?api-version=2024-06-01",
        ),
    ],
    ids=["plain", "slash", "azure-query"],
)
def test_the_path_goes_before_the_query(base: str, url: str) -> None:
    assert endpoint_url(base) == url


def test_a_query_string_reaches_the_server(fake_openai: FakeOpenAI) -> None:
    async def go() -> None:
        async with ChatClient(
            fake_openai.base_url + "?api-version=2024-06-01", "m", dialect=Dialect(stream=False)
        ) as client:
            await client.complete(USER, {})

    asyncio.run(go())
    assert fake_openai.paths == ["/v1/chat/completions?api-version=2024-06-01"]


def test_credentials_in_the_url_are_never_shown() -> None:
    base = "http://alice:pa55w0rd-secret@127.0.0.1:9/v1?api-key=qk-0123456789&api-version=1"
    assert public_url(base) == "http://127.0.0.1:9/v1?api-key=***&api-version=1"

    async def go() -> BaseException:
        async with ChatClient(base, "m", retry=RetryPolicy(max_retries=0, unavailable_after=1)) as client:
            try:
                await client.complete(USER, {})
            except ClientError as exc:
                return exc
        raise AssertionError("no error")

    error = asyncio.run(go())
    assert isinstance(error, EndpointUnavailableError)
    for secret in ("pa55w0rd", "alice", "qk-0123456789"):
        assert secret not in str(error)


@pytest.mark.parametrize(
    ("raw", "key", "warned"),
    [("sk-abc\r", "sk-abc", True), ("sk-abc \n", "sk-abc", True), ("sk-abc", "sk-abc", False), ("  ", None, True)],
    ids=["cr", "space-newline", "clean", "blank"],
)
def test_a_key_with_trailing_whitespace_is_stripped_with_a_warning(raw: str, key: str | None, warned: bool) -> None:
    cleaned, warning = clean_api_key(raw)
    assert cleaned == key and (warning is not None) == warned
    if raw.endswith("\r"):
        assert warning is not None and "carriage return" in warning


def test_the_stripped_key_is_what_is_sent(fake_openai: FakeOpenAI) -> None:
    fake_openai.api_key = "sk-the-key-0123456789"
    assert one(fake_openai, api_key="sk-the-key-0123456789\r").content
    assert fake_openai.auth_headers == ["Bearer sk-the-key-0123456789"]


def test_extra_headers_renames_and_drops(fake_openai: FakeOpenAI) -> None:
    one(
        fake_openai,
        {"max_tokens": 4096, "temperature": 0.6, "top_k": 20},
        headers={"api-key": "azure-key", "X-Tenant": "lab-7"},
        rename_params={"max_tokens": "max_completion_tokens"},
        drop_params=["temperature"],
        stream=False,
    )
    body = fake_openai.bodies[0]
    assert body == {"model": "fake-model", "messages": USER, "max_completion_tokens": 4096, "top_k": 20}
    assert fake_openai.headers[0]["api-key"] == "azure-key"


@pytest.mark.slow
def test_a_4096_token_generation_slower_than_the_timeout_completes(fake_openai: FakeOpenAI) -> None:
    # 4,096 pieces ~2 ms apart: several seconds in all, far beyond --timeout 0.5, never silent that long.
    fake_openai.responder = lambda body: "字" * 3096
    fake_openai.stream_pieces = 3096
    fake_openai.inject([Fault("trickle", delay=0.002)])
    result = one(fake_openai, timeout=0.5, max_retries=0)
    assert result.content == "字" * 3096 and result.finish_reason == "stop"
    assert fake_openai.requests == 1 and fake_openai.faults_served == ["trickle"]
