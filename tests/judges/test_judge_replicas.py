"""``--judge-base-url`` repeated (issue #30 item 1): the judge's requests spread over its replicas through
the same endpoint pool as a run's; a judge replica that cannot serve is dropped, the others judge all."""

from __future__ import annotations

import json
from pathlib import Path

from fakeserver import FakeOpenAI
from typer.testing import CliRunner

from formatkit.cli import app

VERDICT = '{"analysis": "covers the key facts", "score": 2}'


def _set(path: Path, count: int) -> Path:
    lines = []
    for i in range(count):
        record = {
            "session_id": i,
            "messages": [
                {"role": "user", "content": f"介绍第{i}条河。"},
                {"role": "assistant", "reference_response": "一条很长的河。", "responses": [{"content": f"河{i}"}]},
            ],
            "meta": {"dataset": "综合"},
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _score(source: Path, out: Path, *urls: str) -> object:
    judges = [word for url in urls for word in ("--judge-base-url", url)]
    args = ["score", str(source), "-o", str(out), "--metric", "judge", *judges, "--judge-model", "j", "--json"]
    return CliRunner(env={"OPENAI_API_KEY": ""}).invoke(app, args)


def test_judge_requests_spread_over_the_judge_replicas(tmp_path: Path) -> None:
    with FakeOpenAI() as first, FakeOpenAI() as second:
        for server in (first, second):
            server.responder, server.capacity, server.delay = (lambda body: VERDICT), 2, 0.005
        result = _score(_set(tmp_path / "set.jsonl", 40), tmp_path / "scored.jsonl", first.base_url, second.base_url)
        assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
        assert first.requests + second.requests == 40
        assert first.requests > 0 and second.requests > 0
    scores = [json.loads(line)["messages"][-1]["responses"][0]["score"] for line in (tmp_path / "scored.jsonl").open()]
    assert scores == [2.0] * 40


def test_a_dead_judge_replica_is_dropped_and_the_other_judges_everything(tmp_path: Path) -> None:
    dead = FakeOpenAI().start()
    dead.stop()  # nothing listens there
    with FakeOpenAI() as alive:
        alive.responder = lambda body: VERDICT
        result = _score(_set(tmp_path / "set.jsonl", 12), tmp_path / "scored.jsonl", dead.base_url, alive.base_url)
        assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
        assert alive.requests == 12
    assert "was dropped" in result.output  # type: ignore[attr-defined]
    scores = [json.loads(line)["messages"][-1]["responses"][0]["score"] for line in (tmp_path / "scored.jsonl").open()]
    assert scores == [2.0] * 12
