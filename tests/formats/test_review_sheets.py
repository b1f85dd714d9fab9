"""Review of issue 21: an instruction sheet before the data sheet (LibreOffice-saved corpus) is reported as
its cause, not as a header with no known column and an unknown column named by a sentence."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from formatkit import validate_files

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "spreadsheets"


@pytest.mark.parametrize("name", ["instructions_first.xlsx", "instructions_first.xls"])
def test_an_instruction_sheet_first_is_said_as_the_cause(name: str) -> None:
    issues = validate_files([CORPUS / name]).all_issues()
    errors = [i for i in issues if i.severity == "error"]
    assert [(i.code, i.sheet, i.row) for i in errors] == [("no_records", "填写说明", 1)]
    assert '--sheet "数据"' in errors[0].message
    assert not any(i.code in ("missing_column", "unknown_column") for i in issues)


def test_a_first_sheet_with_chinese_headers_is_still_read_as_the_data(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    book.active.append(["问题", "答案"])
    book.active.append(["1+1", "2"])
    book.create_sheet("备注").append(["随便写点什么"])
    path = tmp_path / "set.xlsx"
    book.save(path)
    codes = {i.code for i in validate_files([path]).all_issues()}
    assert "unknown_column" in codes and "no_records" not in codes  # 问题 → did you mean "query"
