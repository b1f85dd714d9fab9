"""Repairs of a workbook (openpyxl), each with exactly one right answer:

- title or note rows above the header (a template's merged title, 填写人…): moved to a new sheet
  "说明", the header becomes row 1 (found by :func:`formatkit._rules.excel_header.header_row`, as validate
  finds it); merged ranges in those rows go with them, ranges below move up;
- the data sheet is not the first sheet (only the first is read): the one sheet whose row 1 names the
  known columns is moved to the front;
- a header written in Chinese, full-width, another case or as an alias: renamed to the column it names
  (through :func:`formatkit._rules.excel_header.header_name`, the table the header rule reads);
- ``session_id``, ``system_prompt`` or ``parameters`` merged down rows: unmerged, the value written into
  every row (what the reader already reads, and what the user sees);
- parameters typed with a Chinese input method or as ``key=value``: rewritten as JSON
  (:func:`formatkit._rules.parameters.repair_parameters_text`);
- spaces around a session_id typed as text: trimmed (an integer is written as a number).

A formula in the data sheet is replaced by its saved value, because openpyxl cannot keep saved values:
the rewritten sheet would otherwise hold formulas with nothing to read. Everything else is left for
``validate`` to report.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from formatkit._core.errors import RepairError, RepairRefusedError
from formatkit._core.issues import IssueSink
from formatkit._fixing.changes import Change, Repaired, shown
from formatkit._fixing.excel_book import Book, lost_parts, open_book, save_book
from formatkit._reading.cells import column_letter
from formatkit._rules.excel_header import HEADER_SEARCH_ROWS, header_name, header_row
from formatkit._rules.excel_sheet import NOTES_SHEET
from formatkit._rules.excel_values import session_id_value
from formatkit._rules.parameters import repair_parameters_text

__all__ = ["repair_excel", "repair_workbook"]

#: Columns whose merged cells mean "the same value on every row" (the session's id, prompt, parameters).
FILL_DOWN = ("session_id", "system_prompt", "parameters")


def repair_excel(source: Path) -> Repaired | None:
    """The repaired copy of the workbook ``source`` (an .xls is rewritten as .xlsx), or None when openpyxl
    or xlrd cannot open it (nothing to repair: validate says why); RepairError, saying why, when they
    cannot open it though validate may read it (:func:`formatkit.fix_file` decides)."""
    try:
        book = open_book(source)
    except RepairRefusedError:
        raise
    except Exception as exc:
        raise RepairError(f"{type(exc).__name__}: {exc}"[:300]) from exc
    changes = repair_workbook(book)
    notes: list[Change] = []
    if book.from_xls:
        notes.append(Change(code="xls_converted"))
    if not changes and not book.from_xls:
        return Repaired(source.read_bytes(), changes, notes)  # nothing to repair: the original, byte for byte
    data = save_book(book)
    if not book.from_xls:
        lost = lost_parts(source, data)
        if lost:
            notes.append(Change(code="parts_lost", data={"parts": lost}))
    return Repaired(data, changes, notes)


def repair_workbook(book: Book) -> list[Change]:
    """Repair ``book`` in place; the changes made, by kind (sheet, header, merges, formulas, cells)."""
    workbook = book.workbook
    changes: list[Change] = []
    moved = _data_sheet_first(workbook)
    if moved is not None:
        changes.append(moved)
    if not workbook.worksheets:
        return changes
    ws = workbook.worksheets[0]
    removed = _title_rows(workbook, ws)
    if removed is not None:
        changes.append(removed)
    shift = 0 if removed is None else removed.number("count")
    changes += _headers(ws)
    columns = _columns(ws)
    changes += _merged(ws, columns)
    if not book.from_xls:
        changes += _formulas(ws, book, columns, shift)
    changes += _cells(ws, columns)
    return changes


def _header_texts(ws: Any, row: int = 1) -> list[str]:
    cells = next(ws.iter_rows(min_row=row, max_row=row), ())
    return [cell.value if isinstance(cell.value, str) else "" for cell in cells]


def _looks_like_data(ws: Any, rows: int = 1) -> bool:
    """One of the first ``rows`` rows names the query column, or two known columns (as the header rule's
    title-row hint reads a header)."""
    for row in range(1, rows + 1):
        names = {found[0] for text in _header_texts(ws, row) if (found := header_name(text)) is not None}
        if "query" in names or len(names) >= 2:
            return True
    return False


def _data_sheet_first(workbook: Any) -> Change | None:
    sheets = workbook.worksheets
    # A first sheet with a header a few rows down (a title row above) is the data, misplaced: validate
    # says which row to move up; another sheet is not moved in front of it.
    if not sheets or _looks_like_data(sheets[0], rows=6):
        return None
    candidates = [ws for ws in sheets[1:] if _looks_like_data(ws)]
    if len(candidates) != 1 or candidates[0].sheet_state != "visible":
        return None  # no data sheet, several, or one the user hid: which one is meant is not certain
    ws = candidates[0]
    position = workbook._sheets.index(ws)
    workbook.move_sheet(ws, offset=-position)
    for sheet in workbook.worksheets:
        sheet.sheet_view.tabSelected = False
    ws.sheet_view.tabSelected = True
    workbook.active = 0
    return Change(code="sheet_moved", data={"sheet": ws.title, "position": position + 1}, sheet=ws.title)


def _title_rows(workbook: Any, ws: Any) -> Change | None:
    """Move the title and note rows above the header to a new sheet, so that the header is row 1."""
    top = [[cell.value for cell in row] for row in ws.iter_rows(min_row=1, max_row=HEADER_SEARCH_ROWS)]
    found = header_row(top)
    if found is None:
        return None
    name, number = NOTES_SHEET, 1
    while name in workbook.sheetnames:
        number += 1
        name = f"{NOTES_SHEET} {number}"
    notes = workbook.create_sheet(name)
    for row in top[:found]:
        notes.append(row)
    texts = [str(value).strip() for row in top[:found] for value in dict.fromkeys(row) if value not in (None, "")]
    # Ranges in the moved rows (or reaching into them) go with them; ranges below move up with their rows.
    # The ranges below are shifted where they are (their placeholder cells move with the rows): merging
    # them again would build a cell for every place a range covers.
    below = []
    for merged in list(ws.merged_cells.ranges):
        if merged.min_row > found:
            below.append(merged)
        else:
            _unmerge(ws, merged)
    ws.delete_rows(1, found)
    ranges = ws.merged_cells.ranges  # a set keyed by each range's place: taken out, moved, put back
    for merged in below:
        ranges.remove(merged)
        merged.shift(row_shift=-found)
    ranges.update(below)
    return Change(
        code="title_rows_moved",
        data={
            "rows": "1" if found == 1 else f"1–{found}",
            "count": found,
            "text": shown(" / ".join(texts)) if texts else '""',
            "notes": name,
        },
        sheet=ws.title,
        row=1,
    )


def _headers(ws: Any) -> list[Change]:
    texts = _header_texts(ws)
    found = [header_name(text) if text.strip() else None for text in texts]
    targets: dict[str, int] = {}
    for item in found:
        if item is not None:
            targets[item[0]] = targets.get(item[0], 0) + 1
    changes: list[Change] = []
    for j, item in enumerate(found):
        if item is None or item[1] in ("exact", "output"):
            continue
        name, how = item
        if targets[name] > 1:
            continue  # two headers name the same column: which to keep is the user's call (duplicate_column)
        before = texts[j]
        ws.cell(row=1, column=j + 1).value = name
        changes.append(
            Change(
                code="header_renamed",
                data={"before": before, "after": name, "how": how},
                sheet=ws.title,
                row=1,
                column=f"{column_letter(j)} ({before.strip()})",
            )
        )
    return changes


def _columns(ws: Any) -> dict[str, int]:
    """0-based column of each known column named exactly in row 1 (the first one when repeated)."""
    columns: dict[str, int] = {}
    for j, text in enumerate(_header_texts(ws)):
        columns.setdefault(text, j)
    return columns


def _label(name: str, columns: dict[str, int]) -> str:
    return f"{column_letter(columns[name])} ({name})"


def _merged(ws: Any, columns: dict[str, int]) -> list[Change]:
    by_index = {j: name for name, j in columns.items() if name in FILL_DOWN}
    changes: list[Change] = []
    if not by_index or not ws.merged_cells.ranges:
        return changes
    last = _last_data_row(ws)
    for merged in sorted(ws.merged_cells.ranges, key=lambda m: (m.min_col, m.min_row)):
        name = by_index.get(merged.min_col - 1)
        if name is None or merged.min_col != merged.max_col or merged.min_row < 2:
            continue  # across columns, or in another column, or in the header: not one certain reading
        span = merged.coord
        top = ws.cell(row=merged.min_row, column=merged.min_col)
        value, style = top.value, copy.copy(top._style)
        _unmerge(ws, merged)
        # Only the rows that hold data (a range merged down to row 1,048,576 is not a million records)
        end = min(merged.max_row, last) if last >= merged.min_row else merged.min_row
        for r in range(merged.min_row + 1, end + 1):
            cell = ws.cell(row=r, column=merged.min_col)
            cell.value = value
            cell._style = copy.copy(style)
        changes.append(
            Change(
                code="cells_unmerged",
                data={"range": span, "value": shown(value), "count": end - merged.min_row + 1},
                sheet=ws.title,
                row=merged.min_row,
                column=_label(name, columns),
            )
        )
    return changes


def _last_data_row(ws: Any) -> int:
    """The last row with a value in a cell that is not under a merge (openpyxl's ``max_row`` counts the
    placeholder cells a merged range leaves on its edges)."""
    from openpyxl.cell.cell import MergedCell

    last = 1
    for (row, _col), cell in ws._cells.items():
        if row > last and cell.value is not None and not isinstance(cell, MergedCell):
            last = row
    return last


def _unmerge(ws: Any, merged: Any) -> None:
    """openpyxl's ``unmerge_cells`` without its membership test, which scans every range (a 10,000-row sheet
    with a merge per session took a minute): the range object itself is removed, and the placeholder
    cells under it, as unmerge_cells does."""
    ws.merged_cells.remove(merged)
    cells = merged.cells
    next(cells)  # the first cell keeps its value
    for row, col in cells:
        ws._cells.pop((row, col), None)


def _formulas(ws: Any, book: Book, columns: dict[str, int], shift: int = 0) -> list[Change]:
    """``shift``: rows removed above the header (the saved values are read from the original's places)."""
    formulas = [cell for row in ws.iter_rows() for cell in row if cell.data_type == "f"]
    if not formulas:
        return []
    if book.stale:
        return []  # the saved values are marked stale: none of them is certain (validate reports the cells)
    values = book.saved_values()
    if values is None or ws.title not in values.sheetnames:
        return []
    wanted = {(cell.row, cell.column) for cell in formulas}
    first, last = min(r for r, _ in wanted) + shift, max(r for r, _ in wanted) + shift
    saved: dict[tuple[int, int], Any] = {}
    # One pass over the rows (a read-only sheet's cell() reads from the top on every call)
    rows = values[ws.title].iter_rows(min_row=first, max_row=last, values_only=True)
    for r, row in enumerate(rows, start=first - shift):
        for c, value in enumerate(row, start=1):
            if (r, c) in wanted:
                saved[(r, c)] = value
    names = {j: name for name, j in columns.items()}
    changes: list[Change] = []
    for cell in formulas:
        value = saved.get((cell.row, cell.column))
        if value is None:
            continue  # no saved value: validate reports formula_without_value
        formula = cell.value if isinstance(cell.value, str) else getattr(cell.value, "text", str(cell.value))
        cell.value = value
        if isinstance(value, str):
            cell.data_type = "s"
        changes.append(
            Change(
                code="formula_to_value",
                data={"formula": formula, "value": shown(value)},
                sheet=ws.title,
                row=cell.row,
                column=_label(names[cell.column - 1], columns)
                if cell.column - 1 in names
                else column_letter(cell.column - 1),
            )
        )
    return changes


def _cells(ws: Any, columns: dict[str, int]) -> list[Change]:
    changes: list[Change] = []
    sid_col, params_col = columns.get("session_id"), columns.get("parameters")
    for row in ws.iter_rows(min_row=2):
        if sid_col is not None and sid_col < len(row):
            cell = row[sid_col]
            value = cell.value
            if isinstance(value, str) and value.strip() and value.strip() != value:
                trimmed: Any = value.strip()
                number = session_id_value(trimmed, {}, IssueSink("-"))  # only read here; validate reports
                if type(number) is int:
                    trimmed = number
                cell.value = trimmed
                changes.append(
                    Change(
                        code="id_trimmed",
                        data={"before": shown(value), "after": shown(trimmed)},
                        sheet=ws.title,
                        row=cell.row,
                        column=_label("session_id", columns),
                    )
                )
        if params_col is not None and params_col < len(row):
            cell = row[params_col]
            if isinstance(cell.value, str) and cell.value.strip():
                repaired = repair_parameters_text(cell.value)
                if repaired is not None:
                    text = json.dumps(repaired, ensure_ascii=False)
                    changes.append(
                        Change(
                            code="parameters_rewritten",
                            data={"before": shown(cell.value), "after": text},
                            sheet=ws.title,
                            row=cell.row,
                            column=_label("parameters", columns),
                        )
                    )
                    cell.value = text
                    cell.data_type = "s"
    return changes
