"""Options as objects (#26): the client takes ``Limits``, ``RetryPolicy`` and ``Dialect``; ``run_file``,
``score_file`` and ``evaluate`` take ``RunOptions``, ``ScoreOptions`` and ``EvalOptions`` (each field also a
keyword of its own); the same objects travel down the stack (tests/test_architecture.py holds the parameter count)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app
from scoring import (
    Dialect,
    EndpointOptions,
    EvalOptions,
    Limits,
    RetryPolicy,
    RunOptions,
    ScoreOptions,
    run_file,
    score_file,
)
from scoring._pipeline.options import EvalFields, ScoreFields
from scoring._runner.options import RunFields
from scoring._runner.run_file import plan_file

ROOT = Path(__file__).parents[1]
ANSWERED = ROOT / "fixtures" / "responses" / "gsm8k.jsonl"


def _set(tmp_path: Path, count: int = 5) -> Path:
    path = tmp_path / "set.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            handle.write(json.dumps({"prompt": f"{i}+1=？", "answer": str(i + 1)}, ensure_ascii=False) + "\n")
    return path


@pytest.mark.parametrize(
    ("options", "keywords"), [(RunOptions, RunFields), (ScoreOptions, ScoreFields), (EvalOptions, EvalFields)]
)
def test_every_field_is_a_keyword_of_the_same_type(options: type[Any], keywords: type[Any]) -> None:
    """The keywords the calls take (typed for mypy) are the options' fields, name for name, type for type."""
    assert get_type_hints(options) == get_type_hints(keywords)
    assert [f.name for f in dataclasses.fields(options)] == list(get_type_hints(keywords))


def test_the_client_gets_the_endpoints_objects_themselves() -> None:
    endpoint = EndpointOptions(
        "http://127.0.0.1:9/v1",
        "m",
        api_key="sk-x",
        limits=Limits(concurrency=3, timeout=5.0),
        retry=RetryPolicy(max_retries=1),
        dialect=Dialect(stream=False, drop_params=("seed",)),
    )
    client = endpoint.client()
    try:
        assert client.limits is endpoint.limits and client.retry is endpoint.retry
        assert client.dialect is endpoint.dialect
        assert (client.concurrency, client.timeout, client.stream) == (3, 5.0, False)
        assert client.request_body([], {"seed": 1, "temperature": 0}) == {
            "model": "m",
            "messages": [],
            "temperature": 0,
        }
    finally:
        asyncio.run(client.aclose())


def test_options_are_frozen_and_checked() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits().concurrency = 2  # type: ignore[misc]
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        Limits(concurrency=0)
    with pytest.raises(ValueError, match="max_retries must be 0 or more"):
        RetryPolicy(max_retries=-1)


def test_run_options_as_an_object_and_as_keywords(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    endpoint = EndpointOptions(fake_openai.base_url, "m", api_key_env=None)
    source = _set(tmp_path)
    options = RunOptions(defaults={"seed": 7}, limit=2)
    assert run_file(source, tmp_path / "a.jsonl", endpoint, options).records == 2
    assert fake_openai.bodies[-1]["seed"] == 7
    # a keyword wins over the object's field; the rest of the object holds
    summary = run_file(source, tmp_path / "b.jsonl", endpoint, options, limit=3, run_record=False)
    assert summary.records == 3 and not (tmp_path / "b.jsonl.run.json").exists()
    assert summary.run_record is not None and summary.run_record["parameters"] == {"seed": 7}
    assert plan_file(source, tmp_path / "c.jsonl", endpoint, options).records == 2
    assert options == RunOptions(defaults={"seed": 7}, limit=2)  # not changed by the calls


def test_score_options_as_an_object_and_as_keywords(tmp_path: Path) -> None:
    by_object = score_file(ANSWERED, tmp_path / "a.jsonl", ScoreOptions(metric="math", math_timeout=1.0))
    by_keyword = score_file(ANSWERED, tmp_path / "b.jsonl", metric="math", math_timeout=1.0)
    assert {n: c.metric for n, c in by_object.metrics.items()} == {"gsm8k": "math"}
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert by_object.aggregate.to_dict() == by_keyword.aggregate.to_dict()


def test_run_records_the_endpoint_the_cli_built(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """Every endpoint option on the command line reaches the objects, and the run record, as given."""
    out = tmp_path / "out.jsonl"
    args = ["run", str(_set(tmp_path)), "-o", str(out), "--base-url", fake_openai.base_url, "--model", "m",
            "--concurrency", "3", "--rpm", "6000", "--timeout", "7", "--max-time", "30", "--max-retries", "1",
            "--no-stream", "--header", "X-Tenant=t1", "--rename-param", "max_tokens=max_completion_tokens",
            "--drop-param", "seed", "--param", "max_tokens=8", "--param", "seed=1"]  # fmt: skip
    result = CliRunner(env={"OPENAI_API_KEY": "sk-test"}).invoke(app, args)
    assert result.exit_code == 0, result.output
    record = json.loads(Path(f"{out}.run.json").read_text(encoding="utf-8"))
    assert record["endpoint"] == {
        "base_url": fake_openai.base_url,
        "model": "m",
        "stream": False,
        "concurrency": 3,
        "rpm": 6000.0,
        "timeout": 7.0,
        "max_time": 30.0,
        "max_retries": 1,
        "headers": ["X-Tenant"],
        "rename_params": {"max_tokens": "max_completion_tokens"},
        "drop_params": ["seed"],
        "api_key_sent": True,
    }
    body = fake_openai.bodies[0]
    assert body["max_completion_tokens"] == 8 and "seed" not in body and "stream" not in body
    assert fake_openai.headers[0]["x-tenant"] == "t1"
