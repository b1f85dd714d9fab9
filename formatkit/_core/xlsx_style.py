"""Worksheets people can read, written so every cell reads back as written.

- The header row is bold and frozen, with an autofilter; columns are as wide as their content (CJK
  characters count double), capped; text wraps and each row is as tall as its longest wrapped cell.
- Numbers stay numbers. Text is always text: a cell beginning with ``=``, ``+``, ``-`` or ``@`` is a
  string, never a formula.
- Excel's XML escape ``_xHHHH_`` is applied where the file format needs it: ``\\r`` and control characters
  become ``_x000D_``, ``_x0007_`` … (which Excel, LibreOffice and calamine decode back), and text that
  already looks like ``_x0041_`` gets its underscore escaped (``_x005F_x0041_``) so it is not decoded.
- A text over Excel's 32,767-character limit is cut with a visible marker.
- Every sheet prints readably: landscape, fitted to one page wide (as many pages tall as it takes), the
  header row repeated on every page.
- A column may name its number format (:attr:`Sheet.formats`, e.g. :data:`P_VALUE_FORMAT` for p-values):
  the cell keeps its number, only its display changes.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EXCEL_MAX_TEXT", "P_VALUE_FORMAT", "Fill", "Sheet", "display_width", "safe_text", "write_sheet"]

EXCEL_MAX_TEXT = 32_767
TRUNCATED = "…[truncated by formatkit]"
_LOOKS_ESCAPED = re.compile(r"_(x[0-9A-Fa-f]{4}_)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\ufffe\uffff]")
_MIN_WIDTH, _MAX_WIDTH = 6.0, 60.0
_LINE_HEIGHT, _MAX_HEIGHT = 15.0, 409.0

#: Cell fills for scores: right, partial, wrong (light green, yellow, red).
Fill = str
FILLS: dict[str, str] = {"right": "C6EFCE", "partial": "FFEB9C", "wrong": "FFC7CE"}

#: A p-value as people read it: four decimals, and "<0.0001" below that (the cell stays the number).
P_VALUE_FORMAT = '[<0.0001]"<0.0001";0.0000'


def safe_text(value: str) -> str:
    """``value`` as a cell's text: length capped, ``_xHHHH_`` look-alikes and control characters escaped."""
    if len(value) > EXCEL_MAX_TEXT:
        value = value[: EXCEL_MAX_TEXT - len(TRUNCATED)] + TRUNCATED
    value = _LOOKS_ESCAPED.sub(r"_x005F_\1", value)
    return _CONTROL.sub(lambda m: f"_x{ord(m.group()):04X}_", value)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a spreadsheet: wide (CJK) characters count two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@dataclass
class Sheet:
    """One worksheet: a header, rows of values, and optionally a fill name per cell (``right`` …)."""

    title: str
    header: Sequence[str]
    rows: list[list[Any]] = field(default_factory=list)
    fills: list[list[Fill | None]] = field(default_factory=list)
    #: Columns whose numbers show with two decimals.
    decimals: set[str] = field(default_factory=set)
    #: Columns whose numbers show in a number format of their own (column name: Excel format).
    formats: dict[str, str] = field(default_factory=dict)


def _widths(sheet: Sheet) -> list[float]:
    widths = [float(display_width(str(h)) + 3) for h in sheet.header]  # room for the filter button
    for row in sheet.rows[:5000]:  # enough to size a column; a huge export does not measure every row
        for j, value in enumerate(row[: len(widths)]):
            if value is None:
                continue
            text = f"{value:.2f}" if isinstance(value, float) else str(value)
            longest = max((display_width(line) for line in text.split("\n")), default=0)
            widths[j] = max(widths[j], longest + 2.0)
    return [min(_MAX_WIDTH, max(_MIN_WIDTH, w)) for w in widths]


def _height(row: Sequence[Any], widths: Sequence[float]) -> float | None:
    """A row height that shows every line of its wrapped text cells (None: one line is enough)."""
    lines = 1
    for value, width in zip(row, widths, strict=False):
        if isinstance(value, str) and value:
            usable = max(1.0, width - 1)
            count = sum(max(1, math.ceil(display_width(line) / usable)) for line in value.split("\n"))
            lines = max(lines, count)
    return None if lines == 1 else min(_MAX_HEIGHT, lines * _LINE_HEIGHT)


def write_sheet(workbook: Any, sheet: Sheet) -> None:
    """Append ``sheet`` to a write-only openpyxl ``workbook``."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    ws = workbook.create_sheet(sheet.title[:31])
    widths = _widths(sheet)
    for j, width in enumerate(widths, start=1):
        ws.column_dimensions[get_column_letter(j)].width = width
    ws.freeze_panes = "A2"
    _print_setup(ws)
    last = get_column_letter(max(1, len(sheet.header)))
    ws.auto_filter.ref = f"A1:{last}{len(sheet.rows) + 1}"
    bold, wrap = Font(bold=True), Alignment(wrap_text=True, vertical="top")
    top = Alignment(vertical="top")
    fills = {name: PatternFill("solid", start_color=colour, end_color=colour) for name, colour in FILLS.items()}
    header = []
    for name in sheet.header:
        cell = WriteOnlyCell(ws, value=safe_text(str(name)))
        cell.data_type = "s"
        cell.font = bold
        header.append(cell)
    ws.append(header)
    decimals = {j for j, name in enumerate(sheet.header) if name in sheet.decimals}
    formats = {j: sheet.formats[name] for j, name in enumerate(sheet.header) if name in sheet.formats}
    for i, row in enumerate(sheet.rows):
        height = _height(row, widths)
        if height is not None:
            ws.row_dimensions[i + 2].height = height
        row_fills = sheet.fills[i] if i < len(sheet.fills) else []
        out = []
        for j, value in enumerate(row):
            if isinstance(value, str):
                cell = WriteOnlyCell(ws, value=safe_text(value))
                cell.data_type = "s"  # never a formula, whatever the text starts with
                cell.alignment = wrap
            else:
                cell = WriteOnlyCell(ws, value=value)
                cell.alignment = top
                if j in formats and isinstance(value, int | float) and not isinstance(value, bool):
                    cell.number_format = formats[j]
                elif j in decimals and isinstance(value, float):
                    cell.number_format = "0.00"
            fill = row_fills[j] if j < len(row_fills) else None
            if fill in fills:
                cell.fill = fills[fill]
            out.append(cell)
        ws.append(out)


def _print_setup(ws: Any) -> None:
    """Landscape, one page wide (any number tall), the header row on every page: a wide sheet printed
    with Excel's defaults runs to one page per few columns per few rows."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0  # as many pages tall as the rows take
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_title_rows = "1:1"
