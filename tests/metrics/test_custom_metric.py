"""A user's own rule metric, named ``module:function`` on the command line and in the library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import scoring
from formatkit import RecordDict, ResponseDict
from formatkit.cli import app

RESPONSES = Path(__file__).parents[2] / "fixtures" / "responses"
runner = CliRunner()

_METRIC = '''
from scoring import Item, ItemScore

def mentions_reference(reply: str, item: Item) -> ItemScore:
    """1 when the reply contains the reference anywhere (a deliberately naive metric)."""
    hit = item.reference is not None and item.reference in reply
    return ItemScore(1.0 if hit else 0.0, "mentions: " + ("yes" if hit else "no"), item.reference if hit else None)

def as_bool(reply: str, item: Item) -> bool:
    return "18" in reply

def broken(reply: str, item: Item) -> object:
    return "not a score"
'''


@pytest.fixture
def user_metrics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "user_metrics.py").write_text(_METRIC, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "user_metrics"


def _scored(path: Path) -> list[ResponseDict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [r for line in lines for r in json.loads(line)["messages"][-1]["responses"]]


def test_custom_metric_from_the_command_line(tmp_path: Path, user_metrics: str) -> None:
    out = tmp_path / "scored.jsonl"
    args = ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(out), "--metric", f"{user_metrics}:mentions_reference"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["datasets"]["gsm8k"]["metric"] == f"{user_metrics}:mentions_reference"
    responses = _scored(out)
    assert {r["metric"] for r in responses} == {f"{user_metrics}:mentions_reference"}
    assert {r["score"] for r in responses} <= {0.0, 1.0}
    assert any(r["score"] == 1.0 and r["answer"] for r in responses)


def test_a_bool_is_a_score_and_garbage_is_unscorable(user_metrics: str) -> None:
    record: RecordDict = {
        "session_id": 1,
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "reference_response": "18", "responses": [{"content": "18"}, {"content": "7"}]},
        ],
    }
    outcome = scoring.score_records([record], metric=f"{user_metrics}:as_bool")
    assert [r["score"] for r in outcome.records[0]["messages"][-1]["responses"]] == [1.0, 0.0]
    outcome = scoring.score_records([record], metric=f"{user_metrics}:broken")
    first = outcome.records[0]["messages"][-1]["responses"][0]
    assert first["score"] is None and "expected a number in [0, 1]" in first["analysis"]


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        pytest.param("nonsense", "unknown metric 'nonsense'", id="unknown-name"),
        pytest.param("no_such_module_here:f", "cannot import 'no_such_module_here'", id="missing-module"),
        pytest.param("user_metrics:missing", "has no function 'missing'", id="missing-function"),
    ],
)
def test_a_bad_metric_is_bad_usage_before_any_work(
    tmp_path: Path, user_metrics: str, metric: str, message: str
) -> None:
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(out), "--metric", metric])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not out.exists()
