"""Excel files (.xlsx, .xls): the first sheet, its header, rows and sessions, as Drafts.

The work is split by concern: :mod:`formatkit._reading.cells` reads the sheet (calamine for .xlsx, xlrd for
.xls) into plain values; :mod:`formatkit._rules.excel_header`, :mod:`~formatkit._rules.excel_rows` and
:mod:`~formatkit._rules.excel_sessions` apply the rules of docs/pages/reference/formats.md. Rows must all be
read before the first record is known (a repeated session_id anywhere makes the file multi-turn), so the sheet
is held in memory; the records are still produced one at a time.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from formatkit._building.record import clean_target
from formatkit._core.draft import Draft
from formatkit._core.issues import Format, IssueSink
from formatkit._core.messages import Msg
from formatkit._core.modes import Mode
from formatkit._core.record import RecordDict
from formatkit._reading.cells import SheetData, Unreadable, column_letter
from formatkit._reading.workbook import read_sheet
from formatkit._rules.excel_header import (
    HEADER_SEARCH_ROWS,
    Header,
    header_names,
    header_row,
    names_a_column,
    read_header,
)
from formatkit._rules.excel_order import order_rows
from formatkit._rules.excel_rows import Row, last_data_row, read_rows
from formatkit._rules.excel_sessions import Context, group_rows, make_draft
from formatkit._rules.excel_sheet import check_hidden, is_notes_sheet, merged_example
from formatkit._rules.parameters import check_parameters, clean_parameters_text

__all__ = ["ExcelReader"]


class ExcelReader:
    """Reads the first sheet of a table (an .xlsx or .xls workbook, or any format whose cells a ``sheet``
    function of :mod:`formatkit._core.formats` reads), or the sheet named ``sheet``."""

    def __init__(
        self,
        path: Path,
        *,
        mode: Mode,
        sink: IssueSink,
        max_rows: int | None,
        fast: bool = True,
        sheet: str | None = None,
        start: object = None,
    ) -> None:
        """``start`` (a part of a jsonl file) does not apply to a table: ignored."""
        self.path = path
        self.sheet = sheet
        #: Build a row that passes every rule on cheap checks straight into its record (same bytes).
        self.fast = fast
        self.mode = mode
        self.sink = sink
        self.max_rows = max_rows
        self.format: Format | None = None
        self.rows = 0

    def drafts(self) -> Iterator[Draft | RecordDict]:
        # Reading builds hundreds of thousands of small objects, none in a reference cycle, that the
        # cyclic garbage collector would rescan again and again: it is paused while the sheet is read
        # (never while the caller handles a record), and restored however reading ends.
        enabled = gc.isenabled()
        gc.disable()
        try:
            prepared = self._read()
        finally:
            if enabled:
                gc.enable()
        if prepared is not None:
            fmt, groups, ctx = prepared
            if not self.fast:
                for position, group in enumerate(groups):
                    groups[position] = _HANDED_OUT
                    yield make_draft(group, fmt, ctx)
                return
            fast = _FastRecords(self.mode, ctx.file, fmt, ctx.sheet, ctx.dataset)
            for position, group in enumerate(groups):
                groups[position] = _HANDED_OUT
                if len(group) == 1:
                    record = fast.record(group[0], position)
                    if record is not None:
                        yield record
                        continue
                yield make_draft(group, fmt, ctx)

    def _read(self) -> tuple[Format, list[list[Row]], Context] | None:
        """Read and check the whole sheet; the records' row groups, or None when none can be built."""
        try:
            data = read_sheet(self.path, self.sheet)
        except Unreadable as problem:
            self.sink.add(problem.code, problem.message, **problem.place)
            return None
        sheet = data.name
        for code, message in data.notes:
            self.sink.add(code, message, sheet=sheet)
        self._extra_sheets(data)
        rows = data.rows
        data.merged = list(dict.fromkeys(data.merged))  # a range listed 5,000 times is one range
        _fill_merged(rows, data.merged)
        end = last_data_row(rows)
        if end < 0:
            self._empty(data)
            return None
        if (
            self.sheet is None
            and data.extra_sheets
            and not any(names_a_column(row) for row in rows[:HEADER_SEARCH_ROWS])
        ):
            # An instruction sheet before the data: the cause, said once; its header and rows are no set's
            # (a title row above a header is not one: the missing-column error says which row to move up)
            self.sink.add(
                "no_records",
                Msg("no_records.first_sheet_not_data", sheet=sheet, other=data.extra_sheets[0]),
                sheet=sheet,
                row=1,
            )
            return None
        found = header_row(rows[:HEADER_SEARCH_ROWS])
        if found is not None:
            # Title or note rows above the header: said once, where the header is; the sheet is not read
            # from that row silently (``formatkit fix`` moves the rows above it to a sheet of their own).
            names = ", ".join(f'"{name}"' for name in header_names(rows[found]))
            above = "1" if found == 1 else f"1–{found}"
            self.sink.add(
                "header_not_first_row",
                Msg(
                    "header_not_first_row.csv" if data.from_csv else "header_not_first_row",
                    row=found + 1,
                    names=names,
                    rows=above,
                    count=found,
                ),
                sheet=sheet,
                row=found + 1,
            )
            return None
        header = read_header(
            rows[0],
            _headerless_data(rows, end),
            sheet=sheet,
            mode=self.mode,
            sink=self.sink,
            below=rows[1:HEADER_SEARCH_ROWS],
        )
        self._merged(data, header)
        check_hidden(data, header, end + 1, self.sink)
        if end == 0:
            self.sink.add(
                "no_records",
                Msg("no_records.header_only", sheet=sheet),
                sheet=sheet,
                row=2,
            )
            return None
        records = read_rows(
            rows, header, sheet=sheet, sink=self.sink, max_rows=self.max_rows, true_length=data.true_length
        )
        data.rows = []  # the Row objects hold what is needed; let the cells go
        del rows
        self.rows = len(records)
        ctx = Context(str(self.path), self.path.stem, sheet, header, self.sink)
        records = order_rows(records, ctx)  # an exported sheet people sorted: back in export's order
        fmt, groups, orphans = group_rows(records, ctx)
        self.format = fmt
        for row in orphans:
            self._parameters_only([row], fmt, ctx)
        if header.missing:
            # Every record would fail the same missing column, reported once in row 1.
            for group in groups:
                self._parameters_only(group, fmt, ctx)
            return None
        return fmt, groups, ctx

    def _parameters_only(self, group: list[Row], fmt: Format, ctx: Context) -> None:
        """Rows that make no record still have their parameters checked: no problem stays hidden."""
        draft = make_draft(group, fmt, ctx)
        check_parameters(draft.parameters, draft.parameters_place, self.sink)

    def _extra_sheets(self, data: SheetData) -> None:
        # A hidden first sheet is still the one read, though Excel shows the user another one.
        first = Msg("frag.first_sheet_hidden" if data.hidden else "frag.first_sheet", sheet=data.name)
        for name in data.extra_sheets:
            # a notes sheet (the one ``fix`` writes title rows to, or one named so) is not told to move its rows
            self.sink.add(
                "extra_sheet",
                Msg("extra_sheet.notes" if is_notes_sheet(name) else "extra_sheet", sheet=name, first=first),
                sheet=name,
            )

    def _empty(self, data: SheetData) -> None:
        if self.sheet is not None:
            self.sink.add("empty_file", Msg("empty_file.named_sheet", sheet=data.name), sheet=data.name)
        elif data.extra_sheets:
            self.sink.add(
                "no_records",
                Msg("no_records.first_sheet_empty", sheet=data.name, other=data.extra_sheets[0]),
                sheet=data.name,
            )
        else:
            self.sink.add(
                "empty_file",
                Msg("empty_file.sheet"),
                sheet=data.name,
            )

    def _merged(self, data: SheetData, header: Header) -> None:
        for r0, c0, r1, c1 in data.merged:
            if r0 == r1 and c0 == c1:
                continue
            span = f"{column_letter(c0)}{r0 + 1}:{column_letter(c1)}{r1 + 1}"
            self.sink.add(
                "merged_cells",
                Msg("merged_cells", span=span, example=merged_example(r0, c0, header)),
                sheet=data.name,
                row=r0 + 1,
                column=header.label(c0),
            )


