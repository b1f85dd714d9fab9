"""Issue 29 item 6, silent changes and wrong words, from the command line on workbooks built at test time:
a time cell called a time."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import openpyxl
from typer.testing import CliRunner

from formatkit.cli import app

HEADER = ["session_id", "system_prompt", "query", "reference_response"]


def _workbook(path: Path, rows: list[list[Any]], header: list[str] = HEADER) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def _validate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["validate", *args])
    return result.exit_code, result.output


def test_a_time_cell_is_called_a_time_not_a_date(tmp_path: Path) -> None:
    path = _workbook(tmp_path / "times.xlsx", [[1, "", "比分？", datetime.time(10, 30)]])
    code, output = _validate(str(path))
    assert code == 1
    [line] = [line for line in output.splitlines() if "[date_cell]" in line]
    assert "the time 10:30:00" in line and "the date" not in line and "type 10:30 again" in line
    code, output = _validate("--lang", "zh", str(path))
    assert "单元格中是时间 10:30:00" in output and "日期 10:30:00" not in output
    # a date keeps its own words
    dated = _workbook(tmp_path / "dates.xlsx", [[1, "", "比分？", datetime.datetime(2026, 1, 2)]])
    assert "the date 2026-01-02" in _validate(str(dated))[1]
