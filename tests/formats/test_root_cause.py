"""Root cause first: a single-turn set whose session_ids repeat by mistake reads as conversations, and the
session rules then flag every earlier reference and parameters. The repeated id is said first, with all
its rows; its consequences follow."""

from __future__ import annotations

from pathlib import Path

import openpyxl
from typer.testing import CliRunner

from formatkit import validate_files
from formatkit.cli import app


def _cycled_ids(path: Path) -> Path:
    """63 rows whose ids cycle 1..9 (a copied block), session 1's rows with different parameters and one
    row of session 1 without its reference (so id 1 reads as a conversation, not as duplicates)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["session_id", "query", "reference_response", "parameters"])
    for n in range(63):
        sid = n % 9 + 1
        reference = None if (sid == 1 and n == 54) else f"答案{n}"
        parameters = f'{{"temperature": 0.{n % 7}}}' if sid == 1 else None
        sheet.append([sid, f"问题{n}", reference, parameters])
    book.save(path)
    return path


def test_the_repeated_id_is_reported_once_at_its_first_row_with_all_its_rows(tmp_path: Path) -> None:
    report = validate_files([_cycled_ids(tmp_path / "set.xlsx")])
    causes = [i for i in report.all_issues() if i.code == "session_not_consecutive"]
    assert [(i.row, i.column) for i in causes] == [(2, "A (session_id)")]
    assert "session_id 1 is on 7 rows" in causes[0].message
    assert "2, 11, 20, 29, 38, 47, 56" in causes[0].message
    assert "single-turn set, ids must be unique" in causes[0].message
    issues = report.all_issues()
    consequences = [i for i in issues if i.code in ("misplaced_reference", "parameters_mismatch")]
    assert len(consequences) >= 6
    assert issues.index(causes[0]) < min(issues.index(i) for i in consequences)


def test_the_printed_report_says_the_cause_before_its_consequences(tmp_path: Path) -> None:
    path = _cycled_ids(tmp_path / "set.xlsx")
    for lang, cause in (("en", "session_id 1 is on 7 rows"), ("zh", "session_id 1 出现在 7 行")):
        output = CliRunner().invoke(app, ["validate", "--lang", lang, str(path)]).output
        assert cause in output
        first = output.index(cause)
        for code in ("misplaced_reference", "parameters_mismatch"):
            assert first < output.index(code), (lang, output)
