"""Bytes that are not a reply must not hang or flood the runner (issue 18, item 4).

The fake server misbehaves below the JSON, as gateways and proxies do: SSE keep-alive comments while the
upstream is stuck, data after ``[DONE]`` on a connection never ended, 429s asking for absurd or negative
waits, a gzip bomb, a 50 MB SSE line, a 500 with a 200 MB body. Through the client (the library) and the
``run`` command.
"""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest
from clients import client_options
from fakeclock import FakeClock
from fakeserver import FakeOpenAI, Fault
from typer.testing import CliRunner

from formatkit.cli import app
from scoring import EndpointOptions, Limits, RetryPolicy, run_file
from scoring._client.http import ChatClient, ChatResult
from scoring._errors import EndpointUnavailableError, ReplyTooLargeError, RetriesExhaustedError, error_kind

USER = [{"role": "user", "content": "你好，世界"}]
MIB = 1 << 20


def ask(server: FakeOpenAI, clock: FakeClock | None = None, **kw: Any) -> list[ChatResult]:
    """One request; with ``clock``, the client's waits are counted on that clock, not slept."""
    options: dict[str, Any] = {"backoff_base": 0.001, "timeout": 2.0, "max_retries": 0}
    options.update(kw)

    async def go() -> list[ChatResult]:
        async with ChatClient(server.base_url, "fake-model", **client_options(**options)) as client:
            if clock is not None:
                client.clock = clock
            return await client.complete(USER, {})

    return asyncio.run(go())


# -- keep-alive comments and [DONE] -------------------------------------------------------------------


def test_keep_alive_comments_do_not_hide_a_stuck_upstream(fake_openai: FakeOpenAI) -> None:
    # the gateway pings every 50 ms for 20 s while nothing of the reply comes
    fake_openai.inject([Fault("ping", delay=0.05, size=20)])
    with pytest.raises(RetriesExhaustedError) as info:
        ask(fake_openai, timeout=0.5)
    assert error_kind(info.value) == "timeout"
    assert "no reply for 0.5 s (--timeout" in str(info.value) and "keep-alive" in str(info.value)


def test_keep_alive_comments_between_pieces_of_a_live_reply_are_harmless(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("trickle", delay=0.05)])
    [result] = ask(fake_openai, timeout=1.0)
    assert result.content == "你好，世界"


@pytest.mark.parametrize("max_time", [None, 1.0])
def test_reading_stops_at_done_even_if_the_connection_goes_on(fake_openai: FakeOpenAI, max_time: Any) -> None:
    # after [DONE] the proxy keeps sending data lines and comments for a minute and never ends the response
    fake_openai.inject([Fault("after_done", delay=0.05)])
    [result] = ask(fake_openai, timeout=5.0, max_time=max_time)
    assert result.content == "你好，世界" and result.finish_reason == "stop"
    assert fake_openai.requests == 1  # the complete reply was kept, not thrown away and bought again
    [again] = ask(fake_openai)  # and the client is usable afterwards
    assert again.content == "你好，世界"


# -- the server's waits --------------------------------------------------------------------------------

DAY = 86_400

HUGE_WAITS: list[tuple[str, Fault, str]] = [
    ("Retry-After in seconds", Fault("429", retry_after=99999), "retry-after: 99999"),
    ("Retry-After as a date a day ahead", Fault("429", retry_after="DATE"), "retry-after: "),
    (
        "LiteLLM's llm_provider-retry-after",
        Fault("429", headers={"llm_provider-retry-after": "99999"}),
        "llm_provider-retry-after: 99999",
    ),
]


@pytest.mark.parametrize(("fault", "said"), [w[1:] for w in HUGE_WAITS], ids=[w[0] for w in HUGE_WAITS])
def test_a_daily_quota_stops_at_once_saying_what_the_server_asked(
    fake_openai: FakeOpenAI, fault: Fault, said: str
) -> None:
    if fault.retry_after == "DATE":
        fault.retry_after = formatdate(time.time() + DAY, usegmt=True)
    fake_openai.rules.append(lambda body: fault)
    clock = FakeClock()
    with pytest.raises(EndpointUnavailableError) as info:
        ask(fake_openai, clock, max_retries=5)
    assert clock.sleeps == []  # not 15 minutes of silent sleep per attempt
    assert fake_openai.requests == 1
    error = info.value
    assert error.kind == "quota" and error.status == 429
    assert said in str(error) and "asks to wait" in str(error) and "instead of sleeping" in str(error)
    assert "rerun after" in error.hint


