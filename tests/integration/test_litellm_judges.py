"""A judge panel against a real gateway (#27 items 1, 2, 6): LiteLLM's proxy on 127.0.0.1 serving scripted
judges — mock models that always give 2, always 1, always an off-scale 99, a route to a dead port (a judge
that never answers), and a route to the tests' fake server (a judge scripted per question).

Marked ``gateway`` (CI runs ``pytest -m gateway`` after ``pip install 'litellm[proxy]'``); skipped when the
proxy is not installed. One proxy serves the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fakeserver import FakeOpenAI, last_user
from litellm_proxy import free_port, gateway_marks, running_proxy
from typer.testing import CliRunner, Result

from formatkit.cli import app

pytestmark = gateway_marks

N = 6


def _mock(name: str, reply: str) -> str:
    params = f"{{model: openai/{name}, api_key: sk-unused, mock_response: '{reply}'}}"
    return f"  - model_name: {name}\n    litellm_params: {params}\n"


def _config(backend: str, dead_port: int) -> str:
    return (
        "model_list:\n"
        + _mock("judge-good", '{"analysis": "matches the reference", "score": 2}')
        + _mock("judge-half", '{"analysis": "only partly right", "score": 1}')
        + _mock("judge-offscale", '{"analysis": "perfect!!", "score": 99}')
        + "  - model_name: judge-dead\n"
        f'    litellm_params: {{model: openai/dead, api_key: sk-unused, api_base: "http://127.0.0.1:{dead_port}/v1"}}\n'
        "  - model_name: judge-cheap\n"
        f'    litellm_params: {{model: openai/cheap, api_key: sk-unused, api_base: "{backend}"}}\n'
        "litellm_settings:\n  telemetry: false\n  num_retries: 0\n  request_timeout: 30\n"
    )


class Gateway:
    def __init__(self, url: str, key: str, backend: FakeOpenAI) -> None:
        self.url, self.key, self.backend = url, key, backend


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    backend = FakeOpenAI().start()
    try:
        with running_proxy(_config(backend.base_url, free_port()), tmp_path_factory.mktemp("litellm")) as (url, key):
            yield Gateway(url, key, backend)
    finally:
        backend.stop()


@pytest.fixture
def scored_set(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    lines = []
    for i in range(N):
        question = f"hard question {i}" if i % 3 == 0 else f"question {i}"
        record = {
            "session_id": i,
            "messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "reference_response": f"answer {i}", "responses": [{"content": f"answer {i}"}]},
            ],
            "meta": {"dataset": "judged"},
        }
        lines.append(orjson.dumps(record))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def score(gateway: Gateway, src: Path, *extra: str) -> tuple[Result, list[dict[str, Any]]]:
    out = src.with_name("scored.jsonl")
    args = ["score", str(src), "-o", str(out), "--metric", "judge", "--json", "--timeout", "30"]
    args += ["--judge-base-url", gateway.url, "--judge-api-key-env", "FK_GATEWAY_KEY", "--max-retries", "0"]
    result = CliRunner(env={"FK_GATEWAY_KEY": gateway.key}).invoke(app, [*args, *extra])
    responses = []
    if out.exists():
        responses = [orjson.loads(line)["messages"][-1]["responses"][0] for line in out.read_bytes().splitlines()]
    return result, responses


def test_two_judges_one_off_scale(gateway: Gateway, scored_set: Path) -> None:
    """The off-scale judge's 99 is void (never clamped to full marks): with --judge-min-valid 2 every
    panel verdict is void; its void rate is 100 %; repeats are bought apart and agree with themselves."""
    panel = ["--judge-model", "judge-good", "--judge-model", "judge-offscale", "--judge-repeats", "2"]
    result, responses = score(gateway, scored_set, *panel, "--judge-min-valid", "2")
    assert result.exit_code == 1, result.output  # nothing could be scored: every verdict void
    assert [r["score"] for r in responses] == [None] * N
    assert all("2 required" in r["unsettled_reason"] for r in responses)
    result, responses = score(gateway, scored_set, *panel)
    assert result.exit_code == 0, result.output
    summary = orjson.loads(result.stdout)
    assert [r["score"] for r in responses] == [2.0] * N
    entry = {e["model"]: e for e in responses[0]["judge"]["panel"]}
    assert entry["judge-offscale"]["status"] == "unparseable" and entry["judge-offscale"]["score"] is None
    assert "99 is off the 0-2 scale" in entry["judge-offscale"]["rationale"]
    figures = summary["datasets"]["judged"]["panel"]
    assert figures["by_judge"]["judge-offscale"]["void_rate"] == 1.0
    assert figures["by_judge"]["judge-good"] == {
        "asked": N,
        "valid": N,
        "void": 0,
        "failed": 0,
        "void_rate": 0.0,
        "self_consistency": 1.0,
        "flip_rate": None,
    }
    # the first run's verdicts were journaled (each judge x repeat its own entry): none bought again
    assert summary["judge"]["judge_requests"] == 0 and summary["judge"]["judge_reused"] == 2 * 2 * N


def test_three_judges_one_never_answers(gateway: Gateway, scored_set: Path, tmp_path: Path) -> None:
    """A panel file; the judge behind a dead port never answers: its verdicts fail, the panel goes on with
    the two that serve (median of 2 and 1), and the report says how far those two agree."""
    panel = tmp_path / "panel.jsonl"
    lines = [
        {"model": m, "base_url": gateway.url, "api_key_env": "FK_GATEWAY_KEY"} for m in ("judge-good", "judge-half")
    ]
    lines.append({"model": "judge-dead"})  # the run's --judge-base-url and key
    panel.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    result, responses = score(gateway, scored_set, "--judge-panel", str(panel), "--judge-aggregate", "median")
    assert result.exit_code == 0, result.output
    assert [r["score"] for r in responses] == [1.5] * N
    summary = orjson.loads(result.stdout)
    figures = summary["judge"]["panel"]
    assert figures["by_judge"]["judge-dead"]["failed"] == N and figures["by_judge"]["judge-dead"]["valid"] == 0
    assert len(figures["down"]) == 1  # one judge's endpoint proved down; the run went on
    agreement = figures["agreement"]
    assert agreement["items"] == N and agreement["alpha"] is not None and agreement["alpha"] < 0  # always 1 apart
    report = CliRunner().invoke(app, ["report", str(scored_set.with_name("scored.jsonl"))])
    assert "judge panel of 3 (median): agreement Krippendorff's alpha (interval)" in report.stdout
    assert "judge-dead: 0 of 6 verdict(s) valid, void rate 0.0%, 6 request(s) failed" in report.stdout


def test_escalation_asks_the_strong_judge_only_where_the_cheap_one_is_void(
    gateway: Gateway, scored_set: Path, tmp_path: Path
) -> None:
    backend = gateway.backend
    backend.reset()
    backend.responder = lambda body: (
        "I cannot decide." if "hard question" in last_user(body) else '{"analysis": "right", "score": 2}'
    )
    panel = tmp_path / "panel.jsonl"
    lines = [
        {"model": m, "base_url": gateway.url, "api_key_env": "FK_GATEWAY_KEY"} for m in ("judge-cheap", "judge-half")
    ]
    panel.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    result, responses = score(gateway, scored_set, "--judge-panel", str(panel), "--judge-escalate")
    assert result.exit_code == 0, result.output
    hard = [i for i in range(N) if i % 3 == 0]
    assert [r["score"] for r in responses] == [1.0 if i in hard else 2.0 for i in range(N)]
    assert [len(r["judge"]["panel"]) for r in responses] == [2 if i in hard else 1 for i in range(N)]
    summary = orjson.loads(result.stdout)
    figures = summary["judge"]["panel"]
    assert figures["escalated"] == {"responses": len(hard), "void": len(hard)}
    assert figures["avoided"] == N - len(hard)
    assert backend.requests == N and summary["judge"]["judge_requests"] == N + len(hard)
    assert summary["datasets"]["judged"]["panel"]["escalated"]["responses"] == len(hard)
