"""ChatClient against the real fake server: every fault kind survived or raised as the right error."""

from __future__ import annotations

import asyncio
import time
from email.utils import formatdate
from typing import Any

import httpx
import pytest
from clients import client_options
from fakeclock import FakeClock
from fakeserver import FakeOpenAI, Fault, last_user

from scoring import RetryPolicy
from scoring._client.http import ChatClient, ChatResult
from scoring._client.pacing import RateLimiter, backoff_delay, parse_retry_after
from scoring._errors import (
    ClientError,
    EndpointUnavailableError,
    MalformedResponseError,
    PermanentRequestError,
    RetriesExhaustedError,
    RetryableStatusError,
    error_kind,
)

USER = [{"role": "user", "content": "你好，世界"}]
KEY = "sk-test-0123456789abcdefSECRET"


def client_for(server: FakeOpenAI, clock: FakeClock | None = None, **kw: Any) -> ChatClient:
    """A client of the fake server; with ``clock``, its waits are counted on that clock, not slept."""
    options: dict[str, Any] = {"backoff_base": 0.001, "timeout": 2.0, "max_retries": 3}
    options.update(kw)
    client = ChatClient(server.base_url, "fake-model", **client_options(**options))
    if clock is not None:
        client.clock = clock
    return client


def complete(
    server: FakeOpenAI, params: dict[str, Any] | None = None, clock: FakeClock | None = None, **kw: Any
) -> list[ChatResult]:
    async def go() -> list[ChatResult]:
        async with client_for(server, clock, **kw) as client:
            return await client.complete(USER, params or {})

    return asyncio.run(go())


def test_plain_reply_fills_every_field(fake_openai: FakeOpenAI) -> None:
    [result] = complete(fake_openai, {"temperature": 0.2})
    assert result.content == "你好，世界"
    assert result.finish_reason == "stop"
    assert result.usage == {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}
    assert result.reasoning_content is None and result.logprobs is None
    body = fake_openai.bodies[0]
    assert body == {
        "model": "fake-model",
        "messages": USER,
        "temperature": 0.2,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_no_stream_sends_a_plain_request(fake_openai: FakeOpenAI) -> None:
    [result] = complete(fake_openai, {"temperature": 0.2}, stream=False)
    assert result.content == "你好，世界" and result.usage is not None
    assert fake_openai.bodies[0] == {"model": "fake-model", "messages": USER, "temperature": 0.2}


def test_n_choices_come_back_in_order(fake_openai: FakeOpenAI) -> None:
    results = complete(fake_openai, {"n": 3})
    assert [r.content for r in results] == ["你好，世界 #0", "你好，世界 #1", "你好，世界 #2"]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_is_read_from_either_field(fake_openai: FakeOpenAI, field: str) -> None:
    fake_openai.reasoning = field
    [result] = complete(fake_openai)
    assert result.reasoning_content == "thinking about: 你好，世界"


def test_logprobs_when_asked(fake_openai: FakeOpenAI) -> None:
    [result] = complete(fake_openai, {"logprobs": True})
    assert result.logprobs is not None and result.logprobs["content"][0]["token"] == "你"


def test_responder_scripts_the_reply(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda body: "score: 2" if "世界" in last_user(body) else "?"
    assert complete(fake_openai)[0].content == "score: 2"


def test_nested_usage_details_are_flattened(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda body: {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "length"}],
        "usage": {
            "prompt_tokens": 3,
            "completion_tokens": 9,
            "total_tokens": 12,
            "completion_tokens_details": {"reasoning_tokens": 9},
        },
    }
    [result] = complete(fake_openai)
    assert result.content == "" and result.finish_reason == "length"
    assert result.usage == {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12, "reasoning_tokens": 9}


@pytest.mark.parametrize(
    "fault",
    [
        Fault("429", retry_after=0.01),
        Fault("429", retry_after=formatdate(time.time() + 1, usegmt=True)),
        Fault("500"),
        Fault("502"),
        Fault("503"),
        Fault("408"),
        Fault("close"),
        Fault("partial"),
        Fault("truncated"),
        Fault("empty"),
        Fault("slow", delay=1.0),
    ],
    ids=lambda f: f"{f.kind}-{type(f.retry_after).__name__}",
)
def test_every_transient_fault_is_survived(fake_openai: FakeOpenAI, fault: Fault) -> None:
    fake_openai.inject([fault, fault])
    clock = FakeClock()
    [result] = complete(fake_openai, clock=clock, timeout=0.3)
    assert result.content == "你好，世界"
    assert fake_openai.faults_served == [fault.kind, fault.kind]
    assert fake_openai.requests == 3


def test_a_mix_of_faults_in_a_row(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("429", retry_after=0), Fault("500"), Fault("close"), Fault("truncated"), Fault("empty")])
    clock = FakeClock()
    assert complete(fake_openai, clock=clock, max_retries=5)[0].content == "你好，世界"
    assert fake_openai.requests == 6
    # a 429 that says "wait 0" is the client's own rate-limit backoff: at least half of rate_limit_base (2 s)
    assert clock.sleeps[0] >= 1.0 and len(clock.sleeps) == 5


