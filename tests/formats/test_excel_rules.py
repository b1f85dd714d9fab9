"""One case per Excel rule: the fixture, the mode, the code, and its exact place (sheet, row, column)."""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any, cast

import pytest
from typer.testing import CliRunner

from formatkit import validate_file
from formatkit.cli import app

FIXTURES = Path(__file__).parents[2] / "fixtures"
X = "invalid/excel/"
C = "invalid/csv/"
S = "Sheet1"
FILE_LEVEL: dict[str, Any] = {"sheet": None, "row": None, "column": None}
ID, SYSTEM, QUERY = "A (session_id)", "B (system_prompt)", "C (query)"
REF, PARAMS, RESPONSE = "D (reference_response)", "E (parameters)", "F (response)"
_ANY = object()


def at(row: int, column: object = _ANY) -> dict[str, Any]:
    """The place of an issue on Sheet1 (column left unchecked when not given)."""
    place: dict[str, Any] = {"sheet": S, "row": row}
    if column is not _ANY:
        place["column"] = column
    return place


#: (fixture relative to fixtures/, mode, code, place). Read by tests/test_codes.py as well.
CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    # files and workbooks
    (X + "empty_file.xlsx", "infer-eval", "empty_file", FILE_LEVEL),
    (X + "empty_file_sheet.xlsx", "infer-eval", "empty_file", {"sheet": S, "row": None}),
    (X + "no_records.xlsx", "infer-eval", "no_records", at(2)),
    (X + "no_records_first_sheet_empty.xlsx", "infer-eval", "no_records", {"sheet": S}),
    (X + "stale_formula_value.xlsx", "infer-eval", "stale_formula_value", at(3, "D (reference_response)")),
    (X + "number_format.xlsx", "infer-eval", "number_format", at(2, "D (reference_response)")),
    (X + "hidden_rows.xlsx", "infer-eval", "hidden_rows", at(3)),
    (X + "hidden_columns.xlsx", "infer-eval", "hidden_columns", at(1, "B (system_prompt)")),
    (X + "totals_row.xlsx", "infer-eval", "totals_row", at(4)),
    (X + "unreadable_file_truncated.xlsx", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_truncated.xls", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_random.xlsx", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_csv.xlsx", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_html.xls", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_docx.xlsx", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_encrypted.xlsx", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_xls_named_xlsx.xlsx", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_xlsx_named_xls.xls", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "unreadable_file_far_cell.xlsx", "infer-eval", "unreadable_file", FILE_LEVEL),
    (X + "too_many_rows.xlsx", "infer-eval", "too_many_rows", at(1002)),
    (X + "extra_sheet.xlsx", "infer-eval", "extra_sheet", {"sheet": "备注"}),
    (X + "no_records_first_sheet_empty.xlsx", "infer-eval", "extra_sheet", {"sheet": "数据"}),
    (X + "merged_cells.xlsx", "infer-eval", "merged_cells", at(2, ID)),
    (X + "merged_cells.xls", "infer-eval", "merged_cells", at(2, ID)),
    (X + "formula_without_value.xlsx", "infer-eval", "formula_without_value", at(3, QUERY)),
    # header
    (X + "missing_column.xlsx", "infer-eval", "missing_column", at(1, None)),
    (X + "missing_column_reference.xlsx", "infer-eval", "missing_column", at(1)),
    (X + "missing_column_reference.xlsx", "scored", "missing_column", at(1)),
    (X + "missing_column_response.xlsx", "scored", "missing_column", at(1)),
    (X + "header_not_first_row.xlsx", "infer-eval", "header_not_first_row", at(2, None)),
    (X + "unknown_column.xlsx", "infer-eval", "unknown_column", at(1, "C (quary)")),
    (X + "duplicate_column.xlsx", "infer-eval", "duplicate_column", at(1, "G (query)")),
    (X + "missing_header.xlsx", "infer-eval", "missing_header", at(1, "G")),
    (X + "header_not_normalized.xlsx", "infer-eval", "header_not_normalized", at(1, "C (Query)")),
    (X + "alias_column.xlsx", "infer-eval", "alias_column", at(1, "B (system)")),
    (X + "alias_column.xlsx", "infer-eval", "alias_column", at(1, "C (prompt)")),
    (X + "alias_column.xlsx", "infer-eval", "alias_column", at(1, "D (answer)")),
    # rows and cells
    (X + "empty_row.xlsx", "infer-eval", "empty_row", at(3)),
    (X + "empty_text.xlsx", "infer-eval", "empty_text", at(3, QUERY)),
    (X + "long_number.xlsx", "infer-eval", "long_number", at(3, REF)),
    (X + "date_cell.xlsx", "infer-eval", "date_cell", at(3, REF)),
    (X + "date_cell.xls", "infer-eval", "date_cell", at(3, REF)),
    (X + "boolean_cell.xlsx", "infer-eval", "boolean_cell", at(2, REF)),
    (X + "boolean_cell.xls", "infer-eval", "boolean_cell", at(2, REF)),
    (X + "error_cell.xlsx", "infer-eval", "error_cell", at(3, REF)),
    (X + "error_cell.xls", "infer-eval", "error_cell", at(3, REF)),
    (X + "cell_too_long.xlsx", "infer-eval", "cell_too_long", at(3, REF)),
    # session ids and sessions
    (X + "invalid_session_id.xlsx", "infer-eval", "invalid_session_id", at(3, ID)),
    (X + "invalid_session_id_text.xlsx", "infer-eval", "invalid_session_id", at(2, ID)),
    (X + "invalid_session_id_huge.xlsx", "infer-eval", "invalid_session_id", at(3, ID)),
    (X + "duplicate_session_id.xlsx", "infer-eval", "duplicate_session_id", at(4, ID)),
    (X + "duplicate_session_id.xls", "infer-eval", "duplicate_session_id", at(4, ID)),
    (X + "mixed_session_ids.xlsx", "infer-eval", "mixed_session_ids", at(5, ID)),
    (X + "missing_session_id.xlsx", "infer-eval", "missing_session_id", at(3, ID)),
    (X + "session_not_consecutive.xlsx", "infer-eval", "session_not_consecutive", at(2, ID)),
    # an exported sheet people sorted or trimmed: its row_key column (formatkit/_rules/excel_order.py)
    (X + "rows_missing.xlsx", "infer-eval", "rows_missing", at(2, "G (row_key)")),
    (X + "rows_missing.xlsx", "infer-eval", "rows_missing", at(4, "G (row_key)")),
    (X + "invalid_row_key.xlsx", "infer-eval", "invalid_row_key", at(3, "G (row_key)")),
    (X + "system_prompt_mismatch.xlsx", "infer-eval", "system_prompt_mismatch", at(4, SYSTEM)),
    (X + "misplaced_reference.xlsx", "infer-eval", "misplaced_reference", at(2, REF)),
    (X + "parameters_mismatch.xlsx", "infer-eval", "parameters_mismatch", at(2, PARAMS)),
    # the target turn by mode
    (X + "missing_reference.xlsx", "infer-eval", "missing_reference", at(3, REF)),
    (X + "missing_reference.xlsx", "scored", "missing_reference", at(3, REF)),
    (X + "missing_reference_multi_turn.xlsx", "infer-eval", "missing_reference", at(6, REF)),
    (X + "unused_reference.xlsx", "infer-only", "unused_reference", at(2, REF)),
    (X + "unexpected_response.xlsx", "infer-eval", "unexpected_response", at(2, RESPONSE)),
    (X + "unexpected_response.xlsx", "infer-only", "unexpected_response", at(2, RESPONSE)),
    (X + "missing_response.xlsx", "scored", "missing_response", at(3, RESPONSE)),
    # parameters
    (X + "invalid_parameters.xlsx", "infer-eval", "invalid_parameters", at(3, PARAMS)),
    (X + "unknown_parameter.xlsx", "infer-eval", "unknown_parameter", at(2, PARAMS)),
    (X + "engine_parameter.xlsx", "infer-eval", "engine_parameter", at(2, PARAMS)),
    (X + "invalid_parameter_type.xlsx", "infer-eval", "invalid_parameter_type", at(2, PARAMS)),
    (X + "parameter_out_of_range.xlsx", "infer-eval", "parameter_out_of_range", at(2, PARAMS)),
    # CSV: the same table rules, at the sheet the file is read as (its name); and what only a CSV meets
    (
        C + "system_prompt_mismatch.csv",
        "infer-eval",
        "system_prompt_mismatch",
        {"sheet": "system_prompt_mismatch", "row": 3, "column": SYSTEM},
    ),
    (
        C + "error_cell.csv",
        "infer-eval",
        "error_cell",
        {"sheet": "error_cell", "row": 3, "column": "B (reference_response)"},
    ),
    (C + "csv_encoding.csv", "infer-eval", "csv_encoding", {"sheet": "csv_encoding", "row": None, "column": None}),
    (C + "formula_text.csv", "infer-eval", "formula_text", {"sheet": "formula_text", "row": 3, "column": "A (query)"}),
    (C + "unreadable_file_big5.csv", "infer-eval", "unreadable_file", FILE_LEVEL),
]

