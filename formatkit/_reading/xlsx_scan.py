"""How far an .xlsx sheet's cells reach, found before python-calamine builds its dense grid.

calamine allocates every cell from A1 to the farthest one: a single cell at XFD1048576 in a 2 KB file
makes it ask for 512 GB and abort the process (no exception, exit 134). So the extent is measured first,
exactly as calamine will place the cells, under any spelling XML allows: ``r="A1"``, ``r='A1'``,
``r = "A1"``, character references (``r="&#88;FD1"``), prefixed tags (``<x:c>``) and cells or rows
without ``r`` (placed after the previous one).

Fast path: when every ``<c`` and ``<row`` tag of the sheet is spelled the way Excel and every common
writer spell it (``<c r="B7"``, ``<row r="7"``, no character reference anywhere), plain byte counts prove
it and one regex collects every reference. Anything else takes an exact XML parse (expat, no tree).
The scan also notes what needs the detailed pass (:mod:`formatkit._reading.xlsx_xml`): error values,
formulas, hidden rows or columns, an AutoFilter and cells in the given number-format styles.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from xml.parsers import expat

from formatkit._reading.cells import column_index, column_letter

__all__ = ["SheetScan", "exact_extent", "scan_sheet"]

_CHUNK = 4 * 1024 * 1024
#: A plain cell reference: ``[A-Z]{1,3}`` + digits. Any other (lower case, ``$``, spaces...): exact parse.
_CELL_ROW = re.compile(rb'<c r="[A-Z]{1,3}(\d{1,7})"')
#: Columns past Z are rare: only then are the letters collected (else 26 bounds the width).
_WIDE = re.compile(rb'<c r="[A-Z]{2}')
_WIDE_LETTERS = re.compile(rb'<c r="([A-Z]{2,3})\d')
#: Cell and row tags spelled other than ``<c `` / ``<row `` (no attribute, or whitespace other than a space).
_ODD_TAGS = (b"<c>", b"<c/", b"<row>", b"<row/")
_ODD_SPACE = re.compile(rb"<(?:c|row)[\t\r\n]")
_PREFIXED = re.compile(rb"<[A-Za-z_][\w.-]*:(?:c|row|f)[\s/>]")
#: The prefilter of _PREFIXED: one search for a rare character instead of a test at every tag.
_PREFIX_HINT = re.compile(rb":(?:c|row|f)[\s/>]")
#: One pass for every tag the precise tests below look at: a formula (``<f>``, ``<f ``, ``<f/``), a
#: ``<c>``/``<c/``/``<row>``/``<row/`` tag, one followed by a tab or line break, a ``<c `` whose first
#: attribute is not ``r="``, a negative value (``<v>-``: a shared-string index must not be). A window without
#: any is canonical on those counts (the common case); a window with one runs the precise tests, which decide.
_UNUSUAL = re.compile(rb'<(?:c(?:[>/\t\r\n]| (?!r="))|row[>/\t\r\n]|f[ >/]|v>-)')
_REF_TEXT = re.compile(r"\s*\$?([A-Za-z]{0,3})\$?(\d{1,9})\s*")
#: Row numbers as Excel writes them: each row once, in increasing order (a repeat is a damaged sheet).
_ROW_NUMBER = re.compile(rb'<row r="(\d{1,7})"')
#: A shared-string cell whose index is negative (looked for only where ``<v>-`` occurs at all).
_NEGATIVE_SHARED = re.compile(rb'<c r="([A-Z]{1,3})(\d{1,7})"[^>]* t="s"[^>]*>\s*<v>\s*(-\d{1,12})')


@dataclass(slots=True)
class SheetScan:
    """What one pass over the sheet XML found. ``rows`` x ``cols`` is the grid calamine will build."""

    rows: int = 0
    cols: int = 0
    #: Cells that may hold a value (a self-closing ``<c r="B7" s="1"/>`` is formatting only: calamine skips it).
    cells: int = 0
    #: Error values or formulas may be there.
    suspects: bool = False
    #: ``hidden`` or ``autoFilter`` appear: hidden rows/columns or a filter may be there.
    hidden: bool = False
    #: Cells in one of the number-format styles asked about may be there.
    styled: bool = False
    #: The fast path's bound: every reference counted, formatting-only cells (which calamine skips) too, so
    #: ``rows``/``cols`` may exceed the true extent; :func:`exact_extent` settles a refusal.
    estimated: bool = False
    #: The first damage found that makes the cells untrustworthy: ("row", number) for a row written twice
    #: (or out of order), ("shared", (row, column letters, index)) for a negative shared-string index.
    damage: tuple[str, Any] | None = None


def scan_sheet(archive: zipfile.ZipFile, part: str, styles: Collection[int] = ()) -> SheetScan:
    """Stream the sheet once; the exact extent of its cells and what the detailed pass must look at."""
    scan = SheetScan()
    # ' s="3"' or ' s="7"' ...: one pass for all the styles asked about.
    style_markers = (
        re.compile(rb' s="(?:%s)"' % b"|".join(b"%d" % s for s in sorted(styles))) if 0 < len(styles) <= 64 else None
    )
    if styles and style_markers is None:
        scan.styled = True
    canonical = True
    carry = b""
    max_row = 0
    last_row = 0
    letters: set[bytes] = set()
    with archive.open(part) as stream:
        while True:
            chunk = stream.read(_CHUNK)
            data = carry + chunk
            if chunk:
                # Cut at the last "<": no tag is ever split between two windows.
                cut = data.rfind(b"<")
                window, carry = (data[:cut], data[cut:]) if cut > 0 else (data, b"")
            else:
                window, carry = data, b""
            if not window:
                if not chunk:
                    break
                continue
            # Every test below is a pass over the window (~4 ms a 5 MB sheet): the common ones are folded
            # into _UNUSUAL, and the precise ones run only where it finds something.
            unusual = _UNUSUAL.search(window) is not None
            if not scan.suspects and (
                b' t="e"' in window
                or (b"'" in window and b" t='e'" in window)
                or (unusual and (b"<f>" in window or b"<f " in window or b"<f/" in window))
            ):
                scan.suspects = True
            if not scan.hidden and (b"hidden" in window or b"autoFilter" in window):
                scan.hidden = True
            if style_markers is not None and not scan.styled and style_markers.search(window):
                scan.styled = True
            if canonical:
                cells = window.count(b'<c r="')
                # Every '<c r="' must start a plain reference: one that does not is not counted here.
                digits = _CELL_ROW.findall(window)
                if (
                    len(digits) != cells
                    or (
                        unusual
                        and (window.count(b"<c ") != cells or any(t in window for t in _ODD_TAGS) or _odd_space(window))
                    )
                    or (b"&" in window and b"&#" in window)
                    or (_PREFIX_HINT.search(window) and _PREFIXED.search(window))
                ):
                    canonical = False
                else:
                    # A lower bound of the cells with content: every '"/>' may close a formatting-only cell.
                    scan.cells += max(0, cells - window.count(b'"/>'))
                    rows = set(digits)
                    # More row tags than rows holding cells, or a negative value (which _UNUSUAL found): the
                    # precise look (a row written twice repeats its tag; an empty row's tag costs a look too).
                    if scan.damage is None and (_more_rows(window, len(rows)) or (unusual and b"<v>-" in window)):
                        _check_rows(window, last_row, scan)
                    if digits:
                        max_row = max(max_row, max(map(int, rows)))
                        # 26 columns bound the width unless a reference goes past Z; a bound that looks too
                        # large is settled by the exact parse before anything is refused.
                        letters.add(b"Z")
                        if _WIDE.search(window):
                            letters.update(_WIDE_LETTERS.findall(window))
                    last_row = max_row
            if not chunk:
                break
    if canonical:
        scan.rows = max_row
        scan.cols = max((column_index(x.decode()) + 1 for x in letters), default=0)
        scan.estimated = True
        return scan
    return _exact(archive, part, scan)


def _more_rows(window: bytes, rows: int) -> bool:
    """Whether a canonical window holds more row tags than rows with cells, not counting a last row whose
    cells begin in the next window."""
    tags = window.count(b'<row r="')
    if tags > rows and window.rfind(b'<row r="') > window.rfind(b'<c r="'):
        tags -= 1
    return tags > rows


def _check_rows(window: bytes, last_row: int, scan: SheetScan) -> None:
    """Note in ``scan.damage`` the first row number of a canonical window that repeats (or goes back to or
    below ``last_row``, the last row of the windows before), or else its first negative shared-string index."""
    for number in map(int, _ROW_NUMBER.findall(window)):
        if number <= last_row:
            scan.damage = ("row", number)
            return
        last_row = number
    if b"<v>-" in window:
        found = _NEGATIVE_SHARED.search(window)
        if found is not None:
            letters, row, index = found.groups()
            scan.damage = ("shared", (int(row), letters.decode(), int(index)))


def _odd_space(window: bytes) -> bool:
    """Whether a ``<c`` or ``<row`` tag is followed by a tab or line break (so the counts of ``<c `` miss it).
    Excel's sheets hold a single line break, after the XML declaration: those few are looked at directly."""
    if b"\t" in window or b"\r" in window or window.count(b"\n") > 16:
        return _ODD_SPACE.search(window) is not None
    at = window.find(b"\n")
    while at != -1:
        if window.endswith((b"<c", b"<row"), 0, at):
            return True
        at = window.find(b"\n", at + 1)
    return False


