"""A CSV set gets the same issues at the same places as the same set saved as xlsx (#32 item 1).

Every invalid Excel fixture is saved as CSV by Python's csv module (here) and by LibreOffice, in UTF-8 and in
GBK (tests/corpora/csv; the slow test saves them again), and validated: the CSV's issues, by code, row and
column, are the workbook's, but for those a CSV cannot hold (a CSV is one sheet of text: no merges, hidden
rows, number formats or typed dates). The sheet differs by design: a CSV is read as a sheet named after the file.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from formatkit import validate_file

FIXTURES = Path(__file__).parents[2] / "fixtures" / "invalid" / "excel"
CORPUS = Path(__file__).parents[1] / "corpora" / "csv"
WORKBOOKS = sorted(p for p in FIXTURES.glob("*.xlsx") if not p.name.startswith(("unreadable_file", "empty_file")))

#: What a CSV cannot hold, so cannot be found in one (the CSV holds what the cell showed, as text).
NOT_IN_CSV = {
    "merged_cells": "a CSV has no merged ranges",
    "hidden_rows": "nothing is hidden in a CSV",
    "hidden_columns": "nothing is hidden in a CSV",
    "totals_row": "a CSV has no Excel tables",
    "extra_sheet": "a CSV is one sheet",
    "number_format": "a CSV holds either the shown text or the number, never both",
    "date_cell": "a date is the text the CSV holds",
    "boolean_cell": "TRUE is the text the CSV holds",
    "stale_formula_value": "a CSV holds values, not formulas",
    "formula_without_value": "a CSV holds values, not formulas",
}
#: Workbooks whose other issues change with what the CSV lost, and what the CSV gives instead.
CHANGED = {
    # the merged session_id's value is on its first row only: the rows below have none
    "merged_cells.xlsx": {"mixed_session_ids", "missing_session_id", "missing_reference", "unexpected_response"},
    # Python's csv module writes the formula's missing value as an empty cell; LibreOffice computes it
    "formula_without_value.xlsx": {"empty_text"},
    # the empty first sheet is all the CSV holds
    "no_records_first_sheet_empty.xlsx": {"empty_file"},
}


def _issues(path: Path) -> list[tuple[str, Any, Any]]:
    report = validate_file(path)
    return sorted((i.code, i.row, i.column) for i in report.issues if i.code != "csv_encoding")


def _expected(workbook: Path) -> list[tuple[str, Any, Any]]:
    return [issue for issue in _issues(workbook) if issue[0] not in NOT_IN_CSV]


def _check(workbook: Path, saved: Path) -> None:
    found = _issues(saved)
    if workbook.name in CHANGED:
        assert {code for code, _, _ in found} <= CHANGED[workbook.name], found
    else:
        assert found == _expected(workbook), saved


def _python_csv(workbook: Path, folder: Path) -> Path:
    """The first sheet's values written by Python's csv module, as a program that exports a sheet writes them."""
    sheet = openpyxl.load_workbook(workbook, data_only=True).worksheets[0]
    target = folder / f"{workbook.stem}.csv"
    with target.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        for row in sheet.iter_rows(values_only=True):
            writer.writerow(["" if value is None else value for value in row])
    return target


@pytest.mark.parametrize("workbook", WORKBOOKS, ids=[p.name for p in WORKBOOKS])
def test_saved_by_python_csv_the_issues_are_the_workbooks(workbook: Path, tmp_path: Path) -> None:
    _check(workbook, _python_csv(workbook, tmp_path))


SAVED = sorted(CORPUS.glob("libreoffice_*/*.csv"))


@pytest.mark.parametrize("saved", SAVED, ids=[f"{p.parent.name}/{p.name}" for p in SAVED])
def test_saved_by_libreoffice_the_issues_are_the_workbooks(saved: Path) -> None:
    _check(FIXTURES / f"{saved.stem}.xlsx", saved)


def test_the_comparison_covers_the_rules_a_csv_can_hold() -> None:
    """Not a vacuous pass: most workbooks are compared issue for issue, and each corpus folder is complete."""
    compared = [w for w in WORKBOOKS if w.name not in CHANGED]
    assert len(compared) >= 40
    codes = {issue[0] for w in compared for issue in _expected(w)}
    assert {"error_cell", "long_number", "header_not_first_row", "too_many_rows", "cell_too_long"} <= codes
    for folder in ("libreoffice_utf8", "libreoffice_gbk"):
        names = {p.stem for p in (CORPUS / folder).glob("*.csv")}
        assert names == {w.stem for w in WORKBOOKS} - {"cell_too_long", "too_many_rows"}


def test_a_gbk_file_is_read_and_said_to_be_gbk() -> None:
    """LibreOffice's GBK save of a sheet with Chinese text: read as GBK, said once at the sheet; the same
    records as its UTF-8 save."""
    gbk, utf8 = CORPUS / "libreoffice_gbk" / "empty_text.csv", CORPUS / "libreoffice_utf8" / "empty_text.csv"
    report = validate_file(gbk)
    [said] = [i for i in report.issues if i.code == "csv_encoding"]
    assert (said.severity, said.sheet, said.row) == ("warning", "empty_text", None) and "GBK" in said.message
    assert not [i for i in validate_file(utf8).issues if i.code == "csv_encoding"]
    assert gbk.read_bytes() != utf8.read_bytes() and gbk.read_bytes().decode("gbk") == utf8.read_text("utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(("folder", "charset"), [("utf8", 76), ("gbk", 85)])
def test_saved_by_libreoffice_now_the_issues_are_the_workbooks(tmp_path: Path, folder: str, charset: int) -> None:
    """The corpus made again by the LibreOffice installed here (apt-get install -y libreoffice-calc)."""
    office = shutil.which("libreoffice") or shutil.which("soffice")
    if office is None:
        pytest.skip("LibreOffice is not installed (apt-get install -y libreoffice-calc)")
    out = tmp_path / folder
    subprocess.run(
        [office, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo-profile", "--convert-to",
         f"csv:Text - txt - csv (StarCalc):44,34,{charset},1", "--outdir", str(out), *map(str, WORKBOOKS)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    assert sorted(p.stem for p in out.glob("*.csv")) == [w.stem for w in WORKBOOKS]
    for workbook in WORKBOOKS:
        _check(workbook, out / f"{workbook.stem}.csv")
