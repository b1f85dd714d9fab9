"""CONTRIBUTING.md, "Add a metric": one entry of the metric table is the whole change.

A toy metric is registered (as its entry in scoring/_metrics/registry.py would add it), scored from the
command line, picked by ``auto`` for the references its entry claims, and unregistered again.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from recipes import recipe_blocks
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._metrics.base import Item, ItemScore
from scoring._metrics.registry import METRICS, MetricSpec, register_metric, unregister_metric

ROOT = Path(__file__).parents[2]
RESPONSES = ROOT / "fixtures" / "responses"
runner = CliRunner()


def last_word(reply: str, item: Item) -> ItemScore:
    """1 when the reply holds the reference's last word (``#### 7`` → ``7``), else 0."""
    words = (item.reference or "").split()
    if not words:
        return ItemScore(None, "toy: no reference")
    hit = words[-1] in reply
    return ItemScore(
        1.0 if hit else 0.0, f"toy: {words[-1]!r} {'found' if hit else 'missing'}", words[-1] if hit else None
    )


TOY = MetricSpec(
    "toy",
    "rule",
    "the reference's last word appears in the reply",
    implementation=last_word,
    auto_for=frozenset({"long"}),  # auto gives it free-text references, which no built-in rule metric scores
    auto_reason="the reference is free text: the toy reads its last word",
)


@pytest.fixture
def toy() -> Iterator[MetricSpec]:
    register_metric(TOY)
    try:
        yield TOY
    finally:
        unregister_metric(TOY.name)


def _responses(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [r for line in lines for r in json.loads(line)["messages"][-1]["responses"]]


def test_a_registered_metric_scores_from_the_command_line(toy: MetricSpec, tmp_path: Path) -> None:
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(out), "--metric", "toy", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["datasets"]["gsm8k"]["metric"] == "toy"
    responses = _responses(out)
    assert {r["metric"] for r in responses} == {"toy"}
    assert {r["score"] for r in responses} == {0.0, 1.0}
    assert all(r["analysis"].startswith("toy: ") for r in responses)
    right = [r for r in responses if r["score"] == 1.0]
    assert all(r["answer"] for r in right)
    assert summary["datasets"]["gsm8k"]["score"] == round(100 * len(right) / len(responses), 2)


def test_auto_picks_a_registered_metric_for_the_references_its_entry_claims(toy: MetricSpec, tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    records = [
        ("Capital of France?", "Paris", "Paris"),
        ("介绍长江。", "长江是中国最长的河流，全长约六千三百公里，流经多个省份，最后注入东海", "它注入东海"),
    ]
    source.write_text(
        "".join(
            json.dumps(
                {
                    "session_id": i,
                    "messages": [
                        {"role": "user", "content": q},
                        {"role": "assistant", "reference_response": ref, "responses": [{"content": reply}]},
                    ],
                },
                ensure_ascii=False,
            )
            + "\n"
            for i, (q, ref, reply) in enumerate(records)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(source), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert [(r["metric"], r["score"]) for r in _responses(out)] == [("exact", 1.0), ("toy", 0.0)]
    summary = json.loads(result.stdout)
    assert summary["datasets"]["mixed"]["metric"] == "mixed"

    unregister_metric("toy")  # without the toy, free text waits for a judge again
    result = runner.invoke(app, ["score", str(source), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert [(r["metric"], r["score"]) for r in _responses(out)] == [("exact", 1.0), ("judge-needed", None)]


def test_an_unregistered_metric_is_unknown_again(tmp_path: Path) -> None:
    register_metric(TOY)
    unregister_metric(TOY.name)
    assert "toy" not in METRICS
    out = tmp_path / "scored.jsonl"
    result = runner.invoke(app, ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(out), "--metric", "toy"])
    assert result.exit_code == 2
    assert "unknown metric 'toy'" in result.output
    assert not out.exists()


def test_a_taken_name_cannot_be_registered_twice() -> None:
    with pytest.raises(ValueError, match="the name is taken"):
        register_metric(MetricSpec("exact", "rule", "a second exact", implementation=last_word))
    assert METRICS["exact"].implementation == "scoring._metrics.exact:score_exact"


def test_the_command_line_help_lists_every_entry_of_the_table() -> None:
    result = runner.invoke(app, ["score", "--help"], terminal_width=400)
    assert result.exit_code == 0
    text = " ".join(result.output.replace("│", " ").split())
    for name, spec in METRICS.items():
        assert f"{name} ({' '.join(spec.summary.split())})" in text, name


def test_the_worked_example_of_the_recipe_scores_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = recipe_blocks("Add a metric")
    (tmp_path / "recipe_f1.py").write_text(blocks["scoring/_metrics/f1.py"], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = blocks["scoring/_metrics/registry.py, in METRICS"].split("\n", 1)[1].strip().rstrip(",")
    spec = eval(entry, {"MetricSpec": MetricSpec})  # the entry as written in the recipe
    assert isinstance(spec, MetricSpec) and spec.implementation == "scoring._metrics.f1:score_f1"
    real = "f1" in METRICS  # the recipe followed for real: score with the table's own entry
    if not real:
        register_metric(dataclasses.replace(spec, implementation="recipe_f1:score_f1"))
    try:
        out = tmp_path / "scored.jsonl"
        args = ["score", str(RESPONSES / "gsm8k.jsonl"), "-o", str(out), "--metric", "f1", "--json"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        responses = _responses(out)
        assert {r["metric"] for r in responses} == {"f1"}
        assert all(0.0 <= r["score"] <= 1.0 and r["analysis"].startswith("f1") for r in responses)
        assert 0 < json.loads(result.stdout)["datasets"]["gsm8k"]["score"] < 100
    finally:
        if not real:
            unregister_metric("f1")