#: Valid files and the mode they are valid in: no errors, and no warnings either.
VALID: list[tuple[str, str]] = [
    ("valid/excel_single_turn.xlsx", "infer-eval"),
    ("valid/excel_single_turn.xls", "infer-eval"),
    ("valid/excel_single_turn_minimal.xlsx", "infer-eval"),
    ("valid/excel_single_turn_no_ids.xlsx", "infer-eval"),
    ("valid/excel_multi_turn.xlsx", "infer-eval"),
    ("valid/excel_multi_turn.xls", "infer-eval"),
    ("valid/excel_multi_turn_one_row_sessions.xlsx", "infer-eval"),
    ("valid/excel_numbers_as_text.xlsx", "infer-eval"),
    ("valid/excel_text_session_ids.xlsx", "infer-eval"),
    ("valid/excel_trailing_empty_rows.xlsx", "infer-eval"),
    ("valid/excel_python_dict_parameters.xlsx", "infer-eval"),
    ("valid/excel_formula_cached.xlsx", "infer-eval"),
    ("valid/excel_infer_only.xlsx", "infer-only"),
    ("valid/excel_scored.xlsx", "scored"),
    ("valid/excel_scored_multi_turn.xlsx", "scored"),
    ("seed/seed_excel_single_turn.xlsx", "infer-eval"),
    ("seed/seed_excel_multi_turn.xlsx", "infer-eval"),
    ("invalid/excel/missing_column_reference.xlsx", "infer-only"),
    ("valid/csv_single_turn_utf8_bom.csv", "infer-eval"),
    ("valid/csv_multi_turn_semicolon.csv", "infer-eval"),
]


