"""Runner on single records against the fake server: parameters, multi-turn order, samples, failures."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from clients import client_options
from fakeserver import FakeOpenAI, Fault, last_user

from formatkit import RecordDict
from scoring import Limits, RetryPolicy
from scoring._client.http import ChatClient
from scoring._errors import EndpointUnavailableError
from scoring._runner.requests import count_requests, error_kind_of, request_params
from scoring._runner.runner import RecordOutcome, Runner

SET_PARAMS = {"temperature": 1.0, "top_p": 0.7, "max_tokens": 4096, "logprobs": False, "top_logprobs": 10, "stop": []}


def single(prompt: str = "0+1", params: dict[str, Any] | None = None, n: int = 1) -> RecordDict:
    return {
        "session_id": 0,
        "messages": [
            {"role": "system", "content": "请完成下面的计算题"},
            {"role": "user", "content": prompt},
            {
                "role": "assistant",
                "reference_response": "1",
                "responses": [{"parameters": dict(params or {})} for _ in range(n)],
            },
        ],
    }


def multi_turn() -> RecordDict:
    return {
        "session_id": 7,
        "messages": [
            {"role": "system", "content": "你是数学老师"},
            {"role": "user", "content": "turn one"},
            {"role": "assistant", "responses": [{"parameters": {"temperature": 0}}]},
            {"role": "user", "content": "turn two"},
            {"role": "assistant", "content": "given reply"},
            {"role": "user", "content": "turn three"},
            {"role": "assistant", "responses": [{"parameters": {"temperature": 0}}]},
            {"role": "user", "content": "turn four"},
            {"role": "assistant", "reference_response": "5", "responses": [{"parameters": {"temperature": 0}}]},
        ],
    }


def run(server: FakeOpenAI, record: RecordDict, defaults: dict[str, Any] | None = None, **kw: Any) -> RecordOutcome:
    options: dict[str, Any] = {"backoff_base": 0.001, "timeout": 1.0, "max_retries": 2}
    options.update(kw)

    async def go() -> RecordOutcome:
        async with ChatClient(server.base_url, "fake", **client_options(**options)) as client:
            return await Runner(client, defaults=defaults).run_record(record)

    return asyncio.run(go())


def test_single_turn_is_filled_in_canonical_order(fake_openai: FakeOpenAI) -> None:
    record = single(params=SET_PARAMS)
    outcome = run(fake_openai, record)
    assert outcome.ok and outcome.requests == 1
    [response] = record["messages"][-1]["responses"]
    assert list(response) == [
        "parameters",
        "model",
        "endpoint",
        "usage",
        "content",
        "finish_reason",
        "latency_ms",
        "ttft_ms",
    ]
    assert 0 < response["ttft_ms"] <= response["latency_ms"]  # streamed: the first piece came before the end
    assert response["model"] == "fake" and response["endpoint"] == fake_openai.base_url
    assert response["content"] == "0+1"
    assert response["parameters"] == SET_PARAMS  # never rewritten
    assert response["usage"]["total_tokens"] == response["usage"]["prompt_tokens"] + 3


def test_set_parameters_win_over_defaults_and_are_normalised(fake_openai: FakeOpenAI) -> None:
    record = single(params=SET_PARAMS)
    run(fake_openai, record, defaults={"temperature": 0.0, "seed": 42, "max_tokens": 10, "top_k": 20})
    body = fake_openai.bodies[0]
    assert body["temperature"] == 1.0 and body["max_tokens"] == 4096 and body["top_p"] == 0.7
    assert body["seed"] == 42 and body["top_k"] == 20  # defaults fill what the set leaves out
    assert "top_logprobs" not in body and "stop" not in body and "n" not in body
    assert body["messages"] == [
        {"role": "system", "content": "请完成下面的计算题"},
        {"role": "user", "content": "0+1"},
    ]
    assert body["model"] == "fake"


def test_request_params_rules() -> None:
    assert request_params({"a": 1, "b": 2}, {"b": 3}) == {"a": 1, "b": 3}
    assert request_params({}, {"n": 3, "seed": 5}, sample=2) == {"seed": 7}
    assert request_params({}, {"logprobs": True, "top_logprobs": 5, "stop": ["x"]}) == {
        "logprobs": True,
        "top_logprobs": 5,
        "stop": ["x"],
    }
    assert request_params({"temperature": 0.5}, {"temperature": None}) == {}


def test_n_samples_are_one_request_each(fake_openai: FakeOpenAI) -> None:
    record = single(params={"n": 3, "seed": 10, "temperature": 0.8}, n=3)
    assert count_requests(record) == 3
    outcome = run(fake_openai, record)
    assert outcome.ok and outcome.requests == 3 and fake_openai.requests == 3
    responses = record["messages"][-1]["responses"]
    assert all(r["content"] == "0+1" for r in responses)
    assert sorted(b["seed"] for b in fake_openai.bodies) == [10, 11, 12]
    assert all("n" not in b for b in fake_openai.bodies)
    assert all(r["parameters"] == {"n": 3, "seed": 10, "temperature": 0.8} for r in responses)


def test_multi_turn_generates_earlier_turns_first_in_order(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = lambda body: f"reply to {last_user(body)}"
    record = multi_turn()
    assert count_requests(record) == 3
    outcome = run(fake_openai, record)
    assert outcome.ok and outcome.requests == 3
    assert [last_user(b) for b in fake_openai.bodies] == ["turn one", "turn three", "turn four"]
    final = fake_openai.bodies[-1]["messages"]
    assert [m["content"] for m in final if m["role"] == "assistant"] == [
        "reply to turn one",
        "given reply",
        "reply to turn three",
    ]
    earlier = record["messages"][2]
    assert list(earlier) == ["role", "content", "responses"]
    assert earlier["content"] == "reply to turn one" == earlier["responses"][0]["content"]
    assert record["messages"][-1]["responses"][0]["content"] == "reply to turn four"


def test_a_failed_earlier_turn_skips_the_later_ones(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("400", message="context too long")])
    record = multi_turn()
    outcome = run(fake_openai, record)
    assert not outcome.ok and fake_openai.requests == 1
    assert record["messages"][2]["responses"][0]["error"] == "http_400: context too long"
    assert "content" not in record["messages"][2]
    later = record["messages"][-1]["responses"][0]["error"]
    assert later.startswith("skipped:") and error_kind_of(later) == "skipped"
    # A rerun on the same record retries the failed turn, then goes on.
    again = run(fake_openai, record)
    assert again.ok and again.requests == 3
    assert "error" not in record["messages"][2]["responses"][0]


def test_reasoning_content_is_kept(fake_openai: FakeOpenAI) -> None:
    fake_openai.reasoning = "reasoning"
    record = single()
    run(fake_openai, record)
    response = record["messages"][-1]["responses"][0]
    assert response["reasoning_content"] == "thinking about: 0+1"
    assert list(response) == [
        "parameters",
        "model",
        "endpoint",
        "usage",
        "content",
        "reasoning_content",
        "finish_reason",
        "latency_ms",
        "ttft_ms",
    ]


@pytest.mark.parametrize(
    ("defaults", "own", "kept"),
    [
        ({"logprobs": True}, {}, True),
        ({}, {"logprobs": True, "top_logprobs": 2}, True),
        ({"logprobs": True}, {"logprobs": False}, False),
        ({}, {}, False),
    ],
)
def test_logprobs_only_when_asked(
    fake_openai: FakeOpenAI, defaults: dict[str, Any], own: dict[str, Any], kept: bool
) -> None:
    record = single(params=own)
    run(fake_openai, record, defaults=defaults)
    response = record["messages"][-1]["responses"][0]
    assert ("logprobs" in response) is kept


def test_permanent_error_is_recorded_with_the_endpoint_message(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("422", message="temperature: must be <= 2")])
    record = single()
    outcome = run(fake_openai, record)
    assert outcome.errors == ["http_422: temperature: must be <= 2"]
    response = record["messages"][-1]["responses"][0]
    assert response == {"parameters": {}, "error": "http_422: temperature: must be <= 2"}


def test_exhausted_retries_are_recorded(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("ok"), *[Fault("503")] * 3])
    record = single()

    async def go() -> RecordOutcome:
        async with ChatClient(
            fake_openai.base_url, "fake", retry=RetryPolicy(backoff_base=0.001, max_retries=2)
        ) as client:
            runner = Runner(client)
            await runner.run_record(single())  # the endpoint has served: a record's failure stays its own
            return await runner.run_record(record)

    outcome = asyncio.run(go())
    assert outcome.errors == ["http_503: fake server says 503 (gave up after 3 attempts)"]


def test_one_failed_sample_does_not_touch_the_others(fake_openai: FakeOpenAI) -> None:
    fake_openai.rules.append(lambda body: Fault("400", message="bad seed") if body.get("seed") == 1 else None)
    record = single(params={"n": 3, "seed": 0}, n=3)
    outcome = run(fake_openai, record)
    responses = record["messages"][-1]["responses"]
    assert [("error" in r) for r in responses] == [False, True, False]
    assert len(outcome.errors) == 1 and outcome.filled == 2


def test_filled_and_scored_responses_are_never_resent(fake_openai: FakeOpenAI) -> None:
    record = single(n=3)
    responses = record["messages"][-1]["responses"]
    responses[0]["content"] = "already"
    responses[1]["score"] = 0.0
    responses[1]["analysis"] = "no content"
    before = copy.deepcopy(responses[:2])
    run(fake_openai, record)
    assert fake_openai.requests == 1
    assert record["messages"][-1]["responses"][:2] == before


def test_endpoint_unavailable_escapes() -> None:
    async def go() -> None:
        async with ChatClient(
            "http://127.0.0.1:9/v1", "m", retry=RetryPolicy(backoff_base=0.001, max_retries=0, unavailable_after=1)
        ) as client:
            await Runner(client).run_record(single())

    with pytest.raises(EndpointUnavailableError):
        asyncio.run(go())


def test_run_many_bounds_active_records_and_yields_all(fake_openai: FakeOpenAI) -> None:
    fake_openai.delay = 0.01
    pulled: list[int] = []

    def records() -> Any:
        for i in range(30):
            pulled.append(i)
            yield i, single(prompt=f"q{i}")

    async def go() -> list[int]:
        async with ChatClient(fake_openai.base_url, "m", limits=Limits(concurrency=3)) as client:
            runner = Runner(client, max_active_records=5)
            seen: list[Any] = []
            async for position, record, outcome in runner.run_many(records()):
                assert outcome.ok and record["messages"][-1]["responses"][0]["content"] == f"q{position}"
                assert len(pulled) - len(seen) <= 5
                seen.append(position)
            return seen

    assert sorted(asyncio.run(go())) == list(range(30))
    assert fake_openai.max_in_flight <= 3


def test_a_single_stub_asking_for_n_samples_gets_n_entries(fake_openai: FakeOpenAI) -> None:
    record = single(params={"n": 3, "temperature": 0.9})  # a hand-written canonical record: one stub
    assert count_requests(record) == 1
    outcome = run(fake_openai, record)
    assert outcome.ok and outcome.requests == 3 and fake_openai.requests == 3
    responses = record["messages"][-1]["responses"]
    assert [r["content"] for r in responses] == ["0+1"] * 3
    assert all(r["parameters"] == {"n": 3, "temperature": 0.9} for r in responses)


@pytest.mark.parametrize(
    ("own", "defaults", "stubs", "expected"),
    [
        ({}, {"n": 4}, 1, 4),
        ({"n": 2}, {"n": 4}, 1, 2),
        ({"n": 1}, {"n": 4}, 1, 1),
        ({}, {}, 1, 1),
        ({"n": 2}, {}, 3, 3),
        ({}, {"n": 99}, 1, 16),
        ({"n": "3"}, {}, 1, 1),
        ({}, {"n": True}, 1, 1),
    ],
)
def test_expand_samples_rules(own: dict[str, Any], defaults: dict[str, Any], stubs: int, expected: int) -> None:
    from scoring._runner.requests import expand_samples

    record = single(params=own, n=stubs)
    expand_samples(record, defaults)
    assert len(record["messages"][-1]["responses"]) == expected


def test_answers_already_collected_are_never_padded_with_samples(fake_openai: FakeOpenAI) -> None:
    from scoring._runner.requests import expand_samples

    record = single(params={"n": 3})
    record["messages"][-1]["responses"][0]["content"] = "collected elsewhere"
    assert expand_samples(record, {"n": 5}) == 0
    run(fake_openai, record, defaults={"n": 5})
    assert fake_openai.requests == 0 and len(record["messages"][-1]["responses"]) == 1
