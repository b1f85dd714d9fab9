"""``formatkit run`` through typer's CliRunner against the fake server: outputs, resume, exit codes, secrecy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeclock import FakeClock
from fakeserver import FakeOpenAI, Fault, last_user
from typer.testing import CliRunner, Result

from formatkit.cli import app
from scoring._client.http import ChatClient

KEY = "sk-live-9f8e7d6c5b4a39281706SECRET"


def write_set(path: Path, count: int, params: dict[str, Any] | None = None) -> Path:
    lines = []
    for i in range(count):
        line: dict[str, Any] = {"system": "请完成下面的计算题", "prompt": f"q{i}", "answer": str(i)}
        if params:
            line["parameters"] = params
        lines.append(orjson.dumps(line))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def invoke(server: FakeOpenAI | str, src: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> Result:
    url = server if isinstance(server, str) else server.base_url
    args = [
        "run",
        str(src),
        "-o",
        str(out),
        "--base-url",
        url,
        "--model",
        "fake-model",
        "--backoff-base",
        "0.001",
        "--max-retries",
        "2",
        "--timeout",
        "2",
        *extra,
    ]
    return CliRunner(env={"OPENAI_API_KEY": "", **(env or {})}).invoke(app, args)


def contents(out: Path) -> list[str | None]:
    return [r["messages"][-1]["responses"][0].get("content") for r in read_jsonl(out)]


def test_run_fills_every_record_once_in_order(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.delay = 0.005
    src = write_set(tmp_path / "set.jsonl", 25)
    out = tmp_path / "out.jsonl"
    result = invoke(fake_openai, src, out, "--concurrency", "4")
    assert result.exit_code == 0, result.output
    records = read_jsonl(out)
    assert [r["session_id"] for r in records] == list(range(25))
    assert contents(out) == [f"q{i}" for i in range(25)]
    assert fake_openai.requests == 25
    assert fake_openai.max_in_flight <= 4
    assert "25 finished, 0 with errors" in result.stderr
    assert "tokens: prompt" in result.stderr
    assert (tmp_path / "out.jsonl.journal").exists()
    # Chinese is written as is.
    assert "请完成下面的计算题".encode() in out.read_bytes()


def test_rerunning_a_finished_run_sends_nothing(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 5)
    out = tmp_path / "out.jsonl"
    assert invoke(fake_openai, src, out).exit_code == 0
    first = out.read_bytes()
    result = invoke(fake_openai, src, out)
    assert result.exit_code == 0
    assert fake_openai.requests == 5
    assert out.read_bytes() == first
    assert "5 taken from the journal" in result.stderr


def test_restart_discards_the_journal(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 3)
    out = tmp_path / "out.jsonl"
    invoke(fake_openai, src, out)
    assert invoke(fake_openai, src, out, "--restart").exit_code == 0
    assert fake_openai.requests == 6


def test_errors_exit_1_and_a_rerun_retries_only_them(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 6)
    out = tmp_path / "out.jsonl"
    fake_openai.rules.append(
        lambda body: Fault("400", message="prompt rejected") if last_user(body) in {"q1", "q4"} else None
    )
    result = invoke(fake_openai, src, out)
    assert result.exit_code == 1
    assert "4 finished, 2 with errors" in result.stderr
    assert "errors by kind: http_400 2" in result.stderr
    records = read_jsonl(out)
    assert records[1]["messages"][-1]["responses"][0]["error"] == "http_400: prompt rejected"
    assert contents(out) == ["q0", None, "q2", "q3", None, "q5"]

    fake_openai.rules.clear()
    fake_openai.reset()
    result = invoke(fake_openai, src, out)
    assert result.exit_code == 0, result.stderr
    assert sorted(last_user(b) for b in fake_openai.bodies) == ["q1", "q4"]
    assert contents(out) == [f"q{i}" for i in range(6)]
    assert b'"error"' not in out.read_bytes()


def test_parameters_from_the_command_line_lose_to_the_set(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 1, params={"temperature": 1.0, "max_tokens": 4096})
    out = tmp_path / "out.jsonl"
    result = invoke(
        fake_openai,
        src,
        out,
        "--param",
        "temperature=0",
        "--param",
        "top_k=20",
        "--param",
        'stop=["</s>"]',
        "--param",
        "note=plain text",
    )
    assert result.exit_code == 0, result.output
    body = fake_openai.bodies[0]
    assert body["temperature"] == 1.0 and body["max_tokens"] == 4096
    assert body["top_k"] == 20 and body["stop"] == ["</s>"] and body["note"] == "plain text"


def test_multi_turn_and_samples_through_the_cli(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    record = {
        "session_id": "s1",
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "responses": [{"parameters": {}}]},
            {"role": "user", "content": "second"},
            {
                "role": "assistant",
                "reference_response": "x",
                "responses": [{"parameters": {"n": 2}}, {"parameters": {"n": 2}}],
            },
        ],
    }
    src = tmp_path / "canonical.jsonl"
    src.write_bytes(orjson.dumps(record) + b"\n")
    out = tmp_path / "out.jsonl"
    fake_openai.responder = lambda body: f"re: {last_user(body)} after {len(body['messages'])} messages"
    result = invoke(fake_openai, src, out)
    assert result.exit_code == 0, result.output
    [done] = read_jsonl(out)
    assert done["messages"][1]["content"] == "re: first after 1 messages"
    assert [r["content"] for r in done["messages"][3]["responses"]] == ["re: second after 3 messages"] * 2
    assert fake_openai.requests == 3


def test_dry_run_prints_the_first_body_and_the_count(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 4, params={"temperature": 0.3, "top_logprobs": 5, "logprobs": False})
    out = tmp_path / "out.jsonl"
    result = invoke(fake_openai, src, out, "--dry-run", "--param", "seed=1")
    assert result.exit_code == 0
    body = orjson.loads(result.stdout)
    messages = [{"role": "system", "content": "请完成下面的计算题"}, {"role": "user", "content": "q0"}]
    assert body == {
        "model": "fake-model",
        "messages": messages,
        "seed": 1,
        "temperature": 0.3,
        "logprobs": False,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert "would send 4 request(s) for 4 record(s)" in result.stderr
    assert fake_openai.requests == 0
    assert not out.exists() and not (tmp_path / "out.jsonl.journal").exists()


def test_dry_run_counts_only_what_is_left(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 4)
    out = tmp_path / "out.jsonl"
    fake_openai.rules.append(lambda body: Fault("400") if last_user(body) == "q2" else None)
    invoke(fake_openai, src, out)
    result = invoke(fake_openai, src, out, "--dry-run")
    assert "would send 1 request(s) for 1 record(s) (3 of 4 already finished" in result.stderr
    assert orjson.loads(result.stdout)["messages"][-1]["content"] == "q2"


def test_the_key_is_never_written_anywhere(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 3)
    out = tmp_path / "out.jsonl"
    fake_openai.rules.append(
        lambda body: Fault("401", message=f"Incorrect API key provided: {KEY}") if last_user(body) == "q1" else None
    )
    result = invoke(fake_openai, src, out, "--api-key-env", "FK_TEST_KEY", env={"FK_TEST_KEY": KEY})
    assert result.exit_code == 1
    assert fake_openai.auth_headers[0] == f"Bearer {KEY}"
    for text in (
        result.stdout,
        result.stderr,
        out.read_text("utf-8"),
        (tmp_path / "out.jsonl.journal").read_text("utf-8"),
    ):
        assert KEY not in text and KEY[:8] not in text and KEY[-6:] not in text
    assert "http_401: Incorrect API key provided: ***" in out.read_text("utf-8")


def test_no_key_is_fine_for_local_servers(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    result = invoke(fake_openai, write_set(tmp_path / "set.jsonl", 1), tmp_path / "out.jsonl")
    assert result.exit_code == 0
    assert fake_openai.auth_headers == [None]


def test_endpoint_down_stops_the_run_keeping_what_finished(tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 10)
    out = tmp_path / "out.jsonl"
    server = FakeOpenAI().start()
    port = server.port

    def down_after_four(body: dict[str, Any]) -> Fault | None:
        if server.requests > 4:
            server.go_down()
            return Fault("close")
        return None

    server.rules.append(down_after_four)
    try:
        result = invoke(server, src, out, "--concurrency", "1", "--unavailable-after", "2")
    finally:
        server.stop()
    assert result.exit_code == 1
    assert "stopped: endpoint" in result.stderr and "cannot serve" in result.stderr
    # q0-q3 finished; q4 ran out of retries on refused connections (journaled as an error, so it is
    # retried later); the next refusal in a row stopped the run.
    assert "4 record(s) finished in this run are kept in" in result.stderr
    assert "(1 more ended in error and will be retried)" in result.stderr
    assert "check that the server is running and that the base URL is right (--base-url" in result.stderr
    assert not out.exists()
    lines = (tmp_path / "out.jsonl.journal").read_bytes().splitlines()
    assert [orjson.loads(line)["entry"]["status"] for line in lines] == ["ok"] * 4 + ["error"]

    again = FakeOpenAI().start(port)
    try:
        result = invoke(again, src, out)
        assert result.exit_code == 0, result.stderr
        assert sorted(last_user(b) for b in again.bodies) == [f"q{i}" for i in range(4, 10)]
    finally:
        again.stop()
    assert contents(out) == [f"q{i}" for i in range(10)]


def test_a_changed_record_is_not_resumed_from_a_stale_answer(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 3)
    out = tmp_path / "out.jsonl"
    invoke(fake_openai, src, out)
    lines = src.read_bytes().splitlines()
    lines[1] = lines[1].replace(b'"q1"', b'"q1 changed"')
    src.write_bytes(b"\n".join(lines) + b"\n")
    fake_openai.reset()
    result = invoke(fake_openai, src, out)
    assert result.exit_code == 0
    assert [last_user(b) for b in fake_openai.bodies] == ["q1 changed"]
    assert contents(out) == ["q0", "q1 changed", "q2"]
    assert "1 journal entries did not match" in result.stderr


def test_another_model_does_not_reuse_the_journal(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = write_set(tmp_path / "set.jsonl", 2)
    out = tmp_path / "out.jsonl"
    invoke(fake_openai, src, out)
    invoke(fake_openai, src, out, "--param", "temperature=0")
    assert fake_openai.requests == 4


def test_plain_progress_lines_when_not_a_terminal(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    result = invoke(
        fake_openai, write_set(tmp_path / "set.jsonl", 3), tmp_path / "out.jsonl", "--progress-interval", "0"
    )
    assert "run: 1/3 records (33.3%)" in result.stderr
    assert "run: 3/3 records (100.0%)" in result.stderr


def test_invalid_input_exits_1_and_sends_nothing(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text('{"prompt": "q", "answer": "a", "temprature": 1}\n', encoding="utf-8")
    result = invoke(fake_openai, src, tmp_path / "out.jsonl")
    assert result.exit_code == 1
    assert "temprature" in result.stderr
    assert fake_openai.requests == 0


def test_mode_option_reaches_validation(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = tmp_path / "noref.jsonl"
    src.write_text('{"prompt": "q"}\n', encoding="utf-8")
    assert invoke(fake_openai, src, tmp_path / "a.jsonl").exit_code == 1
    result = invoke(fake_openai, src, tmp_path / "b.jsonl", "--mode", "infer-only")
    assert result.exit_code == 0, result.stderr
    assert contents(tmp_path / "b.jsonl") == ["q"]


@pytest.mark.parametrize(
    "extra",
    [
        ("--param", "temperature"),
        ("--param", "=1"),
        ("--concurrency", "0"),
        ("--base-url", "127.0.0.1:8000"),
        ("--param", "temperature=5"),
        ("--param", "n=0"),
        ("--param", "n=17"),
        ("--param", "max_tokens=lots"),
        ("--param", "logprobs=yes"),
    ],
)
def test_bad_usage_exits_2(fake_openai: FakeOpenAI, tmp_path: Path, extra: tuple[str, ...]) -> None:
    src = write_set(tmp_path / "set.jsonl", 1)
    assert invoke(fake_openai, src, tmp_path / "out.jsonl", *extra).exit_code == 2
    assert fake_openai.requests == 0


def test_missing_input_and_out_equal_to_in_exit_2(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    assert invoke(fake_openai, tmp_path / "nope.jsonl", tmp_path / "out.jsonl").exit_code == 2
    src = write_set(tmp_path / "set.jsonl", 1)
    assert invoke(fake_openai, src, src).exit_code == 2


FIXTURES = Path(__file__).parents[2] / "fixtures" / "valid"


def test_excel_multi_turn_input_generates_the_empty_turn_first(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = FIXTURES / "excel_multi_turn.xlsx"
    out = tmp_path / "out.jsonl"
    result = invoke(fake_openai, src, out)
    assert result.exit_code == 0, result.stderr
    records = read_jsonl(out)
    first = records[0]["messages"]
    generated = [m for m in first[:-1] if m["role"] == "assistant" and "responses" in m]
    assert generated and all(m["content"] == m["responses"][0]["content"] for m in generated)
    assert all(r["messages"][-1]["responses"][0].get("content") for r in records)
    # Each request carries the generated text as history of the next turn.
    for body in fake_openai.bodies:
        assert all(isinstance(m["content"], str) for m in body["messages"])


def test_default_concurrency_is_8_and_never_exceeded(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.delay = 0.05
    result = invoke(fake_openai, write_set(tmp_path / "set.jsonl", 40), tmp_path / "out.jsonl")
    assert result.exit_code == 0, result.stderr
    assert fake_openai.max_in_flight == 8


def test_param_n_gives_n_samples_unless_the_set_says_otherwise(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    src = tmp_path / "set.jsonl"
    src.write_bytes(
        orjson.dumps({"prompt": "q0", "answer": "a"})
        + b"\n"
        + orjson.dumps({"prompt": "q1", "answer": "a", "parameters": {"n": 2, "seed": 5}})
        + b"\n"
    )
    out = tmp_path / "out.jsonl"
    result = invoke(fake_openai, src, out, "--param", "n=3", "--param", "seed=100")
    assert result.exit_code == 0, result.stderr
    first, second = read_jsonl(out)
    assert [r["content"] for r in first["messages"][-1]["responses"]] == ["q0"] * 3
    assert [r["parameters"] for r in first["messages"][-1]["responses"]] == [{}] * 3
    assert [r["content"] for r in second["messages"][-1]["responses"]] == ["q1"] * 2
    assert sorted(b["seed"] for b in fake_openai.bodies) == [5, 6, 100, 101, 102]
    assert all("n" not in b for b in fake_openai.bodies)
    assert "5 requests for 2 records" in result.stderr
    # Resumed as it is: nothing is sent again and no sample is added.
    again = invoke(fake_openai, src, out, "--param", "n=3", "--param", "seed=100")
    assert again.exit_code == 0 and fake_openai.requests == 5
    assert [len(r["messages"][-1]["responses"]) for r in read_jsonl(out)] == [3, 2]


def test_dry_run_counts_the_samples_of_param_n(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    result = invoke(
        fake_openai, write_set(tmp_path / "set.jsonl", 4), tmp_path / "out.jsonl", "--dry-run", "--param", "n=2"
    )
    assert "would send 8 request(s) for 4 record(s)" in result.stderr
    assert "n" not in orjson.loads(result.stdout)


def test_a_rejected_key_stops_the_run_and_is_never_shown(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.api_key = "sk-live-the-right-key-00000000000"
    src = write_set(tmp_path / "set.jsonl", 30)
    out = tmp_path / "out.jsonl"
    result = invoke(
        fake_openai, src, out, "--api-key-env", "FK_TEST_KEY", "--concurrency", "1", env={"FK_TEST_KEY": KEY}
    )
    assert result.exit_code == 1
    assert fake_openai.requests == 3  # not 30: the third refusal in a row stops the run
    assert "stopped: endpoint" in result.stderr and "refused with HTTP 401" in result.stderr
    assert "check the API key in $FK_TEST_KEY." in result.stderr
    assert "0 record(s) finished in this run are kept" in result.stderr
    assert "(2 more ended in error and will be retried)" in result.stderr
    journal = tmp_path / "out.jsonl.journal"
    for text in (result.stdout, result.stderr, journal.read_text("utf-8")):
        assert KEY not in text and KEY[:8] not in text and KEY[-4:] not in text
    assert not out.exists()

    fake_openai.reset()
    result = invoke(
        fake_openai, src, out, "--api-key-env", "FK_TEST_KEY", env={"FK_TEST_KEY": "sk-live-the-right-key-00000000000"}
    )
    assert result.exit_code == 0, result.stderr
    assert fake_openai.requests == 30
    assert contents(out) == [f"q{i}" for i in range(30)]


def test_an_unknown_model_stops_the_run_with_a_hint(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("404", message=f"The model `{body['model']}` does not exist"))
    result = invoke(fake_openai, write_set(tmp_path / "set.jsonl", 20), tmp_path / "out.jsonl")
    assert result.exit_code == 1
    assert fake_openai.requests <= 8 + 3
    assert "The model `fake-model` does not exist" in result.stderr
    assert "check the model name (GET /v1/models on the server lists the names it knows)" in result.stderr
    assert "--model fake-model" in result.stderr


def test_an_unset_key_variable_named_on_purpose_is_a_warning(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    result = invoke(
        fake_openai,
        write_set(tmp_path / "set.jsonl", 1),
        tmp_path / "out.jsonl",
        "--api-key-env",
        "FK_NOT_SET_ANYWHERE",
    )
    assert result.exit_code == 0
    assert "--api-key-env FK_NOT_SET_ANYWHERE: that variable is not set" in result.stderr
    assert fake_openai.auth_headers == [None]
    quiet = invoke(fake_openai, write_set(tmp_path / "set2.jsonl", 1), tmp_path / "out2.jsonl")
    assert "warning" not in quiet.stderr  # the default variable unset: a local server with no key


def test_the_summary_counts_retries_apart(
    fake_openai: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ChatClient, "clock", FakeClock())  # the 429's backoff (1-2 s) counted, not slept
    fake_openai.inject([Fault("429", retry_after=0), Fault("500"), Fault("truncated")])
    result = invoke(
        fake_openai,
        write_set(tmp_path / "set.jsonl", 4),
        tmp_path / "out.jsonl",
        "--concurrency",
        "1",
        "--max-retries",
        "3",
    )
    assert result.exit_code == 0, result.stderr
    assert "4 requests for 4 records (7 HTTP attempts with the retries)" in result.stderr


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (Fault("slow", delay=1.0), "timeout"),
        (Fault("stall", delay=1.0), "timeout"),
        (Fault("close"), "connection"),
        (Fault("truncated"), "malformed"),
        (Fault("500"), "http_500"),
        (Fault("429", retry_after=0), "http_429"),
    ],
    ids=lambda v: v.kind if isinstance(v, Fault) else v,
)
def test_every_fault_exhausted_is_the_records_error_by_kind(
    fake_openai: FakeOpenAI, tmp_path: Path, fault: Fault, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ChatClient, "clock", FakeClock())  # the 429's backoff (1-2 s) counted, not slept
    fake_openai.rules.append(lambda body: fault if last_user(body) == "q1" else None)
    out = tmp_path / "out.jsonl"
    result = invoke(
        fake_openai,
        write_set(tmp_path / "set.jsonl", 3),
        out,
        "--timeout",
        "0.3",
        "--max-retries",
        "1",
        "--rate-limit-window",
        "0",
        "--concurrency",
        "1",
    )
    assert result.exit_code == 1
    assert f"errors by kind: {kind} 1" in result.stderr
    error = read_jsonl(out)[1]["messages"][-1]["responses"][0]["error"]
    assert error.startswith(f"{kind}: ") and "gave up after 2 attempt" in error
    assert contents(out) == ["q0", None, "q2"]
