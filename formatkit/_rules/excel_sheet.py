"""Sheet-level rules of docs/pages/reference/formats.md about what Excel does not show: hidden rows and columns, rows an
AutoFilter hides, and an Excel table's totals row. Each is a warning that names the rows or columns, so
nothing the user never saw goes into the evaluation set without a word."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._reading.cells import SheetData, column_letter
from formatkit._rules.excel_header import Header

__all__ = ["NOTES_SHEET", "check_hidden", "is_notes_sheet", "merged_example", "spans"]

#: The sheet ``formatkit fix`` moves the title and note rows above a header to (a number is added when the
#: name is taken: "说明 2").
NOTES_SHEET = "说明"

#: Sheet names that say a sheet holds notes for people, not records (compared after NFKC, case folding and
#: dropping a trailing number): such a sheet beside the data is said to be unread without advice to move it.
_NOTES_NAMES = frozenset({NOTES_SHEET, "填写说明", "使用说明", "notes", "note", "readme", "instructions"})


def is_notes_sheet(name: str) -> bool:
    """Whether a sheet's name says it holds notes (``说明``, ``说明 2``, ``Notes``, ``README``, …)."""
    folded = unicodedata.normalize("NFKC", name).casefold().strip().rstrip("0123456789").strip()
    return folded in _NOTES_NAMES


_MAX_SPANS = 12


def spans(numbers: Iterable[int], *, letters: bool = False) -> Msg | str:
    """Sorted numbers as compact spans: ``3-5, 9, 12`` (column letters with ``letters``); past a dozen
    spans, a message piece that says how many there are in all."""
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
        return Msg("frag.spans_more", spans=", ".join(parts), count=len(values))
    return ", ".join(parts)


def check_hidden(data: SheetData, header: Header, last_row: int, sink: IssueSink) -> None:
    """Warn about hidden rows and columns inside the table (1..last_row) and about totals rows."""
    sheet = data.name
    totals = [r for r in data.totals_rows if 2 <= r <= last_row]
    skip = set(totals)
    rows = [r for r in data.hidden_rows if 1 <= r <= last_row and r not in skip]
    if rows:
        plural = len(rows) > 1
        what = Msg("frag.filtered" if data.filtered else "frag.hidden")
        sink.add(
            "hidden_rows",
            Msg("hidden_rows.many" if plural else "hidden_rows", rows=spans(rows), what=what),
            sheet=sheet,
            row=rows[0],
        )
    width = len(header.labels)
    cols = [c for c in data.hidden_cols if c < width and header.labels[c] != column_letter(c)]
    if cols:
        names = ", ".join(header.labels[c] for c in cols[:_MAX_SPANS])
        sink.add(
            "hidden_columns",
            Msg("hidden_columns.many" if len(cols) > 1 else "hidden_columns", columns=names),
            sheet=sheet,
            row=1,
            column=header.labels[cols[0]],
        )
    if totals:
        sink.add(
            "totals_row",
            Msg("totals_row.many" if len(totals) > 1 else "totals_row", rows=spans(totals)),
            sheet=sheet,
            row=totals[0],
        )


def merged_example(row: int, column: int, header: Header) -> Msg:
    """What to fill into the cells of a merged range starting at 0-based (row, column): the hint names
    that column's own case (a session_id down a session, a system_prompt down a session, a header)."""
    if row == 0:
        return Msg("frag.merged_example.header")
    for name in ("session_id", "system_prompt"):
        if header.index.get(name) == column:
            return Msg(f"frag.merged_example.{name}")
    return Msg("frag.merged_example.column", column=header.label(column))
