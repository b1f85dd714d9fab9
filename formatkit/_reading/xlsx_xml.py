"""What python-calamine does not show about an .xlsx sheet, read from its XML inside the zip.

- :func:`find_details` — the detailed parse, only when the scan (:mod:`formatkit._reading.xlsx_scan`)
  found something to look at: error values (``#N/A``) and formulas without a saved result (calamine
  returns ``''`` for both), stale cached values, number cells in a number-format style, hidden rows and
  columns, an AutoFilter.
- :class:`TrueLengths` — the real length of a text calamine cut at 32,767 characters.
- :func:`has_values` — whether another sheet holds any value (without building its grid).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from xml.etree import ElementTree

from formatkit._reading.cells import NO_VALUE, CellError, NoValue, StaleValue, column_index

__all__ = ["ZIP_ERRORS", "Details", "TrueLengths", "find_details", "has_values", "iter_cells"]

MAX_CELL_CHARS = 32_767
#: What reading a damaged zip member can raise.
ZIP_ERRORS = (
    KeyError,
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    ElementTree.ParseError,
)

_CHUNK = 4 * 1024 * 1024
_OVERLAP = 32
_CELL_REF = re.compile(r"([A-Z]+)(\d+)")
_VALUE_MARKERS = (b"<v>", b":v>", b"<is>", b":is>")


def has_values(archive: zipfile.ZipFile, part: str) -> bool:
    """Whether a sheet holds any cell value; stops at the first one."""
    tail = b""
    try:
        with archive.open(part) as stream:
            while chunk := stream.read(_CHUNK):
                window = tail + chunk
                if any(marker in window for marker in _VALUE_MARKERS):
                    return True
                tail = chunk[-_OVERLAP:]
    except ZIP_ERRORS:
        return False
    return False


def _walk(stream: IO[bytes]) -> Iterator[tuple[str, str, ElementTree.Element, int, int]]:
    """``(event, tag, element, row, col)`` over a sheet's XML, streaming: the one place that places a cell
    (0-based row and column, counting on from the previous one where ``r`` is omitted). ``<c>`` and
    ``<row>`` elements are cleared once their end has been handed out."""
    row_index = -1
    col_index = -1
    for event, element in ElementTree.iterparse(stream, events=("start", "end")):
        tag = element.tag.rsplit("}", 1)[-1]
        if event == "start":
            if tag == "row":
                ref = element.get("r")
                row_index = int(ref) - 1 if ref and ref.isdigit() else row_index + 1
                col_index = -1
            elif tag == "c":
                match = _CELL_REF.match(element.get("r") or "")
                col_index = column_index(match.group(1)) if match else col_index + 1
        yield event, tag, element, row_index, col_index
        if event == "end" and tag in ("c", "row"):
            element.clear()


def iter_cells(archive: zipfile.ZipFile, part: str) -> Iterator[tuple[int, int, ElementTree.Element]]:
    """Every ``<c>`` element of a sheet with its 0-based (row, col), streaming; ``r`` may be omitted."""
    with archive.open(part) as stream:
        for event, tag, element, row, col in _walk(stream):
            if event == "end" and tag == "c":
                yield row, col, element


@dataclass(slots=True)
class Details:
    """What the detailed pass found on a sheet, by 0-based (row, col) where it is about cells."""

    #: Error values, formulas without a saved value and stale cached values.
    marks: dict[tuple[int, int], CellError | NoValue | StaleValue] = field(default_factory=dict)
    #: Number cells in a style whose number format shows them unlike General: the format code.
    formats: dict[tuple[int, int], str] = field(default_factory=dict)
    hidden_rows: list[int] = field(default_factory=list)
    hidden_cols: list[int] = field(default_factory=list)
    filtered: bool = False


def find_details(
    archive: zipfile.ZipFile, part: str, *, formats: dict[int, str] | None = None, stale: bool = False
) -> Details:
    """Error cells, formulas without a saved value (or with a stale one when ``stale``), number cells in
    the styles of ``formats``, hidden rows and columns and an AutoFilter: one streaming parse."""
    details = Details()
    formats = formats or {}
    try:
        with archive.open(part) as stream:
            for event, tag, element, row, col in _walk(stream):
                if event == "start":
                    if tag == "row" and _true(element.get("hidden")):
                        details.hidden_rows.append(row + 1)
                    elif tag == "col" and _true(element.get("hidden")):
                        _hidden_cols(element, details.hidden_cols)
                    elif tag == "autoFilter":
                        details.filtered = True
                elif tag == "c":
                    _cell(element, (row, col), details, formats, stale)
    except ZIP_ERRORS:
        pass
    return details


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true")


def _hidden_cols(element: ElementTree.Element, out: list[int]) -> None:
    try:
        first = int(element.get("min") or 0)
        last = int(element.get("max") or first)
    except ValueError:
        return
    # A <col> may span to column XFD (16,384): only the first 1,000 columns can hold a table.
    out.extend(range(max(first, 1) - 1, min(last, 1_000)))


def _cell(
    cell: ElementTree.Element, at: tuple[int, int], details: Details, formats: dict[int, str], stale: bool
) -> None:
    mark = _mark(cell, stale)
    if mark is not None:
        details.marks[at] = mark
        return
    if formats:
        style = cell.get("s")
        if style and style.isdigit() and int(style) in formats and cell.get("t", "n") == "n":
            details.formats[at] = formats[int(style)]


def _mark(cell: ElementTree.Element, stale: bool) -> CellError | NoValue | StaleValue | None:
    kind = cell.get("t", "n")
    formula = value = None
    for child in cell:
        name = child.tag.rsplit("}", 1)[-1]
        if name == "f":
            formula = child
        elif name == "v":
            value = child
    if kind == "e":
        return CellError((value.text or "#VALUE!") if value is not None else "#VALUE!")
    if formula is None or kind == "inlineStr":
        return None
    # A formula's text result may be "" (``<v></v>`` with t="str"); a number cannot be empty.
    if value is None or (not value.text and kind != "str"):
        return NO_VALUE
    if stale:
        return StaleValue(value.text)
    return None


class TrueLengths:
    """The real length of text cells that calamine returned cut at Excel's 32,767 characters.

    Parsed from the XML on first use only: a cell of exactly 32,767 characters is rare.
    """

    def __init__(self, path: Path, part: str) -> None:
        self.path = path
        self.part = part
        self._lengths: dict[tuple[int, int], int] | None = None

    def __call__(self, row: int, col: int) -> int:
        if self._lengths is None:
            try:
                self._lengths = self._scan()
            except ZIP_ERRORS:
                self._lengths = {}
        return self._lengths.get((row, col), MAX_CELL_CHARS)

    def _scan(self) -> dict[tuple[int, int], int]:
        lengths: dict[tuple[int, int], int] = {}
        with zipfile.ZipFile(self.path) as archive:
            shared = _long_shared_strings(archive)
            for row, col, cell in iter_cells(archive, self.part):
                kind = cell.get("t")
                if kind == "s":
                    value = _child_text(cell, "v")
                    length = shared.get(int(value), 0) if value and value.isdigit() else 0
                elif kind in ("inlineStr", "str"):
                    length = sum(len(t) for t in _texts(cell))
                else:
                    continue
                if length > MAX_CELL_CHARS:
                    lengths[(row, col)] = length
        return lengths


def _long_shared_strings(archive: zipfile.ZipFile) -> dict[int, int]:
    if "xl/sharedStrings.xml" not in archive.namelist():
        return {}
    long: dict[int, int] = {}
    index = 0
    with archive.open("xl/sharedStrings.xml") as stream:
        for _, element in ElementTree.iterparse(stream, events=("end",)):
            if element.tag.rsplit("}", 1)[-1] != "si":
                continue
            length = sum(len(t) for t in _texts(element))
            if length > MAX_CELL_CHARS:
                long[index] = length
            index += 1
            element.clear()
    return long


def _texts(element: ElementTree.Element) -> Iterator[str]:
    """The ``<t>`` texts of a string item, leaving out phonetic runs (``<rPh>``)."""
    for child in element:
        name = child.tag.rsplit("}", 1)[-1]
        if name == "t":
            yield child.text or ""
        elif name in ("r", "is"):
            yield from _texts(child)


def _child_text(element: ElementTree.Element, name: str) -> str | None:
    for child in element:
        if child.tag.rsplit("}", 1)[-1] == name:
            return child.text
    return None
