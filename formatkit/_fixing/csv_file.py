"""Repairs of a CSV file: the workbook repairs (:func:`formatkit._fixing.excel.repair_workbook`, the same code
an .xlsx gets) on its cells, written back as CSV the way the input is written.

The copy keeps the input's encoding (UTF-8 with or without its byte-order mark, GBK, UTF-16), separator, line
breaks and ``sep=`` line; a row no repair touched is copied as it was written (its quoting and ``="0123"``
cells included), a repaired row is written again with the same separator. A CSV holds one sheet: the title
or note rows above a header, which an .xlsx keeps on a sheet of their own, are removed from the copy and
said word for word in the change (the input, never written by fix, keeps them).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from formatkit._core.errors import RepairError
from formatkit._fixing.changes import Change, Repaired, shown
from formatkit._fixing.excel import repair_workbook
from formatkit._fixing.excel_book import Book
from formatkit._reading.cells import Unreadable
from formatkit._reading.csv_file import CsvLayout, csv_records, decode_csv, raw_fields, unwrap_cell

__all__ = ["repair_csv"]


def repair_csv(source: Path) -> Repaired | None:
    """The repaired copy of the CSV file ``source``, or None when it cannot be decoded (validate says why)."""
    data = source.read_bytes()
    try:
        text, layout = decode_csv(data)
        rows = list(csv_records(text, layout))
    except Unreadable:
        return None
    try:
        book, title = _workbook(rows)
        changes = repair_workbook(book)
    except Exception as exc:  # openpyxl refuses what a CSV may hold (a sheet past its bounds): not repaired
        raise RepairError(f"{type(exc).__name__}: {exc}"[:300]) from exc
    if not changes:
        return Repaired(data, [], [])  # nothing to repair: the original, byte for byte
    changes = [_in_csv(change, title, source.stem) for change in changes]
    removed = next((c.number("count") for c in changes if c.code == "title_rows_removed"), 0)
    written = _written(rows, book.workbook.worksheets[0], removed, layout)
    notes = [Change(code="csv_kept", data={"encoding": layout.label, "separator": shown(layout.delimiter)})]
    return Repaired(written, changes, notes)


def _workbook(rows: list[tuple[int, list[str], str]]) -> tuple[Book, str]:
    """The CSV's cells on the one sheet of a new workbook, every cell text (a cell starting with ``=`` is
    not made a formula)."""
    import openpyxl

    workbook = openpyxl.Workbook()
    ws = workbook.active
    for r, (_, cells, _) in enumerate(rows, start=1):
        for c, cell in enumerate(cells, start=1):
            value = unwrap_cell(cell)
            if value:
                target = ws.cell(row=r, column=c)
                target._value = value  # as written: the value setter would make "=…" a formula
                target.data_type = "s"
    return Book(workbook, from_xls=False), str(ws.title)


def _in_csv(change: Change, title: str, sheet: str) -> Change:
    """A workbook change as the CSV's copy makes it: at the sheet the CSV is read as; title rows removed."""
    update: dict[str, object] = {"sheet": sheet} if change.sheet == title else {}
    if change.code == "title_rows_moved":
        update["code"] = "title_rows_removed"
    return change.model_copy(update=update) if update else change


def _written(rows: list[tuple[int, list[str], str]], ws: Any, removed: int, layout: CsvLayout) -> bytes:
    """The copy's text: the rows below the removed title rows, each as it was written unless a repair
    changed one of its cells (then written again, its other cells as they were written)."""
    out = io.StringIO(newline="")
    out.write(layout.sep_line)
    for r, (_, cells, source) in enumerate(rows[removed:], start=1):
        values = [ws.cell(row=r, column=c).value for c in range(1, len(cells) + 1)]
        if all(_same(value, cell) for value, cell in zip(values, cells, strict=True)):
            out.write(source)
            continue
        body = source.rstrip("\r\n")
        raw, _ = raw_fields(body, layout.delimiter)
        if len(raw) != len(cells):  # a malformed row the reader read leniently: every cell written again
            raw = [_quoted(cell, layout.delimiter) for cell in cells]
        fields = [
            raw[j] if _same(value, cell) else _quoted(_text(value), layout.delimiter)
            for j, (value, cell) in enumerate(zip(values, cells, strict=True))
        ]
        out.write(layout.delimiter.join(fields) + source[len(body) :])
    return out.getvalue().encode(layout.encoding)


def _quoted(text: str, delimiter: str) -> str:
    """A cell as the csv module writes it with the row's separator (quoted when it must be)."""
    if not text:
        return ""
    line = io.StringIO(newline="")
    csv.writer(line, delimiter=delimiter, lineterminator="\n").writerow([text])
    return line.getvalue()[:-1]


def _same(value: Any, cell: str) -> bool:
    return _text(value) == unwrap_cell(cell)


def _text(value: Any) -> str:
    return "" if value is None else str(value)
