"""``POST /v1/preview`` (formatkit/serve/_preview.py) and :func:`formatkit.files.sheet_rows` under it: the rows
of one upload as formatkit reads them, at the rows and columns validate's issues name, so the page can mark
them; the same token, limits and empty upload folder as the other routes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from serving import FIXTURES, call, served, upload

import formatkit
from formatkit.errors import UnreadablePathError
from formatkit.files import csv_rows, sheet_rows
from formatkit.serve._preview import MAX_CELL_CHARS, MAX_ROWS, add_preview

INVALID = FIXTURES / "invalid"


def with_preview(app: FastAPI) -> FastAPI:
    if not any(getattr(route, "path", None) == "/v1/preview" for route in app.routes):
        add_preview(app)
    return app


@pytest.mark.parametrize(
    ("name", "cell", "text"),
    [
        ("excel/date_cell.xlsx", "D3", "2024-03-01"),  # a date: its ISO text, as the record would get it
        ("excel/date_cell.xls", "D3", "2024-03-01T00:00:00"),  # an .xls date is a date and time
        ("excel/error_cell.xlsx", "D3", "#N/A"),
        ("excel/boolean_cell.xlsx", None, "TRUE"),
        ("excel/invalid_parameters.xlsx", "E3", "temperature=0.7"),
    ],
)
def test_every_issue_of_a_sheet_falls_on_a_previewed_cell(
    tmp_path: Path, name: str, cell: str | None, text: str
) -> None:
    path = INVALID / name
    with served(tmp_path) as app:
        answer = call(with_preview(app), "POST", "/v1/preview", files=upload(path))
    assert answer.status_code == 200
    preview = answer.json()
    assert preview["kind"] == "table" and preview["file"] == path.name
    grid = {
        f"{column}{row['row']}": value
        for row in preview["rows"]
        for column, value in zip(preview["columns"], row["cells"], strict=True)
    }
    if cell is not None:
        assert grid[cell] == text
    report = formatkit.validate_file(path)
    placed = [i for i in report.issues if i.row is not None and i.column is not None]
    assert placed
    for issue in placed:
        assert issue.sheet == preview["sheet"]
        letters = str(issue.column).split(" ")[0]
        assert f"{letters}{issue.row}" in grid, issue
        if cell is None:
            assert grid[f"{letters}{issue.row}"] == text


def test_a_jsonl_file_gives_its_lines_at_the_numbers_validate_uses(tmp_path: Path) -> None:
    path = next(
        p for p in sorted((INVALID / "jsonl").glob("*.jsonl")) if any(i.line for i in formatkit.validate_file(p).issues)
    )
    with served(tmp_path) as app:
        preview = call(with_preview(app), "POST", "/v1/preview", files=upload(path)).json()
    assert preview["kind"] == "lines"
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    assert {row["line"]: row["text"] for row in preview["rows"]} == {
        n: text[:MAX_CELL_CHARS] if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"
        for n, text in enumerate(lines, 1)
    }
    for issue in formatkit.validate_file(path).issues:
        if issue.line is not None:
            assert 1 <= issue.line <= preview["total"]


def test_a_file_that_is_no_table_says_why_without_a_server_path(tmp_path: Path) -> None:
    with served(tmp_path) as app:
        answer = call(with_preview(app), "POST", "/v1/preview", files=[("file", ("notes.xlsx", b"just some text\n"))])
    assert answer.status_code == 200
    preview = answer.json()
    assert preview["kind"] is None and preview["rows"] == []
    assert preview["reason"].startswith("notes.xlsx: ")
    assert str(tmp_path) not in answer.text


def test_the_preview_is_bounded(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["session_id", "query", "reference_response"])
    for i in range(MAX_ROWS + 50):
        sheet.append([i, "问" * (MAX_CELL_CHARS + 10), "答"])
    path = tmp_path / "big.xlsx"
    book.save(path)
    with served(tmp_path) as app:
        preview = call(with_preview(app), "POST", "/v1/preview", files=upload(path)).json()
    assert len(preview["rows"]) == MAX_ROWS
    assert preview["total"] == MAX_ROWS + 51
    assert preview["rows"][1]["cells"][1] == "问" * (MAX_CELL_CHARS - 1) + "…"


def test_the_token_and_the_limits_hold(tmp_path: Path) -> None:
    path = INVALID / "excel" / "date_cell.xlsx"
    with served(tmp_path, token="s3cret", max_upload_mb=0.001) as app:
        app = with_preview(app)
        refused = call(app, "POST", "/v1/preview", files=upload(path))
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "unauthorized"
        for asked in ({"params": {"lang": "zh"}}, {"headers": {"Accept-Language": "zh-CN,en;q=0.5"}}):
            # said as the other routes say it, in the language asked for
            said = call(app, "POST", "/v1/preview", files=upload(path), **asked).json()
            assert said == call(app, "POST", "/v1/validate", files=upload(path), **asked).json()
            assert said != refused.json()
        too_big = call(app, "POST", "/v1/preview", files=upload(path), headers={"Authorization": "Bearer s3cret"})
        assert too_big.status_code == 413
        two = call(app, "POST", "/v1/preview", files=upload(path, path), headers={"Authorization": "Bearer s3cret"})
        assert two.status_code == 413


def test_sheet_rows_reads_a_csv_file_as_csv_rows_does() -> None:
    path = FIXTURES / "valid" / "csv_multi_turn_semicolon.csv"
    read = sheet_rows(path)
    assert read.columns == ["A", "B", "C"]
    assert read.rows == list(csv_rows(path))
    assert read.total == len(read.rows) == 4
    with pytest.raises(UnreadablePathError):
        sheet_rows(FIXTURES / "valid" / "crlf.jsonl")


def test_a_defect_answers_500_and_logs_no_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import formatkit.files

    def broken(path: object, **kwargs: object) -> None:
        raise RuntimeError("secret cell text")

    monkeypatch.setattr(formatkit.files, "sheet_rows", broken)
    with served(tmp_path) as app:
        answer = call(with_preview(app), "POST", "/v1/preview", files=upload(INVALID / "excel" / "date_cell.xlsx"))
    assert answer.status_code == 500
    assert answer.json()["error"]["code"] == "internal"
    assert "RuntimeError" in caplog.text
    assert "secret cell text" not in caplog.text + answer.text