def exact_extent(archive: zipfile.ZipFile, part: str, scan: SheetScan) -> SheetScan:
    """The exact extent (cells with content only), for a fast estimate that looks too large."""
    return _exact(archive, part, scan) if scan.estimated else scan


def _exact(archive: zipfile.ZipFile, part: str, scan: SheetScan) -> SheetScan:
    """The extent by a real XML parse, placing cells as calamine does (``r`` or after the previous one);
    a cell counts when it has content (a value, an inline string or a formula), as calamine keeps it."""
    row = 0
    col = 0
    at = (0, 0)
    in_cell = valued = False
    max_row = max_col = cells = 0
    formula = shared = in_index = False

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal row, col, at, in_cell, valued, formula, shared, in_index
        local = name.rsplit(":", 1)[-1]
        if local == "c":
            ref = _REF_TEXT.fullmatch(attrs.get("r", ""))
            if ref and ref.group(1):
                col = column_index(ref.group(1).upper()) + 1
                at = (int(ref.group(2)), col)
            else:
                col += 1
                at = (row, col)
            in_cell, valued = True, False
            kind = attrs.get("t")
            shared = kind == "s"
            if kind == "e":
                scan.suspects = True
        elif in_cell:
            valued = True
            if local == "f":
                formula = True
            in_index = shared and local == "v"
        elif local == "row":
            number = (attrs.get("r") or "").strip()
            if number.isdigit() and len(number) <= 9:
                if int(number) <= row and scan.damage is None:
                    scan.damage = ("row", int(number))
                row = int(number)
            else:
                row += 1
            col = 0

    def text(data: str) -> None:
        if in_index and data.strip().startswith("-") and scan.damage is None:
            index = data.strip()
            scan.damage = ("shared", (at[0], column_letter(at[1] - 1), int(index) if index[1:].isdigit() else index))

    def end(name: str) -> None:
        nonlocal in_cell, max_row, max_col, cells, in_index
        in_index = False
        if in_cell and name.rsplit(":", 1)[-1] == "c":
            in_cell = False
            if valued:
                cells += 1
                max_row = max(max_row, at[0])
                max_col = max(max_col, at[1])

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.buffer_text = True
    with archive.open(part) as stream:
        parser.ParseFile(stream)
    scan.rows, scan.cols, scan.cells, scan.estimated = max_row, max_col, cells, False
    scan.suspects = scan.suspects or formula
    return scan
