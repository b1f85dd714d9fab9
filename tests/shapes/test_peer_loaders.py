"""The peers read what formatkit writes (#32 item 3): each written file loaded by the tool's own loader,
where its package installs here (CI: `pip install inspect-ai`, then `pytest -m peers`). EvalScope installs
too, but its loader needs a task configuration and a model to build one: not done yet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

pytestmark = pytest.mark.peers

SET = [
    {
        "system": "请完成下面的计算题",
        "prompt": "1+1等于几？",
        "answer": "2",
        "session_id": 7,
        "meta": {"subject": "math"},
    },
    {"prompt": "Which is a prime?", "answer": "B", "session_id": 8, "meta": {"choices": ["4", "5"]}},
]


def test_inspect_ai_reads_the_samples_formatkit_writes(tmp_path: Path) -> None:
    dataset = pytest.importorskip("inspect_ai.dataset")
    source = tmp_path / "set.jsonl"
    source.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in SET), encoding="utf-8")
    result = CliRunner().invoke(app, ["convert", str(source), "--to", "inspect", "-o", str(tmp_path / "samples.jsonl")])
    assert result.exit_code == 0, result.output
    samples = list(dataset.json_dataset(str(tmp_path / "samples.jsonl")))
    assert [s.id for s in samples] == [7, 8]
    first, second = samples
    assert [(m.role, m.text) for m in first.input] == [("system", "请完成下面的计算题"), ("user", "1+1等于几？")]
    assert first.target == "2" and first.metadata == {"dataset": "set", "subject": "math"}
    assert second.input == "Which is a prime?" and second.choices == ["4", "5"] and second.target == "B"
