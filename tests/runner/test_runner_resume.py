"""A record's own error never stops a resumed run for good (issue 18, item 3).

"The endpoint cannot serve" is decided from what the endpoint has shown: a journal holding its replies
proves it answered, so records that failed on their own before (a prompt longer than the model's
context, a parameter one model refuses) can fail again without stopping the run, and they are sent after
the fresh records. A key or model name refused now still stops a run within a handful of requests,
fresh or resumed. Through the ``run`` command and :func:`scoring.run_file`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI, Fault, last_user
from typer.testing import CliRunner

from formatkit.cli import app
from scoring import EndpointOptions, Limits, RetryPolicy, run_file
from scoring._errors import EndpointUnavailableError

CONTEXT = (
    "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens "
    "(8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion."
)
REFUSED_PARAM = "Unsupported parameter: 'logit_bias' is not supported with this model."
NO_DB = "No connected db."
WRONG_MODEL = "litellm.BadRequestError: Invalid model name passed in model=m. Call `/v1/models` to view models."


def write_set(path: Path, count: int, own_errors: set[int]) -> Path:
    lines = []
    for i in range(count):
        prompt = f"q{i} " + ("long " * 50 if i in own_errors else "")
        lines.append(json.dumps({"prompt": prompt.strip(), "answer": "a"}, ensure_ascii=False) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def run(server: FakeOpenAI, source: Path, out: Path, *extra: str) -> Any:
    args = ["run", str(source), "-o", str(out), "--base-url", server.base_url, "--model", "m"]
    args += ["--concurrency", "1", "--backoff-base", "0.001", "--max-retries", "0", *extra]
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)


def errors(out: Path) -> list[str | None]:
    return [json.loads(line)["messages"][-1]["responses"][0].get("error") for line in out.read_text().splitlines()]


@pytest.mark.parametrize("message", [CONTEXT, REFUSED_PARAM], ids=["longer than the context", "refused parameter"])
def test_records_failing_on_their_own_do_not_stop_the_resumed_run(
    fake_openai: FakeOpenAI, tmp_path: Path, message: str
) -> None:
    fake_openai.rules.append(lambda body: Fault("400", message=message) if "long" in last_user(body) else None)
    source = write_set(tmp_path / "set.jsonl", 10, own_errors={3, 5, 7})
    out = tmp_path / "out.jsonl"
    first = run(fake_openai, source, out, "--limit", "8")
    assert first.exit_code == 1, first.output  # three records' own errors: finished, not stopped
    assert "stopped" not in first.output
    assert fake_openai.requests == 8
    fake_openai.reset()
    for _ in range(2):  # the rerun, and the rerun of the rerun: never "cannot serve"
        result = run(fake_openai, source, out)
        assert result.exit_code == 1, result.output
        assert "cannot serve" not in result.output and "stopped" not in result.output
        assert [e is not None for e in errors(out)] == [i in (3, 5, 7) for i in range(10)]
    sent = [last_user(body).split()[0] for body in fake_openai.bodies]
    # fresh records first (8, 9), then the ones that failed before; the second rerun sends only those
    assert sent == ["q8", "q9", "q3", "q5", "q7", "q3", "q5", "q7"]
    if message == CONTEXT:
        assert "this record's own problem" in str(errors(out)[3])


def test_the_library_resumes_past_records_own_errors_too(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("400", message=CONTEXT) if "long" in last_user(body) else None)
    source = write_set(tmp_path / "set.jsonl", 6, own_errors={1, 2, 3})
    out = tmp_path / "out.jsonl"
    endpoint = EndpointOptions(
        fake_openai.base_url, "m", limits=Limits(concurrency=1), retry=RetryPolicy(max_retries=0)
    )
    summary = run_file(source, out, endpoint)
    assert summary.with_errors == 3
    for _ in range(2):
        summary = run_file(source, out, endpoint)
        assert summary.with_errors == 3 and summary.sent_records == 3


def test_a_fresh_run_starting_with_records_too_long_for_the_context_is_not_stopped(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.rules.append(lambda body: Fault("400", message=CONTEXT) if "long" in last_user(body) else None)
    source = write_set(tmp_path / "set.jsonl", 6, own_errors={0, 1, 2, 3})
    result = run(fake_openai, source, tmp_path / "out.jsonl")
    assert result.exit_code == 1 and "stopped" not in result.output, result.output
    assert [e is not None for e in errors(tmp_path / "out.jsonl")] == [True] * 4 + [False] * 2


@pytest.mark.parametrize("message", [NO_DB, WRONG_MODEL], ids=["key refused", "model refused"])
def test_a_key_or_model_refused_now_still_stops_a_resumed_run(
    fake_openai: FakeOpenAI, tmp_path: Path, message: str
) -> None:
    source = write_set(tmp_path / "set.jsonl", 20, own_errors=set())
    out = tmp_path / "out.jsonl"
    assert run(fake_openai, source, out, "--limit", "5").exit_code == 0
    fake_openai.reset()
    fake_openai.rules.append(lambda body: Fault("400", message=message))
    result = run(fake_openai, source, out, "--concurrency", "4")
    assert result.exit_code == 1
    assert "cannot serve" in result.output and message[:20] in result.output
    assert fake_openai.requests <= 4  # the first wave proves it: not 15 refused requests
    with pytest.raises(EndpointUnavailableError):
        run_file(
            source,
            out,
            EndpointOptions(fake_openai.base_url, "m", limits=Limits(concurrency=4), retry=RetryPolicy(max_retries=0)),
        )