def test_retry_after_is_honoured(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("429", retry_after=0.3)])
    clock = FakeClock()
    complete(fake_openai, clock=clock)
    [waited] = clock.sleeps
    assert 0.3 <= waited <= 0.3 + 0.001  # the server's wait, plus a jitter of at most backoff_base
    assert fake_openai.requests == 2


def test_a_wait_beyond_the_cap_stops_at_once_instead_of_sleeping(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("429", retry_after=3600)])
    clock = FakeClock()
    with pytest.raises(EndpointUnavailableError) as info:
        complete(fake_openai, clock=clock, retry_after_cap=0.05)
    assert clock.sleeps == [] and fake_openai.requests == 1
    assert info.value.kind == "quota" and "asks to wait 60 min" in str(info.value)
    assert "retry-after: 3600" in str(info.value) and "rerun after" in info.value.hint


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_permanent_4xx_is_raised_at_once_with_the_endpoint_message(fake_openai: FakeOpenAI, status: int) -> None:
    fake_openai.inject([Fault(str(status), message="model 'x' does not exist")])
    with pytest.raises(PermanentRequestError) as info:
        complete(fake_openai)
    assert info.value.status == status
    assert info.value.message == "model 'x' does not exist"
    assert fake_openai.requests == 1
    assert error_kind(info.value) == f"http_{status}"


def test_retries_exhausted_keeps_the_last_cause(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("ok"), *[Fault("500")] * 3])
    served, error = many(fake_openai, 2, max_retries=2)
    assert isinstance(served, list)
    assert isinstance(error, RetriesExhaustedError)
    assert isinstance(error.cause, RetryableStatusError)
    assert error.__cause__ is error.cause
    assert error.attempts == 3
    assert fake_openai.requests == 4
    assert error_kind(error) == "http_500"


def test_timeouts_exhausted(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("slow", delay=0.5)] * 2)
    with pytest.raises(RetriesExhaustedError) as info:
        complete(fake_openai, max_retries=1, timeout=0.1)
    assert isinstance(info.value.cause, httpx.TimeoutException)
    assert error_kind(info.value) == "timeout"


def test_malformed_exhausted(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("truncated")] * 2)
    with pytest.raises(RetriesExhaustedError) as info:
        complete(fake_openai, max_retries=1)
    assert isinstance(info.value.cause, MalformedResponseError)
    assert error_kind(info.value) == "malformed"


