"""A table's cells as formatkit reads them: each row's text, cell by cell, as the rules see it.

A number shows as Excel shows it under its format, a date as its ISO text, ``TRUE``/``FALSE`` for a
boolean, an error value as its text (``#N/A``), a formula with no saved result as ``=``: the text a record
gets from the cell, whatever problem ``validate`` reports there. For a preview of what the platform reads
(``formatkit serve``'s page marks the cells that hold an issue).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from formatkit._core.errors import UnreadablePathError
from formatkit._core.issues import IssueSink
from formatkit._reading.cells import Unreadable, column_letter
from formatkit._reading.workbook import read_sheet
from formatkit._rules.excel_values import text_value

__all__ = ["SheetRows", "sheet_rows"]

StrPath = str | os.PathLike[str]


@dataclass(frozen=True)
class SheetRows:
    """The sheet that is read: its name, its column letters (``A``, ``B``...), the rows kept (Excel's row
    number and the text of each cell, ``""`` for an empty one; empty rows are left out) and how many rows
    the sheet has in all."""

    sheet: str
    columns: list[str]
    rows: list[tuple[int, list[str]]]
    total: int


def sheet_rows(path: StrPath, *, sheet: str | None = None, limit: int | None = None) -> SheetRows:
    """The cells of the sheet ``validate`` reads in a workbook or CSV file (the first, or ``sheet`` by
    name), as text; at most ``limit`` non-empty rows. :class:`~formatkit.errors.UnreadablePathError`, with
    the reason validate would give, when the file is not a table formatkit can read."""
    try:
        data = read_sheet(Path(path), sheet)
    except Unreadable as problem:
        raise UnreadablePathError(f"{path}: {problem.message.render()}") from None
    quiet = IssueSink(str(path), keep=0)  # the cells' problems are validate's to report
    width = max((len(row) for row in data.rows), default=0)
    rows: list[tuple[int, list[str]]] = []
    total = 0
    for index, row in enumerate(data.rows):
        cells = [text_value(value, {}, quiet) or "" for value in row]
        if not any(cells):
            continue
        total += 1
        if limit is None or len(rows) < limit:
            rows.append((index + 1, cells + [""] * (width - len(cells))))
    return SheetRows(data.name, [column_letter(j) for j in range(width)], rows, total)
