"""Issue 21 item 6, on workbooks saved by LibreOffice (tests/corpora/spreadsheets): --sheet, the 1,000-row
message with the sheet's own count, a date cell's message with what was typed, per-column merge hints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formatkit import validate_files
from formatkit.cli import app

SHEETS = Path(__file__).parents[1] / "corpora" / "spreadsheets"


def _issues(path: Path, **options: str) -> list[tuple[str, str]]:
    report = validate_files([path], **options)  # type: ignore[arg-type]
    return [(i.code, i.message) for i in report.all_issues()]


@pytest.mark.parametrize("name", ["instructions_first.xlsx", "instructions_first.xls"])
def test_sheet_reads_the_named_sheet(name: str) -> None:
    path = SHEETS / name
    first = validate_files([path])
    assert not first.valid
    extra = [i for i in first.all_issues() if i.code == "extra_sheet"]
    assert '--sheet "数据"' in extra[0].message
    chosen = validate_files([path], sheet="数据")
    assert chosen.valid and chosen.files[0].records == 2
    assert chosen.all_issues() == []  # the instruction sheet is no surprise when a sheet is chosen


@pytest.mark.parametrize("name", ["instructions_first.xlsx", "instructions_first.xls"])
def test_an_unknown_sheet_names_the_sheets_there_are(name: str) -> None:
    [(code, message)] = _issues(SHEETS / name, sheet="Sheet1")
    assert code == "unreadable_file"
    assert '"填写说明", "数据"' in message and "--sheet" in message


def test_validate_and_convert_take_sheet(tmp_path: Path) -> None:
    path = str(SHEETS / "instructions_first.xlsx")
    assert CliRunner().invoke(app, ["validate", path]).exit_code == 1
    assert CliRunner().invoke(app, ["validate", "--sheet", "数据", path]).exit_code == 0
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["convert", "--sheet", "数据", path, "-o", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["messages"][0]["content"] for r in records] == ["1+1=?", "2+2=?"]
    assert records[0]["meta"]["source"]["sheet"] == "数据"


def test_the_row_limit_says_how_many_rows_the_sheet_holds() -> None:
    [(code, message)] = _issues(SHEETS / "rows_2500.xlsx")
    assert code == "too_many_rows"
    assert "The sheet holds 2,500 data rows: split it into 3 files of at most 1,000 rows" in message
    report = validate_files([SHEETS / "rows_2500.xlsx"]).translated("zh")
    assert "该工作表共有 2,500 条数据行：请拆成 3 个文件" in report.all_issues()[0].message


def test_a_date_cell_shows_what_was_typed_beside_the_date() -> None:
    [(code, message)] = _issues(SHEETS / "typed_dates.xlsx")
    assert code == "date_cell"
    assert "2026-01-02" in message and "typed as 1/2" in message and "type 1/2 again" in message


def test_the_merge_hint_fits_each_column() -> None:
    issues = _issues(SHEETS / "merged_session_cells.xlsx")
    hints = {message.split(" are merged")[0]: message for code, message in issues if code == "merged_cells"}
    assert "the session_id on each row" in hints["Cells A2:A4"]
    assert "the same system_prompt on each row" in hints["Cells B2:B4"]
    assert hints["Cells A2:A4"].split("every cell")[1] != hints["Cells B2:B4"].split("every cell")[1]