def test_endpoint_down_raises_unavailable_then_fails_fast() -> None:
    async def go() -> list[BaseException]:
        errors: list[BaseException] = []
        async with ChatClient(
            "http://127.0.0.1:9/v1", "m", retry=RetryPolicy(backoff_base=0.001, max_retries=1, unavailable_after=2)
        ) as client:
            for _ in range(3):
                try:
                    await client.complete(USER, {})
                except ClientError as exc:
                    errors.append(exc)
        return errors

    first, second, third = asyncio.run(go())
    # Nothing ever answered and the first two attempts failed alike: the first request already stops.
    assert isinstance(first, EndpointUnavailableError) and isinstance(first.__cause__, httpx.ConnectError)
    assert first.hint == "check that the server is running and that the base URL is right"
    assert isinstance(second, EndpointUnavailableError) and isinstance(third, EndpointUnavailableError)


def test_the_key_is_sent_but_never_shown(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("401", message=f"Incorrect API key provided: {KEY}. Find yours at ...")])
    with pytest.raises(PermanentRequestError) as info:
        complete(fake_openai, api_key=KEY)
    assert fake_openai.auth_headers == [f"Bearer {KEY}"]
    assert KEY not in str(info.value) and KEY not in info.value.message
    assert "Incorrect API key provided: ***" in info.value.message


def test_a_masked_key_echo_is_scrubbed_too(fake_openai: FakeOpenAI) -> None:
    masked = KEY[:8] + "*" * 10 + KEY[-4:]
    fake_openai.inject([Fault("401", message=f"Incorrect API key provided: {masked}.")])
    with pytest.raises(PermanentRequestError) as info:
        complete(fake_openai, api_key=KEY)
    assert KEY[:8] not in info.value.message


def test_no_key_sends_no_authorization(fake_openai: FakeOpenAI) -> None:
    complete(fake_openai)
    assert fake_openai.auth_headers == [None]


def test_concurrency_bound_is_never_exceeded(fake_openai: FakeOpenAI) -> None:
    fake_openai.delay = 0.02

    async def go() -> None:
        async with client_for(fake_openai, concurrency=4) as client:
            await asyncio.gather(*(client.complete(USER, {}) for _ in range(40)))

    asyncio.run(go())
    assert fake_openai.requests == 40
    assert fake_openai.max_in_flight == 4


def test_rpm_spaces_requests(fake_openai: FakeOpenAI) -> None:
    clock = FakeClock()
    start = clock.time

    async def go() -> None:
        async with client_for(fake_openai, clock, concurrency=8, rpm=600) as client:  # one every 0.1 s
            await asyncio.gather(*(client.complete(USER, {}) for _ in range(5)))

    asyncio.run(go())
    assert fake_openai.requests == 5
    # the first starts at once, each other one a tenth of a second after the one before
    assert sorted(clock.wakes) == pytest.approx([start + 0.1, start + 0.2, start + 0.3, start + 0.4])


def test_mock_transport_works_too() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]})

    async def go() -> list[ChatResult]:
        async with ChatClient("http://x/v1", "m", transport=httpx.MockTransport(handler)) as client:
            return await client.complete(USER, {})

    assert asyncio.run(go())[0].content == "ok"


def test_backoff_is_full_jitter_and_capped() -> None:
    import random

    rng = random.Random(1)
    delays = [backoff_delay(a, base=1.0, cap=4.0, rng=rng) for a in range(10) for _ in range(50)]
    assert all(0 <= d <= 4.0 for d in delays)
    assert max(backoff_delay(0, base=1.0, cap=4.0, rng=rng) for _ in range(50)) <= 1.0


def test_parse_retry_after() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-3") == 0.0
    date = formatdate(1_000_010, usegmt=True)
    assert parse_retry_after(date, now=1_000_000) == pytest.approx(10.0)
    assert parse_retry_after(formatdate(999_000, usegmt=True), now=1_000_000) == 0.0


def test_rate_limiter_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        RateLimiter(0)