def test_a_long_wait_within_the_cap_is_said_at_once(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("429", retry_after=1.5)])
    heard: list[str] = []
    clock = FakeClock()
    [result] = ask(fake_openai, clock, notice_wait=1.0, on_notice=heard.append, max_retries=2)
    assert result.content == "你好，世界"
    assert len(heard) == 1 and len(clock.sleeps) == 1 and clock.sleeps[0] >= 1.5
    assert "HTTP 429 (retry-after: 1.5)" in heard[0] and "asks to wait 2 s" in heard[0]
    assert "every request pauses until" in heard[0]


@pytest.mark.parametrize("said", ["0", "-5", "PAST"])
def test_a_wait_of_nothing_is_not_a_hot_loop(fake_openai: FakeOpenAI, said: str) -> None:
    value = formatdate(time.time() - 3600, usegmt=True) if said == "PAST" else said
    clock = FakeClock()
    limited_until = clock.now() + 1.5  # on the client's clock: the limit lifts once it has waited 1.5 s
    # (at most 50 refusals: a client that never waited would otherwise be refused for ever)
    fake_openai.rules.append(
        lambda body: (
            Fault("429", retry_after=value) if clock.now() < limited_until and fake_openai.requests <= 50 else None
        )
    )
    [result] = ask(fake_openai, clock, max_retries=0, rate_limit_base=0.4, rate_limit_window=30)
    assert result.content == "你好，世界"
    # the client's own growing backoff (0.2-0.4 s, 0.4-0.8 s, 0.8-1.6 s ...), not hundreds of attempts
    assert fake_openai.requests <= 6
    assert all(wait >= 0.2 for wait in clock.sleeps)


# -- bounds on bytes -----------------------------------------------------------------------------------


def test_a_gzip_bomb_is_stopped_at_the_bound_using_little_memory(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("gzip", size=256 * MIB)])  # about 260 KB on the wire
    tracemalloc.start()
    try:
        with pytest.raises(ReplyTooLargeError) as info:
            ask(fake_openai, stream=False, max_retries=3, max_reply_bytes=16 * MIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "larger than 16 MiB (unpacked)" in str(info.value)
    assert error_kind(info.value) == "too_large"
    assert fake_openai.requests == 1  # not retried: the next one would be as large
    assert peak < 40 * MIB


def test_a_gzip_reply_within_the_bound_is_read(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("gzip", size=3 * MIB)])
    [result] = ask(fake_openai, stream=False)
    assert result.content == "你好，世界"


def test_a_huge_sse_line_is_read_whole_or_refused_past_the_bound(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("long_line", size=8 * MIB)])
    [result] = ask(fake_openai, timeout=10.0)
    assert len(result.content) > 8 * MIB - 200 and set(result.content) == {"x"}
    fake_openai.inject([Fault("long_line", size=8 * MIB)])
    with pytest.raises(ReplyTooLargeError, match="larger than 4 MiB"):
        ask(fake_openai, timeout=10.0, max_reply_bytes=4 * MIB)


def test_an_error_body_is_read_only_as_far_as_its_message(fake_openai: FakeOpenAI) -> None:
    fake_openai.inject([Fault("big_error", size=200 * MIB)])
    with pytest.raises(RetriesExhaustedError) as info:
        ask(fake_openai)
    assert error_kind(info.value) == "http_500"
    assert str(info.value) == "HTTP 500: fake server says 500 (after 1 attempt(s))"  # its message, no padding
    assert fake_openai.bytes_sent < 32 * MIB  # what the socket buffers held, not the 200 MB


# -- through the command -------------------------------------------------------------------------------


def _set(path: Path, count: int) -> Path:
    path.write_text("".join(json.dumps({"prompt": f"q{i}", "answer": "a"}) + "\n" for i in range(count)))
    return path


def _run(server: FakeOpenAI, tmp_path: Path, *extra: str) -> Any:
    source = _set(tmp_path / "set.jsonl", 3)
    args = ["run", str(source), "-o", str(tmp_path / "out.jsonl"), "--base-url", server.base_url, "--model", "m"]
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, [*args, "--backoff-base", "0.001", *extra])


