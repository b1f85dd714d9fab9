""".xlsx: cell values through python-calamine (Rust, fast), plus what calamine does not show.

calamine reads cached values, dates, booleans and merged ranges, but gives ``''`` both for an error value
(``#N/A``) and for a formula with no saved result. Those two are found by one streaming pass over the
sheet's XML inside the zip: a cheap byte search for ``t="e"`` and ``<f`` elements, and a detailed parse
only when one is there.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree import ElementTree

from formatkit.readers.excel_cells import (
    MAX_CELLS,
    MAX_PART_BYTES,
    MAX_RATIO,
    NO_VALUE,
    CellError,
    NoValue,
    SheetData,
    Unreadable,
)

__all__ = ["TrueLengths", "read_xlsx", "scan_sheet_xml"]

MAX_CELL_CHARS = 32_767

_CHUNK = 4 * 1024 * 1024
#: A formula element with a namespace prefix (``<x:f>``); error cells are found by _ERROR_MARKERS.
_SUSPECT = re.compile(rb"<[A-Za-z_][\w.-]*:f[\s/>]")
_ERROR_MARKERS = (b' t="e"', b" t='e'")
_REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_CELL_REF = re.compile(r"([A-Z]+)(\d+)")

Marks = dict[tuple[int, int], CellError | NoValue]
#: What reading a damaged zip member can raise.
_ZIP_ERRORS = (
    KeyError,
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    ElementTree.ParseError,
)


def read_xlsx(path: Path) -> SheetData:
    try:
        archive = zipfile.ZipFile(path)
    except _ZIP_ERRORS:
        raise Unreadable(
            "unreadable_file",
            "The .xlsx file is damaged or truncated (it is not a complete zip archive), perhaps cut off "
            "while downloading or copying. Get the file again, or open it in Excel and save it again.",
        ) from None
    with archive:
        _check_parts(archive)
        sheet_parts = _sheet_parts(archive)
        return _read(path, archive, sheet_parts)


def _check_parts(archive: zipfile.ZipFile) -> None:
    names = set(archive.namelist())
    if "xl/workbook.xml" not in names:
        if "word/document.xml" in names:
            kind = "a Word document (.docx)"
        elif "content.xml" in names:
            kind = "an OpenDocument file (.ods/.odt)"
        else:
            kind = "a zip archive"
        raise Unreadable(
            "unreadable_file",
            f"The file is named .xlsx but is {kind}, not an Excel workbook. Export the table from its "
            "program as an Excel workbook (.xlsx).",
        )
    for info in archive.infolist():
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > MAX_PART_BYTES or (info.file_size > 100 * 1024**2 and ratio > MAX_RATIO):
            raise Unreadable(
                "unreadable_file",
                f'The workbook part "{info.filename}" would unpack to {info.file_size:,} bytes '
                f"({ratio:,.0f} times its packed size); formatkit refuses it as too large or a zip bomb. "
                "Split the data into smaller files.",
            )


def _sheet_parts(archive: zipfile.ZipFile) -> list[str | None]:
    """The zip part of each sheet, in workbook order (None when it cannot be resolved)."""
    try:
        workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    except _ZIP_ERRORS:
        return []
    targets = {rel.get("Id"): rel.get("Target") or "" for rel in rels}
    parts: list[str | None] = []
    for sheet in workbook.iter():
        if not sheet.tag.endswith("}sheet"):
            continue
        target = targets.get(sheet.get(_REL_NS + "id"))
        if not target:
            parts.append(None)
        elif target.startswith("/"):
            parts.append(target.lstrip("/"))
        else:
            parts.append(str(PurePosixPath("xl") / target))
    return parts


def _read(path: Path, archive: zipfile.ZipFile, parts: list[str | None]) -> SheetData:
    from python_calamine import CalamineWorkbook, PasswordError

    try:
        workbook = CalamineWorkbook.from_path(str(path))
        kinds = [str(m.typ) for m in workbook.sheets_metadata]
        names = list(workbook.sheet_names)
        first = next((i for i, k in enumerate(kinds) if k.endswith("WorkSheet")), None)
        if first is None:
            raise Unreadable(
                "empty_file",
                "The workbook has no worksheet (only charts or macros). Put the table on a worksheet.",
            )
        sheet = workbook.get_sheet_by_index(first)
        _check_size(sheet.height, sheet.width, names[first])
        rows: list[list[Any]] = sheet.to_python(skip_empty_area=False)
        merged = [(r0, c0, r1, c1) for (r0, c0), (r1, c1) in (sheet.merged_cell_ranges or [])]
        extra = [
            names[i]
            for i, kind in enumerate(kinds)
            if i != first and kind.endswith("WorkSheet") and _has_data(workbook, i)
        ]
    except Unreadable:
        raise
    except PasswordError:
        raise Unreadable("unreadable_file", "The workbook is password-protected; remove the password.") from None
    except Exception as exc:  # calamine's errors: damaged XML or zip entries
        raise Unreadable(
            "unreadable_file",
            f"The workbook is damaged and could not be read ({type(exc).__name__}: {_clip(str(exc))}). "
            "Open it in Excel and save it again.",
        ) from None
    except BaseException as exc:  # a Rust panic surfaces as pyo3's PanicException (a BaseException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
            raise
        raise Unreadable(
            "unreadable_file",
            "The workbook is damaged and could not be read. Open it in Excel and save it again.",
        ) from None
    part = parts[first] if first < len(parts) else None
    if part is not None:
        marks = scan_sheet_xml(archive, part)
        if marks:
            _apply(rows, marks)
    return SheetData(
        name=names[first],
        rows=rows,
        merged=merged,
        extra_sheets=extra,
        skipped=names[:first],
        true_length=TrueLengths(path, part) if part is not None else None,
    )


def _check_size(height: int, width: int, name: str) -> None:
    if height * width > MAX_CELLS:
        raise Unreadable(
            "unreadable_file",
            f'Sheet "{name}" spans {height:,} rows × {width:,} columns, more than formatkit reads '
            f"({MAX_CELLS:,} cells). Delete stray cells far from the table (Ctrl+End shows the last "
            "used cell), or split the data into smaller files.",
        )


def _has_data(workbook: Any, index: int) -> bool:
    try:
        return workbook.get_sheet_by_index(index).end is not None
    except Exception:
        return False


def _apply(rows: list[list[Any]], marks: Marks) -> None:
    width = max((len(r) for r in rows), default=0)
    for (r, c), mark in marks.items():
        while len(rows) <= r:
            rows.append([""] * width)
        row = rows[r]
        if len(row) <= c:
            row.extend([""] * (c + 1 - len(row)))
        # A formula with a cached value or an error: calamine left it empty.
        if row[c] in ("", None) or isinstance(mark, CellError):
            row[c] = mark


def scan_sheet_xml(archive: zipfile.ZipFile, part: str) -> Marks:
    """Error cells and formulas without a saved value, by (row, col), 0-based. Streams the XML."""
    try:
        if not _has_suspects(archive, part):
            return {}
        return _parse_suspects(archive, part)
    except _ZIP_ERRORS:
        return {}


def _has_suspects(archive: zipfile.ZipFile, part: str) -> bool:
    """Whether the sheet may hold an error cell or a formula: plain byte searches, no XML parsing."""
    tail = b""
    with archive.open(part) as stream:
        while chunk := stream.read(_CHUNK):
            window = tail + chunk
            if any(marker in window for marker in _ERROR_MARKERS) or _has_formula(window):
                return True
            tail = chunk[-16:]
    return False


def _has_formula(data: bytes) -> bool:
    """A ``<f>`` / ``<f ...>`` / ``<x:f>`` element (``<filters>`` and the like do not count)."""
    for marker in (b"<f", b":f"):
        start = data.find(marker)
        while start != -1:
            after = data[start + 2 : start + 3]
            if after in (b">", b" ", b"/") and (marker == b"<f" or _SUSPECT.match(data, data.rfind(b"<", 0, start))):
                return True
            start = data.find(marker, start + 2)
    return False


def _iter_cells(archive: zipfile.ZipFile, part: str) -> Iterator[tuple[int, int, ElementTree.Element]]:
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


def _parse_suspects(archive: zipfile.ZipFile, part: str) -> Marks:
    marks: Marks = {}
    for row_index, col_index, element in _iter_cells(archive, part):
        mark = _mark(element)
        if mark is not None:
            marks[(row_index, col_index)] = mark
    return marks


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
            except _ZIP_ERRORS:
                self._lengths = {}
        return self._lengths.get((row, col), MAX_CELL_CHARS)

    def _scan(self) -> dict[tuple[int, int], int]:
        lengths: dict[tuple[int, int], int] = {}
        with zipfile.ZipFile(self.path) as archive:
            shared = _long_shared_strings(archive)
            for row, col, cell in _iter_cells(archive, self.part):
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
    if value is None or (not value.text and kind != "str"):
        return NO_VALUE
    return None


def _col(letters: str) -> int:
    index = 0
    for char in letters:
        index = index * 26 + ord(char) - 64
    return index - 1


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