def test_a_reply_trickled_slower_than_the_timeout_completes(fake_openai: FakeOpenAI) -> None:
    # --timeout is the longest silence: a reply that keeps coming, however slowly, is never cut
    # (some 250 bytes, one every 5 ms or more: over a second in all, never 0.3 s silent).
    fake_openai.inject([Fault("drip", delay=0.005)])
    [result] = complete(fake_openai, timeout=0.3)
    assert result.content == "你好，世界"
    assert fake_openai.requests == 1


def test_max_time_caps_an_attempt_as_a_whole(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("ok"), Fault("drip", delay=0.05), Fault("drip", delay=0.05)])
    served, error = many(fake_openai, 2, timeout=2.0, max_time=0.3, max_retries=1)  # no silence comes near 2 s
    assert isinstance(served, list)
    assert isinstance(error, RetriesExhaustedError)
    assert error_kind(error) == "timeout"
    assert "no complete reply within 0.3 s (--max-time)" in str(error)


def test_retry_after_ms_is_honoured(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("429", retry_after_ms=300, retry_after=0)])
    clock = FakeClock()
    complete(fake_openai, clock=clock, backoff_base=0.0)
    assert clock.sleeps == [pytest.approx(0.3)] and fake_openai.requests == 2


def many(server: FakeOpenAI, count: int, **kw: Any) -> list[BaseException | list[ChatResult]]:
    """``count`` requests one after the other; each one's results or error."""

    async def go() -> list[BaseException | list[ChatResult]]:
        out: list[BaseException | list[ChatResult]] = []
        async with client_for(server, **kw) as client:
            for _ in range(count):
                try:
                    out.append(await client.complete(USER, {}))
                except ClientError as exc:
                    out.append(exc)
        return out

    return asyncio.run(go())


def test_a_rejected_key_stops_after_a_few_requests_and_never_shows_the_key(fake_openai: FakeOpenAI) -> None:
    fake_openai.api_key = "sk-proj-the-right-one-000000000000"
    first, second, third, fourth = many(fake_openai, 4, api_key=KEY, unavailable_after=3)
    assert isinstance(first, PermanentRequestError) and first.status == 401
    assert "Incorrect API key provided: ***" in first.message
    assert isinstance(second, PermanentRequestError)
    assert isinstance(third, EndpointUnavailableError) and third.status == 401
    assert third.hint == "check the API key"
    assert "the first 3 requests all failed the same way and none succeeded" in str(third)
    assert "HTTP 401: Incorrect API key provided: ***" in third.cause
    assert isinstance(fourth, EndpointUnavailableError)
    assert (third.kind, fourth.kind, fourth.hint, fourth.cause) == ("key", "key", third.hint, third.cause)
    assert fake_openai.requests == 3  # the fourth failed fast, nothing sent
    for error in (first, second, third, fourth):
        assert isinstance(error, ClientError)
        assert KEY[:8] not in str(error) and KEY[-6:] not in str(error) and KEY[-4:] not in str(error)


def test_the_right_key_passes(fake_openai: FakeOpenAI) -> None:
    fake_openai.api_key = KEY
    assert complete(fake_openai, api_key=KEY)[0].content == "你好，世界"
    fake_openai.reset()
    with pytest.raises(PermanentRequestError) as info:
        complete(fake_openai)
    assert info.value.message == "You didn't provide an API key."


def test_a_wrong_model_or_url_stops_the_same_way(fake_openai: FakeOpenAI) -> None:
    fake_openai.rules.append(lambda body: Fault("404", message="The model `gpt-9` does not exist"))
    *_, last = many(fake_openai, 2, unavailable_after=2)
    assert isinstance(last, EndpointUnavailableError) and last.status == 404
    assert "model name" in last.hint