def _flat(report: Any) -> list[tuple[Any, ...]]:
    return [(i.code, i.sheet, i.row, i.column) for i in report.issues]


def _matches(issue: Any, code: str, place: dict[str, Any]) -> bool:
    return issue.code == code and all(getattr(issue, key) == value for key, value in place.items())


@pytest.mark.parametrize(("fixture", "mode", "code", "place"), CASES, ids=[f"{c[2]}:{c[0]}:{c[1]}" for c in CASES])
def test_rule_is_found_at_its_place(fixture: str, mode: str, code: str, place: dict[str, Any]) -> None:
    report = validate_file(FIXTURES / fixture, mode=mode)  # type: ignore[arg-type]
    found = [i for i in report.issues if _matches(i, code, place)]
    assert found, f"no {code} at {place}; got {_flat(report)}"
    issue = found[0]
    assert issue.message.endswith((".", "?", ")")) and len(issue.message) > 30
    if issue.severity == "error":
        assert not report.valid


@pytest.mark.parametrize(("fixture", "mode"), VALID, ids=[f"{v[0]}:{v[1]}" for v in VALID])
def test_valid_files_have_no_issues(fixture: str, mode: str) -> None:
    report = validate_file(FIXTURES / fixture, mode=mode)  # type: ignore[arg-type]
    assert _flat(report) == []
    assert report.valid and report.records > 0
    assert report.format in ("excel-single-turn", "excel-multi-turn")


def test_format_detection() -> None:
    assert validate_file(FIXTURES / "valid/excel_single_turn.xlsx").format == "excel-single-turn"
    assert validate_file(FIXTURES / "valid/excel_multi_turn.xlsx").format == "excel-multi-turn"
    # Repeated ids where every row has its own reference are duplicates, not one conversation.
    assert validate_file(FIXTURES / (X + "duplicate_session_id.xlsx")).format == "excel-single-turn"


def test_missing_reference_column_is_reported_once_not_per_row() -> None:
    report = validate_file(FIXTURES / X / "missing_column_reference.xlsx", mode="infer-eval")
    assert [i.code for i in report.issues] == ["missing_column"]


