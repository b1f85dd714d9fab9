"""Excel data rows → :class:`Row` objects: empty rows, the row limit, and every cell rule.

This is the hot loop of Excel validation (100,000 rows in about 0.2 s): a row whose cells are all plain
strings passes one test, and only other values go through :mod:`formatkit._rules.excel_values`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._reading.cells import LongText, Shown, column_letter
from formatkit._rules.excel_header import COLUMNS, Header
from formatkit._rules.excel_values import MAX_CELL_CHARS, MAX_ID, session_id_value, text_value

__all__ = ["Row", "last_data_row", "read_rows", "row_is_empty"]


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
    #: Stored numbers of cells whose number format shows them otherwise, by cell address ("B7": 3.14159).
    raw: dict[str, float | int] | None = None
    #: Known output columns of the row (score, analysis, usage, model, …) with their raw values.
    results: dict[str, Any] | None = None


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
    """Read data rows 2..last; report empty rows between data rows, the row limit and cell problems.

    Every row gets one empty cell appended, the stand-in for a column the sheet lacks, so that a single
    ``itemgetter`` call takes a row's six cells; the common row (plain strings) then costs one test.
    """
    end = last_data_row(rows)
    index = header.index
    columns = [index.get(name, -1) for name in COLUMNS]
    _pad(rows, end, max(columns) + 1)
    cells = itemgetter(*columns)
    has_query = "query" in index
    outputs = [(name, col) for name, col in index.items() if name not in COLUMNS]
    limit = MAX_CELL_CHARS
    out: list[Row] = []
    gap_start: int | None = None

    for r in range(1, end + 1):
        row = rows[r]
        number = r + 1
        if not any(row) and row_is_empty(row):
            if gap_start is None:
                gap_start = number
            continue
        if gap_start is not None:
            _empty_rows(gap_start, number - 1, sheet, sink)
            gap_start = None
        if max_rows is not None and len(out) == max_rows:
            _too_many(number, max_rows, rows[r : end + 1], sheet, sink)
            break  # the platform refuses the file: checking the rest would only cost time and memory
        sid, system, query, reference, parameters, response = cells(row)
        if not (
            type(system) is str
            and type(query) is str
            and type(reference) is str
            and type(parameters) is str
            and type(response) is str
            and len(system) < limit
            and len(query) < limit
            and len(reference) < limit
            and len(parameters) < limit
            and len(response) < limit
        ):
            system, query, reference, parameters, response = (
                _slow_text(row[col], r, col, header, sheet, sink, true_length) if col >= 0 else ""
                for col in columns[1:]
            )
            raw = _raw_values(row, r, columns)
        else:
            raw = None
        if type(sid) is float and sid.is_integer() and -MAX_ID < sid < MAX_ID:
            sid = int(sid)
        else:
            sid = _session_id(sid, number, header.label(columns[0]), sheet, sink)
        if has_query and (not query or query.isspace()):
            sink.add("empty_text", Msg("empty_text"), sheet=sheet, row=number, column=header.label(columns[2]))
        out.append(
            Row(
                number,
                sid,
                system or None,
                query or None,
                reference or None,
                parameters or None,
                response or None,
                raw,
            )
        )
        if outputs:
            out[-1].results = {name: row[col] for name, col in outputs if row[col] is not None and row[col] != ""}
    return out


def _slow_text(
    value: Any,
    r: int,
    col: int,
    header: Header,
    sheet: str,
    sink: IssueSink,
    true_length: Callable[[int, int], int] | None,
) -> str:
    """A cell that is not a plain short string: converted, its problem reported; "" when empty."""
    if type(value) is str and len(value) == MAX_CELL_CHARS and true_length is not None:
        value = LongText(value, true_length(r, col))
    text = text_value(value, {"sheet": sheet, "row": r + 1, "column": header.label(col)}, sink)
    return "" if text is None else text


def _raw_values(row: list[Any], r: int, columns: list[int]) -> dict[str, float | int] | None:
    """The stored numbers of the text cells shown through a number format, by cell address."""
    raw = {
        f"{column_letter(col)}{r + 1}": row[col].raw
        for col in columns[1:]
        if col >= 0 and type(row[col]) is Shown and row[col].rendered
    }
    return raw or None


def _session_id(sid: Any, number: int, column: str, sheet: str, sink: IssueSink) -> Any:
    """A session_id cell that is not a whole float: None when empty, an id written as text (a CSV's) as what
    session_id_value makes of it without a place, anything else checked at its place."""
    if sid == "":
        return None
    if type(sid) is str and len(sid) < 16 and sid.isascii() and sid.isdigit():
        return int(sid)
    return session_id_value(sid, {"sheet": sheet, "row": number, "column": column}, sink)


def _pad(rows: list[list[Any]], end: int, width: int) -> None:
    """Rows 0..end made ``width`` cells long, plus one empty cell: the stand-in for a column the sheet lacks."""
    for r in range(end + 1):
        row = rows[r]
        if len(row) < width:
            row.extend([""] * (width - len(row)))
        row.append("")


def _too_many(number: int, max_rows: int, rest: list[list[Any]], sheet: str, sink: IssueSink) -> None:
    """Past the limit: how many data rows the sheet holds, so the user knows into how many files to split it
    (counted only here; an empty row costs one test)."""
    total = max_rows + sum(1 for row in rest if not row_is_empty(row))
    files = -(-total // max_rows)
    sink.add(
        "too_many_rows",
        Msg("too_many_rows", row=number, index=max_rows + 1, limit=max_rows, total=total, files=files),
        sheet=sheet,
        row=number,
    )


def _empty_rows(first: int, last: int, sheet: str, sink: IssueSink) -> None:
    sink.add(
        "empty_row",
        Msg("empty_row", first=first) if first == last else Msg("empty_row.span", first=first, last=last),
        sheet=sheet,
        row=first,
    )
