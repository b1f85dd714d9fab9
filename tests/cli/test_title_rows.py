"""A title row (and a note row) above the header, the usual Chinese template (#29 item 1): ``validate``,
``convert`` and ``eval`` say once where the header is, never read the sheet from there silently, and ``fix``
moves the rows above it to a sheet of their own, after which the copy is read."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from typer.testing import CliRunner, Result

from formatkit.cli import app

HEADER = ["session_id", "system_prompt", "query", "reference_response", "parameters", "response"]
TITLE = "XX评测集（第二版） 填写人：张三"
NOTE = "说明：每行一道题，参考答案必填"


def _cli(*args: str) -> Result:
    return CliRunner(env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}).invoke(app, list(args))


def _template(path: Path, above: list[str], header: list[str] = HEADER) -> Path:
    """A workbook with ``above`` rows (each one text merged across A:F) over the header and three records,
    the second record with its system prompt merged down two rows (a range below the title rows)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "数据"
    for number, text in enumerate(above, start=1):
        ws.append([text])
        ws.merge_cells(f"A{number}:F{number}")
    ws.append(header)
    rows: list[list[Any]] = [
        [1, "你是助手", "1+1=?", "2", None, None],
        [2, "你是数学老师", "2+2=?", "4", None, None],
        [3, None, "3+3=?", "6", None, None],
    ]
    for row in rows:
        ws.append(row)
    first = len(above) + 3  # the row of record 2
    ws.merge_cells(f"B{first}:B{first + 1}")
    wb.save(path)
    return path


@pytest.mark.parametrize(("above", "header_row"), [([TITLE], 2), ([TITLE, NOTE], 3)])
def test_validate_says_once_where_the_header_is(tmp_path: Path, above: list[str], header_row: int) -> None:
    path = _template(tmp_path / "模板.xlsx", above)
    result = _cli("validate", "--json", str(path))
    assert result.exit_code == 1, result.output
    [issue] = json.loads(result.output)["files"][0]["issues"]
    assert (issue["code"], issue["severity"], issue["sheet"], issue["row"]) == (
        "header_not_first_row",
        "error",
        "数据",
        header_row,
    )
    rows = "1" if header_row == 2 else "1–2"
    assert f"Row {header_row} looks like the header" in issue["message"]
    assert "formatkit fix" in issue["message"] and f"delete row(s) {rows}" in issue["message"]
    assert TITLE not in result.output  # the title is not repeated as the names of six columns
    zh = _cli("validate", "--lang", "zh", str(path))
    assert f"第 {header_row} 行看起来才是表头" in zh.output and f"删除第 {rows} 行" in zh.output


def test_convert_and_eval_do_not_read_the_sheet_from_the_found_row(tmp_path: Path) -> None:
    path = _template(tmp_path / "模板.xlsx", [TITLE])
    out = tmp_path / "set.jsonl"
    converted = _cli("convert", str(path), "-o", str(out))
    assert converted.exit_code != 0 and "header_not_first_row" in converted.output
    assert not out.exists() or out.read_text(encoding="utf-8") == ""
    evaluated = _cli(
        "eval", str(path), "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "-o", str(tmp_path / "e")
    )
    assert evaluated.exit_code != 0 and "header_not_first_row" in evaluated.output


@pytest.mark.parametrize("above", [[TITLE], [TITLE, NOTE]])
def test_fix_moves_the_rows_above_the_header_to_a_notes_sheet(tmp_path: Path, above: list[str]) -> None:
    path = _template(tmp_path / "模板.xlsx", above)
    fixed = tmp_path / "fixed.xlsx"
    result = _cli("fix", "--json", str(path), "-o", str(fixed))
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    moved = [c for c in report["changes"] if c["code"] == "title_rows_moved"]
    assert len(moved) == 1 and (moved[0]["sheet"], moved[0]["row"]) == ("数据", 1)
    assert moved[0]["data"]["count"] == len(above) and moved[0]["data"]["notes"] == "说明"
    assert TITLE in moved[0]["message"]
    # the copy validates: three records, no error (the notes sheet is an extra sheet: a warning)
    copy = _cli("validate", "--json", str(fixed))
    assert copy.exit_code == 0, copy.output
    checked = json.loads(copy.output)["files"][0]
    assert checked["records"] == 3 and [i["code"] for i in checked["issues"]] == ["extra_sheet"]
    # … whose advice is not to move the notes' rows onto the data sheet (they are a title, not records)
    [notes_issue] = checked["issues"]
    assert "need no change" in notes_issue["message"] and "--sheet" not in notes_issue["message"]
    wb = openpyxl.load_workbook(fixed)
    data, notes = wb["数据"], wb["说明"]
    assert [c.value for c in data[1]] == HEADER
    assert [next(c.value for c in row) for row in notes.iter_rows()] == above
    # the title's merges went with it; the system prompt's merge moved up with its rows (and was then
    # unmerged by fix, its value written into both rows)
    assert [str(r) for r in data.merged_cells.ranges] == []
    assert [data.cell(row=r, column=2).value for r in (3, 4)] == ["你是数学老师", "你是数学老师"]
    zh = _cli("fix", "--lang", "zh", str(path), "-o", str(tmp_path / "fixed_zh.xlsx"))
    assert '移到新工作表"说明"' in zh.output and TITLE in zh.output


def test_fix_shifts_merged_ranges_below_the_title_rows(tmp_path: Path) -> None:
    """A merge across columns below the title (no certain reading, so fix leaves it merged) moves up."""
    path = _template(tmp_path / "模板.xlsx", [TITLE, NOTE])
    wb = openpyxl.load_workbook(path)
    ws = wb["数据"]
    ws.merge_cells("E4:F4")  # record 1's parameters and response
    wb.save(path)
    fixed = tmp_path / "fixed.xlsx"
    assert _cli("fix", str(path), "-o", str(fixed)).exit_code in (0, 1)
    assert sorted(str(r) for r in openpyxl.load_workbook(fixed)["数据"].merged_cells.ranges) == ["E2:F2"]


def test_fix_keeps_a_sheet_named_like_the_notes_sheet(tmp_path: Path) -> None:
    path = _template(tmp_path / "模板.xlsx", [TITLE])
    wb = openpyxl.load_workbook(path)
    wb.create_sheet("说明")["A1"] = "旧的说明"
    wb.save(path)
    fixed = tmp_path / "fixed.xlsx"
    _cli("fix", str(path), "-o", str(fixed))
    wb = openpyxl.load_workbook(fixed)
    assert wb.sheetnames == ["数据", "说明", "说明 2"]
    assert wb["说明"]["A1"].value == "旧的说明" and wb["说明 2"]["A1"].value == TITLE


@pytest.mark.slow
def test_a_template_saved_by_libreoffice(tmp_path: Path) -> None:
    office = shutil.which("libreoffice") or shutil.which("soffice")
    if office is None:
        pytest.skip("LibreOffice is not installed (apt-get install -y libreoffice-calc)")
    source = _template(tmp_path / "template.xlsx", [TITLE, NOTE])
    resaved = tmp_path / "resaved"
    subprocess.run(
        [office, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo-profile", "--convert-to",
         "xlsx:Calc MS Excel 2007 XML", "--outdir", str(resaved), str(source)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    path = resaved / "template.xlsx"
    result = _cli("validate", str(path))
    assert result.exit_code == 1 and "header_not_first_row" in result.output and "Row 3 looks like" in result.output
    fixed = tmp_path / "fixed.xlsx"
    assert _cli("fix", str(path), "-o", str(fixed)).exit_code == 0
    assert _cli("validate", str(fixed)).exit_code == 0