def test_gateway_errors_on_every_retry_stop_a_run_that_had_served(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("ok")])
    fake_openai.rules.append(lambda body: Fault("503", message="busy") if fake_openai.requests > 1 else None)
    served, first, second = many(fake_openai, 3, max_retries=1, unavailable_after=2)
    assert isinstance(served, list)
    assert isinstance(first, RetriesExhaustedError)
    assert isinstance(second, EndpointUnavailableError) and second.status == 503
    assert "2 requests in a row failed, each after 2 attempt(s)" in str(second)
    assert fake_openai.requests == 5


LITELLM_DEAD = (
    "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.\n\nLiteLLM: model "
    "group 'dead' failed with the error above. No fallback was attempted."
)


@pytest.mark.parametrize(
    ("fault", "hint"),
    [
        (Fault("500", message=LITELLM_DEAD), "cannot reach the model server"),
        (Fault("400", message="/chat/completions: Invalid model name passed in model=nope."), "model name"),
        (Fault("400", message="No connected db."), "API key"),
        (Fault("404", message="The model `gpt-9` does not exist"), "model name"),
        (Fault("422", message="max_tokens must be at most 4096"), "parameters"),
        (Fault("truncated"), "failed the same way"),
        (Fault("stream_error"), "failed the same way"),
    ],
    ids=[
        "gateway-backend-down",
        "litellm-wrong-model",
        "litellm-wrong-key",
        "404-model",
        "422-params",
        "malformed",
        "error-in-every-stream",
    ],
)
def test_first_requests_failing_alike_stop_within_a_handful(fake_openai: FakeOpenAI, fault: Fault, hint: str) -> None:
    fake_openai.rules.append(lambda body: fault)
    results = many(fake_openai, 6, max_retries=5, unavailable_after=3)
    assert all(isinstance(r, ClientError) for r in results)
    stop = next(r for r in results if isinstance(r, EndpointUnavailableError))
    assert hint in stop.hint
    assert "none succeeded" in str(stop)
    # the third identical attempt stops it; the rest fail fast. A 5xx or a broken stream may be the
    # streaming path's alone: one plain request is tried first (it fails too here)
    plain_tried = fault.kind in ("500", "stream_error")
    assert fake_openai.requests == 3 + plain_tried


def test_first_failures_that_differ_do_not_stop(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("400", message="a"), Fault("400", message="b"), Fault("500", message="c"), Fault("ok")])
    results = many(fake_openai, 3, max_retries=1, unavailable_after=3)
    assert not any(isinstance(r, EndpointUnavailableError) for r in results)


def test_rate_limits_and_timeouts_never_count_as_cannot_serve(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("429", retry_after=0)] * 4 + [Fault("slow", delay=0.5)] * 2)
    [result] = complete(
        fake_openai, clock=FakeClock(), timeout=0.2, max_retries=6, unavailable_after=2, rate_limit_base=0.01
    )
    assert result.content == "你好，世界"


@pytest.mark.parametrize(
    "fault",
    [
        Fault("400", message="prompt rejected"),
        Fault("500", message="CUDA error"),
        Fault("500", message=LITELLM_DEAD),
        Fault("truncated"),
    ],
    ids=["400", "500", "500-unreachable-once", "malformed"],
)
def test_once_served_a_records_own_failure_never_stops_the_run(fake_openai: FakeOpenAI, fault: Fault) -> None:
    fake_openai.inject([Fault("ok"), fault, fault, Fault("ok"), fault, fault, Fault("ok")])
    results = many(fake_openai, 5, max_retries=1, unavailable_after=2)
    assert not any(isinstance(r, EndpointUnavailableError) for r in results)
    assert [isinstance(r, list) for r in results][:1] == [True] and any(isinstance(r, list) for r in results[1:])


def test_a_success_breaks_the_row(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("401"), Fault("401"), Fault("ok"), Fault("401"), Fault("401")])
    results = many(fake_openai, 6, unavailable_after=3)
    assert [type(r).__name__ for r in results] == [
        "PermanentRequestError",
        "PermanentRequestError",
        "list",
        "PermanentRequestError",
        "PermanentRequestError",
        "list",
    ]