class _FastRecords:
    """The canonical record of a one-row record whose cells pass every rule, as build_record makes it from
    make_draft's Draft (the same bytes; tests/formats/test_fast_paths.py compares the two paths)."""

    __slots__ = ("dataset", "file", "fmt", "mode", "sheet")

    def __init__(self, mode: Mode, file: str, fmt: Format, sheet: str, dataset: str) -> None:
        self.mode = mode
        self.file = file
        self.fmt = fmt
        self.sheet = sheet
        self.dataset = dataset

    def record(self, row: Row, position: int) -> RecordDict | None:
        """The record of ``row``; None when a rule might have something to say (the full path decides)."""
        if row.results or row.raw is not None:
            # output columns (score, model, …) are carried by the full path, and a number shown through
            # its format is warned about there (the stored value is kept)
            return None
        text = row.parameters
        parameters = {} if text is None else clean_parameters_text(text)
        if parameters is None:
            return None
        target = clean_target(self.mode, row.reference, row.response, parameters)
        if target is None:
            return None
        system = row.system
        sid = row.sid
        return {
            "session_id": sid if type(sid) is int else position,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": row.query or ""}, target]
            if system and not system.isspace()
            else [{"role": "user", "content": row.query or ""}, target],
            "meta": {
                "dataset": self.dataset,
                "source": {"file": self.file, "format": self.fmt, "sheet": self.sheet, "rows": [row.number]},
            },
        }


