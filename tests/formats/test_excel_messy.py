"""Messy workbooks as people really send them, built in tmp_path: each case pins the code and its place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
import pytest

from formatkit import validate_file


def _book(path: Path, rows: list[list[Any]]) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Sheet1"
    for row in rows:
        ws.append(row)
    wb.save(path)
    return path


def _issues(path: Path, mode: str = "infer-eval") -> list[tuple[str, str, int | None, str | None]]:
    report = validate_file(path, mode=mode)  # type: ignore[arg-type]
    return [(i.severity, i.code, i.row, i.column) for i in report.issues]


@pytest.mark.parametrize(
    ("header", "label"),
    [
        ("ｑｕｅｒｙ", "A (ｑｕｅｒｙ)"),  # typed with a Chinese input method: full-width letters
        ("Ｑｕｅｒｙ\u3000", "A (Ｑｕｅｒｙ)"),  # full-width capital and an ideographic space
        ("query\u00a0", "A (query)"),  # a no-break space copied from a web page
    ],
)
def test_full_width_or_odd_space_header_is_read_with_a_warning(tmp_path: Path, header: str, label: str) -> None:
    path = _book(tmp_path / "h.xlsx", [[header, "reference_response"], ["1+1?", "2"]])
    report = validate_file(path)
    assert _issues(path) == [("warning", "header_not_normalized", 1, label)]
    assert report.records == 1
    assert '"query"' in report.issues[0].message


def test_hidden_first_sheet_is_named_as_hidden_when_another_sheet_holds_data(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    first = wb.active
    assert first is not None
    first.title = "Sheet1"
    first.append(["query", "reference_response"])
    first.append(["old question", "old answer"])
    first.sheet_state = "hidden"
    shown = wb.create_sheet("Data")
    shown.append(["query", "reference_response"])
    shown.append(["new question", "new answer"])
    wb.active = 1
    wb.save(tmp_path / "hidden_first.xlsx")
    [issue] = validate_file(tmp_path / "hidden_first.xlsx").issues
    assert (issue.code, issue.sheet) == ("extra_sheet", "Data")
    assert '"Sheet1", which is hidden' in issue.message and "Unhide" in issue.message


@pytest.mark.parametrize(
    ("above", "header_row"),
    [
        ([[]], 2),  # an empty first row
        ([["Eval set v2 (do not edit)"]], 2),  # a title row
        ([["Eval set"], ["owner: team"]], 3),
    ],
)
def test_header_below_row_1_is_pointed_at(tmp_path: Path, above: list[list[Any]], header_row: int) -> None:
    path = _book(tmp_path / "title.xlsx", [*above, ["query", "reference_response"], ["1+1?", "2"]])
    # one located error where the header is (#29 item 1), not a missing column per required one
    [issue] = validate_file(path).issues
    assert (issue.code, issue.row) == ("header_not_first_row", header_row)
    assert f"Row {header_row} looks like the header" in issue.message


def test_no_header_hint_when_no_row_looks_like_one(tmp_path: Path) -> None:
    path = _book(tmp_path / "plain.xlsx", [["question", "reference_response"], ["1+1?", "2"]])
    missing = [i for i in validate_file(path).issues if i.code == "missing_column"]
    assert missing and "looks like the header" not in missing[0].message


def test_header_under_many_note_rows_is_found_with_another_sheet_present(tmp_path: Path) -> None:
    # One header search (HEADER_SEARCH_ROWS) for every question: a header on row 8 under seven note rows is
    # a title-row case even when the workbook has a second sheet, not "the first sheet is an instruction sheet"
    # (the instruction-sheet test once looked at six rows only, the header search at ten).
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    for number in range(1, 8):
        ws.append([f"填写说明第 {number} 条"])
    ws.append(["query", "reference_response"])
    ws.append(["1+1?", "2"])
    wb.create_sheet("备用").append(["old", "rows"])
    wb.save(tmp_path / "notes.xlsx")
    codes = [(i.code, i.row) for i in validate_file(tmp_path / "notes.xlsx").issues]
    assert ("header_not_first_row", 8) in codes
    assert not any(code == "no_records" for code, _ in codes)


@pytest.mark.parametrize(("name", "notes"), [("说明", True), ("说明 2", True), ("README", True), ("Data2", False)])
def test_an_extra_sheet_named_as_notes_is_not_told_to_move(tmp_path: Path, name: str, notes: bool) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["query", "reference_response"])
    ws.append(["1+1?", "2"])
    wb.create_sheet(name).append(["说明：每行一道题"])
    wb.save(tmp_path / "two.xlsx")
    [issue] = validate_file(tmp_path / "two.xlsx").issues
    assert (issue.code, issue.severity, issue.sheet) == ("extra_sheet", "warning", name)
    assert ("need no change" in issue.message) is notes
    assert ("move the records onto the first sheet" in issue.message.lower()) is not notes
