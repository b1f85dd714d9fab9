"""The one reader of results files (``scoring/_results.py``), as report, judge-check, merge and ``--against``
see it: a line is a record, or the problem that it is not, named by its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit.cli import app
from scoring._results import read_results, results_lines

runner = CliRunner()

RECORD = {
    "session_id": 1,
    "messages": [{"role": "user", "content": "1+1?"}, {"role": "assistant", "responses": [{"content": "2"}]}],
    "meta": {"dataset": "算术"},
}


def _file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")  # the last line without its newline
    return path


def test_records_come_back_in_order_blank_lines_passed_over(tmp_path: Path) -> None:
    second = {**RECORD, "session_id": 2}
    path = _file(tmp_path, json.dumps(RECORD, ensure_ascii=False), "", json.dumps(second, ensure_ascii=False))
    assert [r["session_id"] for r in read_results(path)] == [1, 2]
    lines = list(results_lines(path))
    assert [line.number for line in lines] == [1, 3]  # as an editor numbers them
    assert all(line.raw.endswith(b"\n") for line in lines)  # a merge writes them as they are
    assert [line.raw for line in results_lines(path, parse=False)] == [line.raw for line in lines]


def test_a_line_that_is_no_record_is_named_by_its_line(tmp_path: Path) -> None:
    path = _file(tmp_path, json.dumps(RECORD), "{not json", '{"session_id": 3}')
    problems = [(line.number, line.problem) for line in results_lines(path)]
    assert problems == [(1, None), (2, "not_json"), (3, "not_canonical")]
    with pytest.raises(ValueError, match=r"line 2 is not JSON .*; from score\?$"):
        list(read_results(path, hint="; from score?"))
    with pytest.raises(ValueError, match="line 1 is not a canonical record"):
        list(read_results(_file(tmp_path, '{"session_id": 3}')))


def test_report_and_judge_check_say_the_same_line(tmp_path: Path) -> None:
    """Both commands read through the one reader: the same line named, each with its own exit."""
    path = _file(tmp_path, json.dumps(RECORD), '["a list"]')
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"session_id": 1, "human": 1}\n', encoding="utf-8")
    report = runner.invoke(app, ["report", str(path)])
    check = runner.invoke(app, ["judge-check", str(path), "--human", str(labels)])
    for result in (report, check):
        assert result.exit_code == 2, result.output
        assert "line 2 is not a canonical record" in result.output