#: What a group's place in the list holds once drafts() has handed it out: its cells then go with its
#: record, not at the end. (Serialising a record gives each non-ASCII text a cached UTF-8 copy that lives
#: as long as the text: kept to the end, those copies raised the peak of a 100,000-row sheet by 30 MB.)
_HANDED_OUT: list[Row] = []


def _fill_merged(rows: list[list[Any]], merged: list[tuple[int, int, int, int]]) -> None:
    """Give every cell of a merged range the first cell's value, so the other rules see what the user
    sees (the merge itself is reported as an error).

    Linear in the cells covered: ranges of a valid workbook never overlap, so a range stops at the first
    cell an earlier range already filled (a crafted file listing one huge range thousands of times, or
    overlapping ones, costs no more than the grid once)."""
    filled: set[tuple[int, int]] = set()
    for r0, c0, r1, c1 in merged:
        if r0 >= len(rows) or (r0, c0) in filled:
            continue
        first = rows[r0]
        value = first[c0] if c0 < len(first) else ""
        overlap = False
        for r in range(r0, min(r1, len(rows) - 1) + 1):
            row = rows[r]
            for c in range(c0, min(c1, len(row) - 1) + 1):
                if (r, c) in filled:
                    overlap = True
                    break
                row[c] = value
                filled.add((r, c))
            if overlap:
                break


def _headerless_data(rows: list[list[Any]], end: int) -> list[bool]:
    """For each column whose row-1 cell is empty: whether a data row has a value in it."""
    width = max(len(rows[0]), max((len(r) for r in rows[1 : end + 1]), default=0))
    header = rows[0]
    flags = [False] * width
    for j in range(width):
        cell = header[j] if j < len(header) else ""
        if cell is not None and cell != "":
            continue
        flags[j] = any(j < len(row) and row[j] is not None and row[j] != "" for row in rows[1 : end + 1])
    return flags