def test_the_cli_times_out_a_stream_of_keep_alive_comments(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("ping", delay=0.05, size=20) if "q1" in str(body) else None)
    result = _run(fake_openai, tmp_path, "--timeout", "0.5", "--max-retries", "0")
    assert result.exit_code == 1, result.output
    lines = (tmp_path / "out.jsonl").read_text().splitlines()
    errors = [json.loads(line)["messages"][-1]["responses"][0].get("error") for line in lines]
    assert errors[0] is None and errors[2] is None
    assert errors[1].startswith("timeout: ") and "keep-alive" in errors[1]


def test_the_cli_stops_on_a_daily_quota_and_says_when_to_rerun(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("429", retry_after=99999))
    result = _run(fake_openai, tmp_path)
    assert result.exit_code == 1, result.output
    assert "asks to wait 27 h 47 min" in result.output and "retry-after: 99999" in result.output
    assert "rerun after" in result.output and "Traceback" not in result.output
    assert fake_openai.requests <= 8  # the requests in flight when the answer came, not one more


# -- an empty reply is not content (item 5) --------------------------------------------------------------


def test_an_empty_reply_does_not_exit_0(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    # a gateway turning a backend error into "": finished, kept, but not the content exit 0 promises
    fake_openai.responder = lambda body: "" if "q1" in str(body) else "fine"
    result = _run(fake_openai, tmp_path)
    assert result.exit_code == 1, result.output
    assert "1 empty (no content: nothing to score)" in result.output and "--retry-empty" in result.output
    assert "Traceback" not in result.output
    source, out = tmp_path / "set.jsonl", tmp_path / "out.jsonl"
    summary = run_file(source, out, EndpointOptions(fake_openai.base_url, "m"))
    assert summary.empty_replies == 1 and not summary.all_content
    fake_openai.responder = None
    repaired = _run(fake_openai, tmp_path, "--retry-empty", "1")
    assert repaired.exit_code == 0, repaired.output


# -- a server whose streaming path fails while plain requests work (item 7) -----------------------------

DEAD_STREAM = "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error."


@pytest.mark.parametrize("concurrency", [2, 8])
def test_a_broken_streaming_path_falls_back_once_to_plain_requests(fake_openai: FakeOpenAI, concurrency: int) -> None:
    fake_openai.rules.append(lambda body: Fault("500", message=DEAD_STREAM) if body.get("stream") else None)
    fake_openai.delay = 0.01
    heard: list[str] = []

    async def go() -> list[list[ChatResult]]:
        async with ChatClient(
            fake_openai.base_url,
            "m",
            limits=Limits(concurrency=concurrency),
            retry=RetryPolicy(backoff_base=0.001),
            on_notice=heard.append,
        ) as client:
            return await asyncio.gather(*(client.complete(USER, {}) for _ in range(12)))

    replies = asyncio.run(go())
    assert [reply[0].content for reply in replies] == ["你好，世界"] * 12
    streamed = [bool(body.get("stream")) for body in fake_openai.bodies]
    # streamed: the first wave, and the requests already holding a slot when the plain one was asked
    # (their failures are not counted: the plain request's answer decides); then plain for good
    assert concurrency <= streamed.count(True) < 2 * concurrency and streamed.count(False) == 12
    assert len(heard) == 1 and "requests are not streamed from now on" in heard[0]


def test_the_cli_uses_a_server_whose_streaming_path_fails(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("500", message=DEAD_STREAM) if body.get("stream") else None)
    result = _run(fake_openai, tmp_path)
    assert result.exit_code == 0, result.output
    assert "cannot reach" not in result.output and "stopped" not in result.output
    assert "requests are not streamed from now on" in result.output


def test_when_plain_requests_fail_too_the_endpoint_is_still_stopped(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("500", message=DEAD_STREAM))
    result = _run(fake_openai, tmp_path, "--max-retries", "0")
    assert result.exit_code == 1 and "cannot serve" in result.output, result.output
    assert "cannot reach the model server behind it" in result.output  # here the gateway's backend is dead
    assert fake_openai.requests == 4  # 3 alike, and the one plain request tried
