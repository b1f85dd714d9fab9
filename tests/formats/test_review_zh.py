"""Review of issue 21 item 2: a Chinese annotator reads every word of `validate --lang zh`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit.cli import app

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "invalid" / "jsonl"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"prompt": "a", "answer": "b",}', "第 31 列应当是用双引号括起的键名"),
        ("{'prompt': 'a', 'answer': 'b'}", "第 2 列应当是用双引号括起的键名"),
        ('{"prompt": "a", "answer": "b', "第 27 列开始的字符串缺少结尾的双引号"),
        ('{"prompt": "a" "answer": "b"}', "第 16 列缺少逗号"),
        ('{"prompt": "a", "answer": True}', "第 27 列应当是一个值"),
    ],
)
def test_the_json_decoders_words_are_translated(tmp_path: Path, line: str, says: str) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text('{"prompt": "q", "answer": "a"}\n' + line + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", "--lang", "zh", str(path)], env={"COLUMNS": "250"})
    assert says in result.output, result.output
    assert "Expecting" not in result.output and "Unterminated" not in result.output


def test_english_keeps_the_decoders_words(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["validate", str(FIXTURES / "invalid_json.jsonl")], env={"COLUMNS": "250"})
    assert "Expecting property name enclosed in double quotes at column 33" in result.output
