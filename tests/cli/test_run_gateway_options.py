"""``formatkit run``'s gateway options through the CLI: streaming, limits, empty replies, model identity,
headers and parameter shaping, keys and URLs, refused parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI, Fault, last_user
from typer.testing import CliRunner, Result

from formatkit.cli import app


def write_set(path: Path, count: int, params: dict[str, Any] | None = None) -> Path:
    lines = []
    for i in range(count):
        line: dict[str, Any] = {"prompt": f"q{i}", "answer": str(i)}
        if params:
            line["parameters"] = params
        lines.append(orjson.dumps(line))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def invoke(url: str, src: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> Result:
    args = ["run", str(src), "-o", str(out), "--base-url", url, "--model", "fake-model", "--backoff-base", "0.001"]
    return CliRunner(env={"OPENAI_API_KEY": "", **(env or {})}).invoke(app, [*args, "--timeout", "2", *extra])


def responses(out: Path) -> list[dict[str, Any]]:
    return [r["messages"][-1]["responses"][0] for r in read_jsonl(out)]


@pytest.mark.parametrize(
    "param", ["stream=true", "stream=false", 'stream_options={"include_usage":true}'], ids=["true", "false", "options"]
)
def test_param_stream_is_refused_with_exit_2(fake_openai: FakeOpenAI, tmp_path: Path, param: str) -> None:
    result = invoke(fake_openai.base_url, write_set(tmp_path / "s.jsonl", 2), tmp_path / "o.jsonl", "--param", param)
    assert result.exit_code == 2
    assert "formatkit decides streaming itself" in result.stderr and "--no-stream" in result.stderr
    assert fake_openai.requests == 0


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "plain"])
def test_every_response_names_the_model_and_the_endpoint(fake_openai: FakeOpenAI, tmp_path: Path, stream: bool) -> None:
    fake_openai.reasoning = "reasoning_content"
    out = tmp_path / "o.jsonl"
    flag = "--stream" if stream else "--no-stream"
    result = invoke(fake_openai.base_url, write_set(tmp_path / "s.jsonl", 3), out, flag)
    assert result.exit_code == 0, result.stderr
    for i, response in enumerate(responses(out)):
        assert response["model"] == "fake-model" and response["endpoint"] == fake_openai.base_url
        assert response["content"] == f"q{i}" and response["reasoning_content"] == f"thinking about: q{i}"
        assert response["finish_reason"] == "stop" and response["usage"]["total_tokens"] > 0
    assert [bool(b.get("stream")) for b in fake_openai.bodies] == [stream] * 3


def test_endpoint_id_on_input_is_read_as_model(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    record = {
        "session_id": 0,
        "messages": [
            {"role": "user", "content": "1+1"},
            {
                "role": "assistant",
                "reference_response": "2",
                "responses": [{"parameters": {}, "endpoint_id": "ep-001", "content": "2"}, {"parameters": {}}],
            },
        ],
    }
    src = tmp_path / "canon.jsonl"
    src.write_bytes(orjson.dumps(record) + b"\n")
    out = tmp_path / "o.jsonl"
    result = invoke(fake_openai.base_url, src, out)
    assert result.exit_code == 0, result.stderr
    kept, filled = read_jsonl(out)[0]["messages"][-1]["responses"]
    assert kept == {"parameters": {}, "model": "ep-001", "content": "2"}
    assert filled["model"] == "fake-model" and "endpoint_id" not in filled


def test_limit_runs_the_first_n_records(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    result = invoke(fake_openai.base_url, write_set(tmp_path / "s.jsonl", 10), out, "--limit", "3")
    assert result.exit_code == 0, result.stderr
    assert [r["content"] for r in responses(out)] == ["q0", "q1", "q2"]
    assert sorted(last_user(b) for b in fake_openai.bodies) == ["q0", "q1", "q2"]
    assert "run: 3 records written" in result.stderr


def empty_for(prompts: set[str], server: FakeOpenAI) -> None:
    """Replies to ``prompts`` are all reasoning and no content, cut at the limit (a reasoning model)."""

    def reply(body: dict[str, Any]) -> str | dict[str, Any]:
        if last_user(body) not in prompts:
            return last_user(body)
        return {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "", "reasoning_content": "嗯……"},
                    "finish_reason": "length",
                }
            ],
            "usage": {"prompt_tokens": 2, "completion_tokens": 4096, "total_tokens": 4098},
        }

    server.responder = reply


def test_empty_and_cut_off_replies_are_counted_and_retried_on_request(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    empty_for({"q1", "q3"}, fake_openai)
    src = write_set(tmp_path / "s.jsonl", 5)
    out = tmp_path / "o.jsonl"
    result = invoke(fake_openai.base_url, src, out)
    assert result.exit_code == 1, result.stderr  # finished, but empty replies are no content (issue 18)
    assert "replies: 2 empty (no content: nothing to score), 2 cut off at the token limit" in result.stderr
    assert "--retry-empty" in result.stderr
    assert [r["content"] for r in responses(out)] == ["q0", "", "q2", "", "q4"]

    # A rerun with --retry-empty asks the empty ones again (and only them), even though they are journaled.
    fake_openai.reset()
    empty_for({"q3"}, fake_openai)
    result = invoke(fake_openai.base_url, src, out, "--retry-empty", "2")
    assert result.exit_code == 1, result.stderr  # q3 is still empty
    assert sorted(last_user(b) for b in fake_openai.bodies) == ["q1", "q3", "q3", "q3"]
    assert [r["content"] for r in responses(out)] == ["q0", "q1", "q2", "", "q4"]
    assert "replies: 1 empty" in result.stderr


def test_an_empty_earlier_turn_is_not_used_as_history(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    record = {
        "session_id": 1,
        "messages": [
            {"role": "user", "content": "turn one"},
            {"role": "assistant", "responses": [{"parameters": {}}]},
            {"role": "user", "content": "turn two"},
            {"role": "assistant", "reference_response": "x", "responses": [{"parameters": {}}]},
        ],
    }
    src = tmp_path / "multi.jsonl"
    src.write_bytes(orjson.dumps(record) + b"\n")
    empty_for({"turn one"}, fake_openai)
    out = tmp_path / "o.jsonl"
    result = invoke(fake_openai.base_url, src, out)
    assert result.exit_code == 1, result.output
    [written] = read_jsonl(out)
    assert written["messages"][1]["responses"][0]["content"] == ""
    assert written["messages"][-1]["responses"][0]["error"].startswith(
        "skipped: assistant turn 1 replied with an empty content"
    )
    assert [last_user(b) for b in fake_openai.bodies] == ["turn one"]


def test_headers_renames_and_drops_reach_the_server(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "s.jsonl", 1, params={"max_tokens": 4096, "temperature": 0.6})
    result = invoke(
        fake_openai.base_url,
        src,
        tmp_path / "o.jsonl",
        "--header",
        "api-key=abc=123",
        "--header",
        "X-Team=eval",
        "--rename-param",
        "max_tokens=max_completion_tokens",
        "--drop-param",
        "temperature",
    )
    assert result.exit_code == 0, result.stderr
    body = fake_openai.bodies[0]
    assert body["max_completion_tokens"] == 4096 and "max_tokens" not in body and "temperature" not in body
    assert fake_openai.headers[0]["api-key"] == "abc=123" and fake_openai.headers[0]["x-team"] == "eval"


@pytest.mark.parametrize("option", ["--header", "--rename-param"])
def test_malformed_pairs_are_usage_errors(fake_openai: FakeOpenAI, tmp_path: Path, option: str) -> None:
    result = invoke(fake_openai.base_url, write_set(tmp_path / "s.jsonl", 1), tmp_path / "o.jsonl", option, "novalue")
    assert result.exit_code == 2 and "expected" in result.stderr


def test_a_key_ending_in_cr_is_stripped_with_a_warning(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.api_key = "sk-right-key-000000000000"
    result = invoke(
        fake_openai.base_url,
        write_set(tmp_path / "s.jsonl", 2),
        tmp_path / "o.jsonl",
        env={"OPENAI_API_KEY": "sk-right-key-000000000000\r"},
    )
    assert result.exit_code == 0, result.stderr
    assert "warning: $OPENAI_API_KEY: the API key ends in a carriage return" in result.stderr


def test_a_query_in_the_base_url_is_kept_and_credentials_never_printed(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    url = (
        fake_openai.base_url.replace("http://", "http://bob:hunter2-pass@") + "?api-version=2024-06-01&key=zz-secret-9"
    )
    fake_openai.rules.append(lambda body: Fault("404", message="Resource not found"))
    out = tmp_path / "o.jsonl"
    result = invoke(url, write_set(tmp_path / "s.jsonl", 5), out)
    assert result.exit_code == 1
    assert fake_openai.paths[0] == "/v1/chat/completions?api-version=2024-06-01&key=zz-secret-9"
    assert "api-version=2024-06-01" in result.stderr
    for secret in ("hunter2-pass", "bob:", "zz-secret-9"):
        assert secret not in result.stderr and secret not in result.stdout


def test_the_recorded_endpoint_carries_no_credentials(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    url = fake_openai.base_url.replace("http://", "http://bob:hunter2-pass@") + "?api-version=1&api-key=zz-secret-9"
    out = tmp_path / "o.jsonl"
    result = invoke(url, write_set(tmp_path / "s.jsonl", 1), out)
    assert result.exit_code == 0, result.stderr
    assert responses(out)[0]["endpoint"] == fake_openai.base_url + "?api-version=1&api-key=***"
    text = out.read_text("utf-8") + (tmp_path / "o.jsonl.journal").read_text("utf-8")
    assert "hunter2" not in text and "zz-secret-9" not in text


def test_a_server_without_streaming_is_used_without_it(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.refuse_stream = "stream=True is not supported"
    out = tmp_path / "o.jsonl"
    result = invoke(fake_openai.base_url, write_set(tmp_path / "s.jsonl", 4), out, "--concurrency", "1")
    assert result.exit_code == 0, result.stderr
    assert [r["content"] for r in responses(out)] == ["q0", "q1", "q2", "q3"]
    assert "note: the endpoint refused streaming" in result.stderr
    assert sum(not b.get("stream") for b in fake_openai.bodies) == 4  # each record once without streaming


def test_a_stop_without_a_key_says_none_was_sent(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    # LiteLLM with a master key answers a request without one 500 "Internal Server Error" (text/plain).
    fake_openai.rules.append(lambda body: Fault("500", message="Internal Server Error"))
    result = invoke(fake_openai.base_url, write_set(tmp_path / "s.jsonl", 20), tmp_path / "o.jsonl")
    assert result.exit_code == 1
    assert "no API key was sent: set $OPENAI_API_KEY if the endpoint needs one" in result.stderr
    assert fake_openai.requests <= 8 + 3
