"""Excel data rows → :class:`Row` objects: empty rows, the row limit, and every cell rule.

This is the hot loop of Excel validation (100,000 rows in well under a second): a plain string cell
is taken inline, and only other values go through :mod:`formatkit.rules.excel_values`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from formatkit.issues import IssueSink
from formatkit.readers.excel_cells import LongText
from formatkit.rules.excel_header import Header
from formatkit.rules.excel_values import MAX_CELL_CHARS, session_id_value, text_value

__all__ = ["Row", "last_data_row", "read_rows", "row_is_empty"]

_TEXT_COLUMNS = ("system_prompt", "query", "reference_response", "parameters", "response")


@dataclass(slots=True)
class Row:
    """One data row: its Excel row number and its cells, as text (None when empty)."""

    number: int
    #: int, None (empty), or excel_values.INVALID_ID (present but not an integer; already reported).
    sid: Any
    system: str | None
    query: str | None
    reference: str | None
    parameters: str | None
    response: str | None


def row_is_empty(row: list[Any]) -> bool:
    # any() is the fast test; a row of only 0 / False cells is rare and then checked exactly.
    return not any(row) and all(v is None or v == "" for v in row)


def last_data_row(rows: list[list[Any]]) -> int:
    """Index of the last non-empty row (0 is the header); -1 when the sheet is empty."""
    for index in range(len(rows) - 1, -1, -1):
        if not row_is_empty(rows[index]):
            return index
    return -1


def read_rows(
    rows: list[list[Any]],
    header: Header,
    *,
    sheet: str,
    sink: IssueSink,
    max_rows: int | None,
    true_length: Callable[[int, int], int] | None = None,
) -> list[Row]:
    """Read data rows 2..last; report empty rows between data rows, the row limit and cell problems."""
    end = last_data_row(rows)
    index = header.index
    sid_col = index.get("session_id")
    columns = [index.get(name) for name in _TEXT_COLUMNS]
    query_col = index.get("query")
    labels = header.labels
    out: list[Row] = []
    gap_start: int | None = None
    limit = MAX_CELL_CHARS

    for r in range(1, end + 1):
        row = rows[r]
        number = r + 1
        if row_is_empty(row):
            if gap_start is None:
                gap_start = number
            continue
        if gap_start is not None:
            _empty_rows(gap_start, number - 1, sheet, sink)
            gap_start = None
        if max_rows is not None and len(out) == max_rows:
            sink.add(
                "too_many_rows",
                f"Row {number} is data row {max_rows + 1:,}; the platform accepts at most {max_rows:,} rows per "
                "file. Split the sheet into several files, or use --profile none for local work.",
                sheet=sheet,
                row=number,
            )
        texts: list[str | None] = []
        for col in columns:
            if col is None:
                texts.append(None)
                continue
            value = row[col] if col < len(row) else ""
            if type(value) is str and 0 < len(value) < limit:
                texts.append(value)
            else:
                if type(value) is str and len(value) == limit and true_length is not None:
                    value = LongText(value, true_length(r, col))
                texts.append(text_value(value, {"sheet": sheet, "row": number, "column": labels[col]}, sink))
        sid: Any = None
        if sid_col is not None:
            value = row[sid_col] if sid_col < len(row) else ""
            if type(value) is float and value.is_integer():
                sid = int(value)
            else:
                sid = session_id_value(value, {"sheet": sheet, "row": number, "column": labels[sid_col]}, sink)
        query = texts[1]
        if query_col is not None and (query is None or query.isspace()):
            sink.add(
                "empty_text",
                "query is empty; every row needs the user's question. Fill it in, or delete the row.",
                sheet=sheet,
                row=number,
                column=labels[query_col],
            )
        out.append(Row(number, sid, texts[0], query, texts[2], texts[3], texts[4]))
    return out


def _empty_rows(first: int, last: int, sheet: str, sink: IssueSink) -> None:
    span = f"Row {first} is empty" if first == last else f"Rows {first}-{last} are empty"
    sink.add(
        "empty_row",
        f"{span} between data rows and skipped. Delete empty rows inside the table.",
        sheet=sheet,
        row=first,
    )
