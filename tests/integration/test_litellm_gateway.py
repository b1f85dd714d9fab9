"""``formatkit run`` against a real gateway: LiteLLM's proxy on 127.0.0.1, with mock models, a route to a
dead port, and a route to the fake server (which plays the model server: rate limits, empty replies).

Marked ``gateway`` (not in the default suite; CI runs ``pytest -m gateway`` after
``pip install 'litellm[proxy]'``); skipped when the proxy is not installed. One proxy serves the whole
module (it takes about ten seconds to start).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeclock import FakeClock
from fakeserver import FakeOpenAI, Fault, last_user
from litellm_proxy import free_port, gateway_marks, running_proxy
from typer.testing import CliRunner, Result

from formatkit.cli import app
from scoring._client.http import ChatClient

pytestmark = gateway_marks

MOCK_REPLY = "你好，这是模拟回答。"


def _config(backend: str, dead_port: int) -> str:
    return f"""
model_list:
  - model_name: mock
    litellm_params: {{model: openai/mock, api_key: sk-unused, mock_response: "{MOCK_REPLY}"}}
  - model_name: dead
    litellm_params: {{model: openai/dead, api_key: sk-unused, api_base: "http://127.0.0.1:{dead_port}/v1"}}
  - model_name: backend
    litellm_params: {{model: openai/backend, api_key: sk-unused, api_base: "{backend}"}}
litellm_settings:
  telemetry: false
  num_retries: 0
  request_timeout: 30
