"""A judge endpoint that cannot serve stops the judging within a handful of requests, with the cause.

The messages are what LiteLLM's proxy answers (issue 13): a wrong model name, a key with no database
behind it, a dead backend; played by the tests' fake server with its fault injection.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeOpenAI, Fault, last_user
from typer.testing import CliRunner

from formatkit import RecordDict
from formatkit.cli import app
from scoring._errors import JudgeUnavailableError
from scoring._judges import judge_records
from scoring._judges.options import JudgeOptions

WRONG_MODEL = (
    "litellm.BadRequestError: Invalid model name passed in model=judge-x. "
    "Call `/v1/models` to view available models for your key."
)
NO_DB = "No connected db."
DEAD_BACKEND = "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error."
CONCURRENCY = 2
#: The client's proof that an endpoint cannot serve: this many first requests failing alike.
SAME_FAILURES = 3
RECORDS = 20


def _records(n: int = RECORDS) -> list[RecordDict]:
    return [
        {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"question {i}"},
                {"role": "assistant", "reference_response": "a", "responses": [{"content": f"answer {i}"}]},
            ],
        }
        for i in range(n)
    ]


def _options(server: FakeOpenAI, tmp_path: Path) -> JudgeOptions:
    return JudgeOptions(
        judge_base_url=server.base_url,
        judge_model="judge-x",
        concurrency=CONCURRENCY,
        max_retries=0,
        journal_path=tmp_path / "judge.journal",
    )


STOPS: list[tuple[str, str, str, str, str]] = [
    ("wrong model, 400", "400", WRONG_MODEL, "judge", "--judge-model"),
    ("wrong model, pairwise", "400", WRONG_MODEL, "pairwise", "--judge-model"),
    ("wrong model, math judge", "400", WRONG_MODEL, "math-judge", "--judge-model"),
    ("key without a database, 400", "400", NO_DB, "judge", "API key"),
    ("wrong model, 422", "422", "model 'judge-x' not found", "judge", "--judge-model"),
    ("dead backend behind the gateway, 500", "500", DEAD_BACKEND, "judge", "backend"),
]


@pytest.mark.parametrize(("status", "message", "metric", "hint"), [s[1:] for s in STOPS], ids=[s[0] for s in STOPS])
def test_an_endpoint_failing_every_request_alike_stops_the_judges(
    fake_openai: FakeOpenAI, tmp_path: Path, status: str, message: str, metric: str, hint: str
) -> None:
    fake_openai.rules.append(lambda body: Fault(status, message=message))
    records = _records()
    if metric == "math-judge":
        for record in records:
            record["meta"] = {"question_type": "calculation"}
    with pytest.raises(JudgeUnavailableError) as info:
        judge_records(records, metric=metric, options=_options(fake_openai, tmp_path))
    error = info.value
    assert error.status == int(status)
    assert message in str(error) and hint in error.hint
    assert error.bought == 0
    # a handful, whatever the interleaving: the first pair in flight fails, then (nothing has succeeded
    # and a failure may prove the endpoint down) one request at a time until the proof is complete
    # (a 500 may be the streaming path's alone: one plain request is tried before stopping)
    assert fake_openai.requests == max(SAME_FAILURES, CONCURRENCY) + (status == "500")


def test_a_backend_that_dies_midway_stops_the_judges(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.responder = lambda body: '{"analysis": "ok", "score": 2}'
    fake_openai.rules.append(lambda body: Fault("500", message=DEAD_BACKEND) if fake_openai.requests > 2 else None)
    options = dataclasses.replace(_options(fake_openai, tmp_path), concurrency=1)
    with pytest.raises(JudgeUnavailableError) as info:
        judge_records(_records(), metric="judge", options=options)
    # once it has served, the endpoint is proven down by SAME_FAILURES endpoint-wide failures in a row
    assert info.value.bought == 2 and fake_openai.requests == 2 + SAME_FAILURES
    assert "cannot reach the model behind it" in info.value.hint


KEEPS: list[tuple[str, Any, int]] = [
    # (what, rule for request number n (1-based) -> Fault or None, responses left without a score)
    (
        "the endpoint served first: later identical 400s are those records' errors",
        lambda n, body: Fault("400", message=WRONG_MODEL) if n > 1 else None,
        RECORDS - 1,
    ),
    (
        "different 400s are each record's own",
        # worded differently for each record (the client compares messages with their digits ignored)
        lambda n, body: Fault("400", message=f"refused: {'abcdefghijklmnopqrst'[len(last_user(body)) % 20]}-form"),
        RECORDS,
    ),
    ("one record's 500 without a backend message", lambda n, body: Fault("500") if n == 1 else None, 1),
]


@pytest.mark.parametrize(("rule", "unscored"), [k[1:] for k in KEEPS], ids=[k[0] for k in KEEPS])
def test_failures_that_do_not_prove_the_endpoint_down_stay_record_errors(
    fake_openai: FakeOpenAI, tmp_path: Path, rule: Any, unscored: int
) -> None:
    fake_openai.responder = lambda body: '{"analysis": "ok", "score": 2}'
    seen = {"n": 0}

    def counted(body: dict[str, Any]) -> Fault | None:
        seen["n"] += 1
        result: Fault | None = rule(seen["n"], body)
        return result

    fake_openai.rules.append(counted)
    records = _records()
    for i, record in enumerate(records):  # prompts of different lengths
        record["messages"][0]["content"] += " x" * i
    options = dataclasses.replace(_options(fake_openai, tmp_path), concurrency=1)
    outcome = judge_records(records, metric="judge", options=options)
    scores = [r["messages"][-1]["responses"][0]["score"] for r in outcome.records]
    assert scores.count(None) == unscored
    assert outcome.summary["request_failed"] == unscored


def test_the_cli_says_why_it_stopped_and_writes_nothing(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.rules.append(lambda body: Fault("400", message=WRONG_MODEL))
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(source),
            "-o",
            str(out),
            "--metric",
            "judge",
            "--judge-base-url",
            fake_openai.base_url,
            "--judge-model",
            "judge-x",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 1
    assert "Invalid model name" in result.output and "--judge-model" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()
    # The first wave of requests (--concurrency 8) proves it; none is sent after the first failure until
    # those in flight have settled, so the count does not depend on how the replies interleave (it was
    # 8, 9 or 10 when a slot freed by an early failure started a new request before the proof was in).
    assert fake_openai.requests == 8
