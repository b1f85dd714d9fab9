"""A workbook to repair, as openpyxl sees it: an .xlsx loaded with its formatting, or an .xls rebuilt as an
.xlsx (xlrd reads it; values, merged ranges, number formats, column widths and hidden rows and columns are
carried over). Saving reports the parts of the original that openpyxl could not keep."""

from __future__ import annotations

import datetime
import io
import re
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from formatkit._core.errors import RepairRefusedError
from formatkit._core.messages import Msg
from formatkit._reading.cells import column_index, column_letter
from formatkit._reading.xlsx_book import recalculates_on_load

__all__ = ["MAX_MERGED_CELLS", "MAX_MERGED_RANGES", "MAX_STYLES", "Book", "lost_parts", "open_book", "save_book"]

#: openpyxl loads every merged range with a placeholder cell on its edges and every cell style as an
#: object, in time that grows with each (10,000 merged ranges take it about two seconds): past these
#: bounds a workbook is refused before it loads, naming the range or the count (validate reads it).
MAX_MERGED_RANGES = 10_000
#: The cells one merged range may cover (B2:XFD1048576 covers 17 billion).
MAX_MERGED_CELLS = 100_000
#: Excel's own limit on the cell formats of a workbook.
MAX_STYLES = 64_000
#: Sheets a workbook may list for fix to rewrite it: openpyxl's cost per sheet grows with the sheets already
#: there (each title checked against all), so 100,000 sheets would run for an hour; validate reads the first.
MAX_SHEETS = 1_000
_SHEET_TAG = re.compile(rb"<(?:\w+:)?sheet\b")

_MERGE_REF = re.compile(
    rb'<(?:\w+:)?mergeCell\s+ref="\$?([A-Za-z]{1,3})\$?(\d{1,7})(?::\$?([A-Za-z]{1,3})\$?(\d{1,7}))?"'
)
_XF = re.compile(rb"<(?:\w+:)?xf[\s/>]")
_CELL_XFS = re.compile(rb"<(?:\w+:)?cellXfs[\s>].*?</(?:\w+:)?cellXfs>", re.S)


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
    check_bounds(path)
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


def check_bounds(path: Path) -> None:
    """Refuse (RepairRefusedError) an .xlsx that openpyxl could not load in time and memory proportional to
    its data: too many merged ranges in a sheet, one merged range over too many cells, too many cell styles.
    One pass over the parts' XML (validate has read them already, behind its zip-bomb guard)."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        if "xl/workbook.xml" in names:
            listed = len(_SHEET_TAG.findall(archive.read("xl/workbook.xml")))
            if listed > MAX_SHEETS:
                raise RepairRefusedError(Msg("frag.fix_refused.sheets", count=listed, limit=MAX_SHEETS))
        if "xl/styles.xml" in names:
            styles = archive.read("xl/styles.xml")
            block = _CELL_XFS.search(styles)
            count = len(_XF.findall(block.group(0))) if block is not None else 0
            if count > MAX_STYLES:
                raise RepairRefusedError(Msg("frag.fix_refused.styles", count=count, limit=MAX_STYLES))
        sheets: dict[str, str] | None = None
        for name in names:
            if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
                continue
            data = archive.read(name)
            if b"mergeCell" not in data:
                continue
            if sheets is None:
                sheets = _sheet_names(archive)
            sheet = sheets.get(name, name)
            count = 0
            for match in _MERGE_REF.finditer(data):
                count += 1
                if count > MAX_MERGED_RANGES:
                    total = len(_MERGE_REF.findall(data))
                    raise RepairRefusedError(
                        Msg("frag.fix_refused.merges", sheet=sheet, count=total, limit=MAX_MERGED_RANGES)
                    )
                first, last = _corner(match.group(1), match.group(2)), _corner(match.group(3), match.group(4))
                if first is None or last is None:
                    continue
                cells = (abs(last[0] - first[0]) + 1) * (abs(last[1] - first[1]) + 1)
                if cells > MAX_MERGED_CELLS:
                    span = f"{column_letter(first[1])}{first[0]}:{column_letter(last[1])}{last[0]}"
                    raise RepairRefusedError(
                        Msg("frag.fix_refused.merge_size", sheet=sheet, range=span, cells=cells, limit=MAX_MERGED_CELLS)
                    )


def _sheet_names(archive: zipfile.ZipFile) -> dict[str, str]:
    """Worksheet part → the sheet's name, as the workbook's relationships resolve it ({} when they cannot)."""
    from formatkit._reading.xlsx import _sheet_parts

    try:
        workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    except (KeyError, ElementTree.ParseError):
        return {}
    titles = [sheet.get("name") or "" for sheet in workbook.iter() if sheet.tag.endswith("}sheet")]
    parts, _stale = _sheet_parts(archive)
    return {part: title for part, title in zip(parts, titles, strict=False) if part is not None}


def _corner(letters: bytes | None, digits: bytes | None) -> tuple[int, int] | None:
    """(1-based row, 0-based column) of a reference's corner; None when the range names one cell."""
    if letters is None or digits is None:
        return None
    return int(digits), column_index(letters.decode("ascii").upper())


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
