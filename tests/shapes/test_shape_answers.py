"""A multiple-choice line of another tool whose answer names none of its options (issue #39 item 2): a letter
the options do not reach, or a text that is no option, is an error at its line and field, never read as a
reference no reply could match (every reply would be scored wrong)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit.cli import app


@pytest.mark.parametrize(
    ("shape", "line", "field"),
    [
        ("opencompass", '{"question": "q", "A": "x", "B": "y", "answer": "E"}', "answer"),
        ("evalscope-mcq", '{"question": "q", "A": "x", "B": "y", "C": "z", "answer": "D"}', "answer"),
        ("evalscope-mcq", '{"question": "q", "A": "x", "B": "y", "answer": "w"}', "answer"),
        ("inspect", '{"input": "q", "choices": ["x", "y"], "target": "C"}', "target"),
        ("inspect", '{"input": "q", "choices": ["x", "y"], "target": ["A", "Z"]}', "target"),
    ],
)
def test_an_answer_among_no_options_is_an_error_at_its_line(tmp_path: Path, shape: str, line: str, field: str) -> None:
    good = {
        "opencompass": '{"question": "q", "A": "x", "B": "y", "answer": "b"}',
        "evalscope-mcq": '{"question": "q", "A": "x", "B": "y", "answer": "(A)"}',
        "inspect": '{"input": "q", "choices": ["x", "y"], "target": "y"}',
    }
    path = tmp_path / "peer.jsonl"
    path.write_text(good[shape] + "\n" + line + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(path), "--from", shape, "--mode", "infer-only", "--json"])
    issues = json.loads(result.stdout)["files"][0]["issues"]
    errors = [i for i in issues if i["severity"] == "error"]
    assert [(i["code"], i["line"], i["field"]) for i in errors] == [("invalid_type", 2, field)]
    assert "options" in errors[0]["message"]
    zh = CliRunner().invoke(app, ["validate", str(path), "--from", shape, "--mode", "infer-only", "--lang", "zh"])
    assert "选项" in zh.output
