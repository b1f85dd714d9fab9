"""What python-calamine does not show about an .xlsx sheet, read from its XML inside the zip.

- :func:`scan_sheet` — one streaming pass of plain byte searches (no XML parsing): whether the sheet may
  hold error cells or formulas, and how far its cells reach. calamine builds a dense grid up to the
  farthest cell, so one stray value at XFD1048576 would make it allocate 512 GB and abort the process:
  the extent is checked *before* calamine sees the sheet.
- :func:`find_marks` — the detailed parse, only when the scan found a suspect: error values (``#N/A``)
  and formulas without a saved result, which calamine both returns as ``''``.
- :class:`TrueLengths` — the real length of a text calamine cut at 32,767 characters.
- :func:`has_values` — whether another sheet holds any value (without building its grid).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from formatkit._reading.cells import NO_VALUE, CellError, NoValue

__all__ = ["ZIP_ERRORS", "Marks", "SheetScan", "TrueLengths", "find_marks", "has_values", "scan_sheet"]

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

Marks = dict[tuple[int, int], CellError | NoValue]

_CHUNK = 4 * 1024 * 1024
_OVERLAP = 32
_ERROR_MARKERS = (b' t="e"', b" t='e'")
#: A formula element with a namespace prefix (``<x:f>``).
_PREFIXED_FORMULA = re.compile(rb"<[A-Za-z_][\w.-]*:f[\s/>]")
#: A cell reference past column Z or past row 999,999: rare, so finding none is the common fast case.
_FAR_REF = re.compile(rb'\sr="(?:[A-Z]{2,3}\d+|[A-Z]?\d{7,})"')
_REF = re.compile(rb'r="([A-Z]*)(\d+)"')
_LAST_REF = re.compile(rb'r="([A-Z]*)(\d+)"')
_CELL_REF = re.compile(r"([A-Z]+)(\d+)")
_VALUE_MARKERS = (b"<v>", b":v>", b"<is>", b":is>")


@dataclass(slots=True)
class SheetScan:
    """What one pass over the sheet XML found. ``rows``/``cols`` bound the grid calamine will build."""

    suspects: bool = False
    rows: int = 0
    cols: int = 0


def scan_sheet(archive: zipfile.ZipFile, part: str) -> SheetScan:
    """Stream the sheet once: suspects (formulas, error cells) and the farthest cell reference."""
    scan = SheetScan(cols=26)
    tail = b""
    with archive.open(part) as stream:
        while chunk := stream.read(_CHUNK):
            window = tail + chunk
            if not scan.suspects and (any(m in window for m in _ERROR_MARKERS) or _has_formula(window)):
                scan.suspects = True
            if _FAR_REF.search(window):
                for letters, digits in _REF.findall(window):
                    scan.rows = max(scan.rows, int(digits))
                    if letters:
                        scan.cols = max(scan.cols, _col(letters.decode()) + 1)
            last = window.rfind(b' r="')
            if last != -1:
                match = _LAST_REF.match(window, last + 1)
                if match:
                    scan.rows = max(scan.rows, int(match.group(2)))
            tail = chunk[-_OVERLAP:]
    return scan


def _has_formula(data: bytes) -> bool:
    """A ``<f>`` / ``<f ...>`` / ``<x:f>`` element (``<filters>`` and the like do not count)."""
    for marker in (b"<f", b":f"):
        start = data.find(marker)
        while start != -1:
            if data[start + 2 : start + 3] in (b">", b" ", b"/") and (
                marker == b"<f" or _PREFIXED_FORMULA.match(data, data.rfind(b"<", 0, start))
            ):
                return True
            start = data.find(marker, start + 2)
    return False


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


def iter_cells(archive: zipfile.ZipFile, part: str) -> Iterator[tuple[int, int, ElementTree.Element]]:
    """Every ``<c>`` element of a sheet with its 0-based (row, col), streaming; ``r`` may be omitted."""
    row_index = -1
    col_index = -1
    with archive.open(part) as stream:
        for event, element in ElementTree.iterparse(stream, events=("start", "end")):
            tag = element.tag.rsplit("}", 1)[-1]
            if event == "start":
                if tag == "row":
                    ref = element.get("r")
                    row_index = int(ref) - 1 if ref and ref.isdigit() else row_index + 1
                    col_index = -1
                elif tag == "c":
                    match = _CELL_REF.match(element.get("r") or "")
                    col_index = _col(match.group(1)) if match else col_index + 1
                continue
            if tag == "c":
                yield row_index, col_index, element
                element.clear()
            elif tag == "row":
                element.clear()


def find_marks(archive: zipfile.ZipFile, part: str) -> Marks:
    """Error cells and formulas without a saved value, by 0-based (row, col)."""
    marks: Marks = {}
    try:
        for row_index, col_index, element in iter_cells(archive, part):
            mark = _mark(element)
            if mark is not None:
                marks[(row_index, col_index)] = mark
    except ZIP_ERRORS:
        pass
    return marks


def _mark(cell: ElementTree.Element) -> CellError | NoValue | None:
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


def _col(letters: str) -> int:
    index = 0
    for char in letters:
        index = index * 26 + ord(char) - 64
    return index - 1
