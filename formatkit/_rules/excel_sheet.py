"""Sheet-level rules of FORMATS.md about what Excel does not show: hidden rows and columns, rows an
AutoFilter hides, and an Excel table's totals row. Each is a warning that names the rows or columns, so
nothing the user never saw goes into the evaluation set without a word."""

from __future__ import annotations

from collections.abc import Iterable

from formatkit._core.issues import IssueSink
from formatkit._reading.cells import SheetData, column_letter
from formatkit._rules.excel_header import Header

__all__ = ["check_hidden", "spans"]

_MAX_SPANS = 12


def spans(numbers: Iterable[int], *, letters: bool = False) -> str:
    """Sorted numbers as compact spans: ``3-5, 9, 12`` (column letters with ``letters``)."""
    values = sorted(set(numbers))
    runs: list[tuple[int, int]] = []
    for value in values:
        if runs and value == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], value)
        else:
            runs.append((value, value))

    def name(n: int) -> str:
        return column_letter(n) if letters else str(n)

    parts = [name(a) if a == b else f"{name(a)}-{name(b)}" for a, b in runs[:_MAX_SPANS]]
    if len(runs) > _MAX_SPANS:
        parts.append(f"… ({len(values):,} in all)")
    return ", ".join(parts)


def check_hidden(data: SheetData, header: Header, last_row: int, sink: IssueSink) -> None:
    """Warn about hidden rows and columns inside the table (1..last_row) and about totals rows."""
    sheet = data.name
    totals = [r for r in data.totals_rows if 2 <= r <= last_row]
    skip = set(totals)
    rows = [r for r in data.hidden_rows if 1 <= r <= last_row and r not in skip]
    if rows:
        plural = len(rows) > 1
        what = "filtered out by the AutoFilter or hidden" if data.filtered else "hidden"
        sink.add(
            "hidden_rows",
            f"Row{'s' if plural else ''} {spans(rows)} {'are' if plural else 'is'} {what} in Excel but "
            f"{'are' if plural else 'is'} read like every other row. Unhide them (select all → right-click a "
            "row number → Unhide; Data → Clear for a filter) and check them, or delete the rows you do not "
            "want evaluated.",
            sheet=sheet,
            row=rows[0],
        )
    width = len(header.labels)
    cols = [c for c in data.hidden_cols if c < width and header.labels[c] != column_letter(c)]
    if cols:
        names = ", ".join(header.labels[c] for c in cols[:_MAX_SPANS])
        sink.add(
            "hidden_columns",
            f"Column{'s' if len(cols) > 1 else ''} {names} {'are' if len(cols) > 1 else 'is'} hidden in Excel "
            "but read. Unhide (select all → right-click a column letter → Unhide) and check them.",
            sheet=sheet,
            row=1,
            column=header.labels[cols[0]],
        )
    if totals:
        sink.add(
            "totals_row",
            f"Row{'s' if len(totals) > 1 else ''} {spans(totals)} {'are' if len(totals) > 1 else 'is'} the "
            "totals row of an Excel table and read as a record. Turn it off (Table Design → Total Row) or "
            "delete it.",
            sheet=sheet,
            row=totals[0],
        )
