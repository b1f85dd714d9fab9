"""A workbook to repair, as openpyxl sees it: an .xlsx loaded with its formatting, or an .xls rebuilt as an
.xlsx (xlrd reads it; values, merged ranges, number formats, column widths and hidden rows and columns are
carried over). Saving reports the parts of the original that openpyxl could not keep."""

from __future__ import annotations

import datetime
import io
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from formatkit._reading.xlsx_book import recalculates_on_load

__all__ = ["Book", "lost_parts", "open_book", "save_book"]


@dataclass
class Book:
    """The workbook being repaired; ``values()`` gives the same workbook with formulas read as their saved
    values (loaded only when a formula has to be replaced)."""

    workbook: Any
    from_xls: bool
    values: Callable[[], Any] | None = None
    #: The workbook marks its saved formula values stale (fullCalcOnLoad), read as the reader reads it
    #: (openpyxl's own flag defaults to True when the file says nothing).
    stale: bool = False
    _values: Any = field(default=None, repr=False)

    def saved_values(self) -> Any:
        if self._values is None and self.values is not None:
            self._values = self.values()
        return self._values


def open_book(path: Path) -> Book:
    """Load ``path`` for repair; any exception means the workbook cannot be repaired (validate says why)."""
    import openpyxl

    with path.open("rb") as handle:
        head = handle.read(8)
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return Book(_from_xls(path), from_xls=True)
    with warnings.catch_warnings():  # "extension is not supported and will be removed": the parts_lost note
        warnings.simplefilter("ignore")
        workbook = openpyxl.load_workbook(path, rich_text=False, keep_links=True)
    with zipfile.ZipFile(path) as archive:
        stale = recalculates_on_load(ElementTree.fromstring(archive.read("xl/workbook.xml")))
    return Book(
        workbook,
        from_xls=False,
        values=lambda: _quietly(lambda: openpyxl.load_workbook(path, data_only=True, read_only=True)),
        stale=stale,
    )


def _quietly(load: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load()


def save_book(book: Book) -> bytes:
    buffer = io.BytesIO()
    book.workbook.save(buffer)
    return buffer.getvalue()


#: Parts of an .xlsx package by kind, for what a rewrite may lose.
_KINDS = (
    ("xl/drawings/", "drawings"),
    ("xl/media/", "media"),
    ("xl/charts/", "charts"),
    ("xl/vbaProject", "vba"),
    ("xl/pivot", "pivots"),
    ("xl/slicer", "slicers"),
)


def lost_parts(original: Path, saved: bytes) -> list[str]:
    """The kinds of package parts the original .xlsx has more of than the saved copy (images, charts,
    shapes openpyxl drops), for a note beside the changes; [] when nothing was lost or for an .xls."""
    try:
        with zipfile.ZipFile(original) as before, zipfile.ZipFile(io.BytesIO(saved)) as after:
            old, new = _count(before.namelist()), _count(after.namelist())
    except (zipfile.BadZipFile, OSError):
        return []
    return [kind for _, kind in _KINDS if old.get(kind, 0) > new.get(kind, 0)]


def _count(names: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in names:
        for prefix, kind in _KINDS:
            if name.startswith(prefix) and not name.endswith(".rels"):
                counts[kind] = counts.get(kind, 0) + 1
    return counts


# xlrd's cell types (xlrd.biffh): empty, text, number, date, boolean, error, blank.
_EMPTY, _TEXT, _NUMBER, _DATE, _BOOLEAN, _ERROR, _BLANK = range(7)


def _from_xls(path: Path) -> Any:
    """The .xls workbook rebuilt in openpyxl: every sheet in order, with its values and layout."""
    import openpyxl
    import xlrd
    from openpyxl.utils import get_column_letter

    try:
        book = xlrd.open_workbook(str(path), formatting_info=True, logfile=io.StringIO())
    except Exception:  # some writers' formatting records trip xlrd (as in the reader): values only
        book = xlrd.open_workbook(str(path), logfile=io.StringIO())
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for sheet in book.sheets():
        ws = workbook.create_sheet(sheet.name)
        ws.sheet_state = {1: "hidden", 2: "veryHidden"}.get(getattr(sheet, "visibility", 0), "visible")
        for r in range(sheet.nrows):
            for c, (kind, value) in enumerate(zip(sheet.row_types(r), sheet.row_values(r), strict=False)):
                if kind in (_EMPTY, _BLANK):
                    continue
                cell = ws.cell(row=r + 1, column=c + 1)
                if kind == _TEXT:
                    cell.value = value
                    cell.data_type = "s"  # text that starts with "=" stays text, as in the .xls
                elif kind == _BOOLEAN:
                    cell.value = bool(value)
                elif kind == _ERROR:
                    cell.value = xlrd.error_text_from_code.get(value, "#VALUE!")
                elif kind == _DATE:
                    cell.value = _date(xlrd, value, book.datemode)
                else:
                    cell.value = int(value) if float(value).is_integer() and abs(value) < 2**53 else value
                fmt = _number_format(book, sheet, r, c)
                if fmt:
                    cell.number_format = fmt
        for rlo, rhi, clo, chi in sheet.merged_cells:
            if rhi - rlo > 1 or chi - clo > 1:
                ws.merge_cells(start_row=rlo + 1, end_row=rhi, start_column=clo + 1, end_column=chi)
        for c, info in sheet.colinfo_map.items():
            dim = ws.column_dimensions[get_column_letter(c + 1)]
            dim.width = info.width / 256
            dim.hidden = bool(info.hidden)
        for r, info in sheet.rowinfo_map.items():
            if info.hidden:
                ws.row_dimensions[r + 1].hidden = True
    return workbook


def _number_format(book: Any, sheet: Any, r: int, c: int) -> str | None:
    try:
        code = book.format_map[book.xf_list[sheet.cell_xf_index(r, c)].format_key].format_str
    except (IndexError, KeyError, AttributeError, TypeError):
        return None
    return None if not code or code == "General" else str(code)


def _date(xlrd: Any, value: float, datemode: int) -> datetime.datetime | float:
    try:
        return xlrd.xldate_as_datetime(value, datemode)  # type: ignore[no-any-return]
    except Exception:
        return value