def test_unknown_column_suggests_the_known_name() -> None:
    report = validate_file(FIXTURES / X / "unknown_column.xlsx")
    (issue,) = [i for i in report.issues if i.code == "unknown_column"]
    assert 'Did you mean "query"?' in issue.message


def test_merged_cells_message_names_the_range() -> None:
    report = validate_file(FIXTURES / X / "merged_cells.xlsx")
    assert [i.code for i in report.issues] == ["merged_cells"]  # the merged value fills the range: no cascade
    assert "A2:A4" in report.issues[0].message


def test_unreadable_messages_say_what_the_file_really_is() -> None:
    expected = {
        "unreadable_file_xls_named_xlsx.xlsx": "old .xls workbook",
        "unreadable_file_xlsx_named_xls.xls": "Rename it to .xlsx",
        "unreadable_file_encrypted.xlsx": "password-protected",
        "unreadable_file_html.xls": "web page",
        "unreadable_file_csv.xlsx": "plain text",
        "unreadable_file_truncated.xlsx": "truncated",
        "unreadable_file_docx.xlsx": "Word document",
        "unreadable_file_far_cell.xlsx": "reaches row 1,048,576 and column XFD",
    }
    for name, words in expected.items():
        (issue,) = validate_file(FIXTURES / X / name).issues
        assert words in issue.message, name


CLI_CASES = [
    (X + "merged_cells.xlsx", "merged_cells", at(2, ID)),
    (X + "duplicate_session_id.xlsx", "duplicate_session_id", at(4, ID)),
    (X + "unreadable_file_random.xlsx", "unreadable_file", {"sheet": None, "row": None}),
]


@pytest.mark.parametrize(("fixture", "code", "place"), CLI_CASES, ids=[c[1] for c in CLI_CASES])
def test_cli_validate_json(fixture: str, code: str, place: dict[str, Any]) -> None:
    result = CliRunner().invoke(app, ["validate", "--json", str(FIXTURES / fixture)])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    (file,) = report["files"]
    assert file["valid"] is False
    assert any(i["code"] == code and all(i[k] == v for k, v in place.items()) for i in file["issues"])


def test_cli_validate_valid_excel_exits_zero() -> None:
    result = CliRunner().invoke(app, ["validate", "--json", str(FIXTURES / "seed/seed_excel_multi_turn.xlsx")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["files"][0]["format"] == "excel-multi-turn"


def test_zip_bomb_is_refused_before_it_is_unpacked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import zipfile

    from formatkit._reading import xlsx as excel_xlsx

    # The real bounds are 100 MiB packed better than 1000:1; scaled down so that the test stays fast.
    monkeypatch.setattr(excel_xlsx, "BOMB_MIN_BYTES", 1024**2)
    monkeypatch.setattr(excel_xlsx, "MAX_RATIO", 500)
    source = (FIXTURES / X / "no_records.xlsx").read_bytes()  # little text: the padding sets the ratio
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(source)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            body = src.read(name)
            if name == "xl/worksheets/sheet1.xml":
                body = body.replace(b"<sheetData>", b"<sheetData>" + b" " * 4 * 1024**2)
            dst.writestr(name, body)
    bomb = tmp_path / "bomb.xlsx"
    bomb.write_bytes(out.getvalue())
    (issue,) = validate_file(bomb).issues
    assert issue.code == "unreadable_file" and "zip bomb" in issue.message


def test_extra_sheet_is_found_without_reading_its_grid() -> None:
    """The far-cell guard covers only the first sheet; other sheets are only searched for a value."""
    report = validate_file(FIXTURES / X / "extra_sheet.xlsx")
    assert [(i.code, i.sheet) for i in report.issues] == [("extra_sheet", "备注")]


def test_reading_leaves_no_thread_and_restores_the_garbage_collector() -> None:
    import gc
    import threading

    from formatkit import iter_dicts

    threads = threading.active_count()
    assert gc.isenabled()
    validate_file(FIXTURES / "seed/seed_excel_multi_turn.xlsx")
    assert gc.isenabled() and threading.active_count() == threads
    records = cast(Generator[dict[str, Any], None, None], iter_dicts(FIXTURES / "valid/excel_single_turn.xlsx"))
    next(records)
    assert gc.isenabled()  # paused only while the reader works, not while the caller has a record
    records.close()  # reading abandoned half-way
    assert gc.isenabled() and threading.active_count() == threads