"""


class Gateway:
    def __init__(self, url: str, key: str, backend: FakeOpenAI) -> None:
        self.url = url
        self.key = key
        self.backend = backend


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    backend = FakeOpenAI().start()
    try:
        with running_proxy(_config(backend.base_url, free_port()), tmp_path_factory.mktemp("litellm")) as (url, key):
            yield Gateway(url, key, backend)
    finally:
        backend.stop()


@pytest.fixture
def backend(gateway: Gateway) -> Iterator[FakeOpenAI]:
    gateway.backend.reset()
    gateway.backend.rules.clear()
    gateway.backend.responder = None
    yield gateway.backend


def write_set(path: Path, count: int) -> Path:
    path.write_bytes(b"".join(orjson.dumps({"prompt": f"q{i}", "answer": str(i)}) + b"\n" for i in range(count)))
    return path


def run(gateway: Gateway, model: str, src: Path, out: Path, *extra: str, key: str | None = None) -> Result:
    args = ["run", str(src), "-o", str(out), "--base-url", gateway.url, "--model", model, "--timeout", "30", *extra]
    env = {"FK_GATEWAY_KEY": key if key is not None else gateway.key}
    return CliRunner(env=env).invoke(app, [*args, "--api-key-env", "FK_GATEWAY_KEY"])


def responses(out: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line)["messages"][-1]["responses"][0] for line in out.read_bytes().splitlines()]


# -- item 1: an endpoint that cannot serve stops the run within a handful of requests -------------------


@pytest.mark.parametrize(
    ("model", "key", "cause", "hint"),
    [
        ("dead", None, "Connection error", "cannot reach the model server behind it"),
        ("no-such-model", None, "Invalid model name passed in model=no-such-model", "check the model name"),
        ("mock", "sk-wrong-key-000000000000", "No connected db.", "check the API key in $FK_GATEWAY_KEY"),
    ],
    ids=["backend-down", "wrong-model", "wrong-key"],
)
def test_a_gateway_that_cannot_serve_stops_the_run(
    gateway: Gateway, tmp_path: Path, model: str, key: str | None, cause: str, hint: str
) -> None:
    out = tmp_path / "out.jsonl"
    started = time.monotonic()
    result = run(gateway, model, write_set(tmp_path / "set.jsonl", 120), out, "--concurrency", "8", key=key)
    seconds = time.monotonic() - started
    assert result.exit_code == 1, result.stderr
    assert "formatkit run: stopped: endpoint" in result.stderr and "cannot serve" in result.stderr
    assert cause in result.stderr and hint in result.stderr
    assert not out.exists()
    journal = tmp_path / "out.jsonl.journal"
    assert not journal.exists() or len(journal.read_bytes().splitlines()) <= 8  # at most those in flight
    sent = int(re.search(r"after (\d+) HTTP attempt", result.stderr).group(1))  # type: ignore[union-attr]
    assert sent <= 8 + 3  # the first three alike stop it; at most the others in flight were also sent
    print(f"\n{model}: stopped after {sent} HTTP attempts in {seconds:.1f} s")  # figures for the issue note (-s)
    for secret in (gateway.key, key or gateway.key):
        assert secret not in result.stderr


# -- item 3: the backend's rate limit, forwarded by LiteLLM as llm_provider-retry-after, is waited out ---


def test_a_rate_limited_backend_is_waited_out_not_given_up(
    gateway: Gateway, backend: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: set[str] = set()

    def first_attempt_limited(body: dict[str, Any]) -> Fault | None:
        prompt = last_user(body)
        if prompt in seen:
            return None
        seen.add(prompt)
        return Fault("429", retry_after=1, message="Rate limit reached for requests")

    backend.rules.append(first_attempt_limited)
    out = tmp_path / "out.jsonl"
    clock = FakeClock()  # the client's waits are counted on it, not slept
    monkeypatch.setattr(ChatClient, "clock", clock)
    # --max-retries 0: only the server's own window keeps a rate-limited record alive.
    result = run(gateway, "backend", write_set(tmp_path / "set.jsonl", 6), out, "--max-retries", "0")
    assert result.exit_code == 0, result.stderr
    assert [r["content"] for r in responses(out)] == [f"q{i}" for i in range(6)]
    assert len([wait for wait in clock.sleeps if wait >= 1.0]) >= 6  # each record: the server said "retry after 1 s"
    assert backend.requests == 12  # each record: one 429, then its answer


# -- item 5: empty and cut-off replies are counted, and asked again on request ----------------------------


def test_empty_replies_through_the_gateway_are_counted_and_retried(
    gateway: Gateway, backend: FakeOpenAI, tmp_path: Path
) -> None:
    def reasoning_only(body: dict[str, Any]) -> str | dict[str, Any]:
        if last_user(body) not in ("q1", "q2"):
            return last_user(body)
        message = {"role": "assistant", "content": "", "reasoning_content": "让我想想……"}
        return {
            "choices": [{"index": 0, "message": message, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 2, "completion_tokens": 64, "total_tokens": 66},
        }

    backend.responder = reasoning_only
    src = write_set(tmp_path / "set.jsonl", 4)
    out = tmp_path / "out.jsonl"
    result = run(gateway, "backend", src, out)
    assert result.exit_code == 1, result.stderr  # finished, but two replies are no content (issue 18)
    assert "replies: 2 empty (no content: nothing to score), 2 cut off at the token limit" in result.stderr
    assert [r["content"] for r in responses(out)] == ["q0", "", "", "q3"]

    backend.responder = None
    backend.reset()
    result = run(gateway, "backend", src, out, "--retry-empty", "1")
    assert result.exit_code == 0, result.stderr
    assert [r["content"] for r in responses(out)] == ["q0", "q1", "q2", "q3"]
    assert sorted(last_user(b) for b in backend.bodies) == ["q1", "q2"]


# -- streaming ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["mock", "backend"])
def test_a_streamed_run_through_the_gateway(gateway: Gateway, backend: FakeOpenAI, tmp_path: Path, model: str) -> None:
    backend.stream_pieces = 4
    out = tmp_path / "out.jsonl"
    result = run(gateway, model, write_set(tmp_path / "set.jsonl", 5), out, "--concurrency", "4")
    assert result.exit_code == 0, result.stderr
    got = responses(out)
    expected = [MOCK_REPLY] * 5 if model == "mock" else [f"q{i}" for i in range(5)]
    assert [r["content"] for r in got] == expected
    for response in got:
        assert response["finish_reason"] == "stop"
        assert response["usage"]["completion_tokens"] > 0  # usage asked for in the stream, and given
        assert response["model"] == model and response["endpoint"] == gateway.url
    if model == "backend":
        assert all(body.get("stream") for body in backend.bodies)  # LiteLLM streamed from the backend too


# -- issue 18: a daily quota and a broken streaming path, through the real gateway --------------------------


def test_a_backend_daily_quota_stops_the_run_at_once_saying_when_to_rerun(
    gateway: Gateway, backend: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend.rules.append(lambda body: Fault("429", retry_after=99999, message="You exceeded your daily quota"))
    out = tmp_path / "out.jsonl"
    clock = FakeClock()  # the client's waits are counted on it, not slept
    monkeypatch.setattr(ChatClient, "clock", clock)
    result = run(gateway, "backend", write_set(tmp_path / "set.jsonl", 20), out, "--concurrency", "4")
    assert result.exit_code == 1, result.stderr
    assert clock.sleeps == []  # not 15 minutes of silent sleep per attempt
    assert "asks to wait 27 h 47 min" in result.stderr and "rerun after" in result.stderr, result.stderr
    assert backend.requests <= 4  # the requests in flight when the first answer came


def test_a_backend_whose_streaming_fails_is_used_without_streaming(
    gateway: Gateway, backend: FakeOpenAI, tmp_path: Path
) -> None:
    backend.rules.append(lambda body: Fault("500", message="stream broke") if body.get("stream") else None)
    out = tmp_path / "out.jsonl"
    result = run(gateway, "backend", write_set(tmp_path / "set.jsonl", 6), out, "--max-retries", "1")
    assert result.exit_code == 0, result.stderr
    assert "requests are not streamed from now on" in result.stderr
    assert [r["content"] for r in responses(out)] == [f"q{i}" for i in range(6)]
