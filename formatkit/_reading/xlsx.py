""".xlsx: cell values through python-calamine (Rust, fast), guarded and completed from the sheet XML.

Before calamine builds the grid, :func:`~formatkit._reading.xlsx_scan.scan_sheet` measures exactly how far
the cells reach (a stray far cell would make calamine abort the process) and notes what calamine does not
show: error values and formulas (``''`` in calamine), stale cached values, number formats, hidden rows and
columns. :func:`~formatkit._reading.xlsx_xml.find_details` then reads those from the XML into the rows.
"""

from __future__ import annotations

import threading
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree import ElementTree

from formatkit._core.messages import Msg
from formatkit._reading.cells import (
    BOMB_MIN_BYTES,
    DENSITY,
    FREE_CELLS,
    MAX_CELLS,
    MAX_PART_BYTES,
    MAX_RATIO,
    CellError,
    SheetData,
    Shown,
    StaleValue,
    Unreadable,
    column_letter,
    pick_sheet,
)
from formatkit._reading.numfmt import general, render
from formatkit._reading.xlsx_book import number_formats, recalculates_on_load, totals_rows
from formatkit._reading.xlsx_scan import SheetScan, exact_extent, scan_sheet
from formatkit._reading.xlsx_xml import ZIP_ERRORS, Details, TrueLengths, find_details, has_values

__all__ = ["read_xlsx"]

_REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def read_xlsx(path: Path, sheet: str | None = None) -> SheetData:
    try:
        archive = zipfile.ZipFile(path)
    except ZIP_ERRORS:
        raise Unreadable(
            "unreadable_file",
            Msg("unreadable_file.zip_damaged"),
        ) from None
    with archive:
        _check_parts(archive)
        sheet_parts, stale = _sheet_parts(archive)
        guess = next((part for part in sheet_parts if part and "/worksheets/" in f"/{part}"), None)
        prescan = _Prescan(path, guess)
        try:
            return _read(path, archive, sheet_parts, prescan, stale, sheet)
        finally:
            prescan.join()


def _check_parts(archive: zipfile.ZipFile) -> None:
    listed = archive.namelist()
    names = set(listed)
    if len(names) != len(listed):  # a part twice: which copy is the workbook cannot be told
        seen: set[str] = set()
        part = ""
        for name in listed:
            if name in seen:
                part = name
                break
            seen.add(name)
        raise Unreadable("unreadable_file", Msg("unreadable_file.duplicate_part", part=part))
    if "xl/workbook.xml" not in names:
        if "word/document.xml" in names:
            kind = Msg("frag.zip_docx")
        elif "content.xml" in names:
            kind = Msg("frag.zip_ods")
        else:
            kind = Msg("frag.zip_other")
        raise Unreadable("unreadable_file", Msg("unreadable_file.not_workbook_zip", kind=kind))
    for info in archive.infolist():
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > MAX_PART_BYTES or (info.file_size > BOMB_MIN_BYTES and ratio > MAX_RATIO):
            raise Unreadable(
                "unreadable_file",
                Msg("unreadable_file.zip_bomb", part=info.filename, size=info.file_size, ratio=ratio),
            )


def _sheet_parts(archive: zipfile.ZipFile) -> tuple[list[str | None], bool]:
    """The zip part of each sheet, in workbook order (None when it cannot be resolved), and whether the
    workbook declares its cached formula values stale (``fullCalcOnLoad``)."""
    try:
        workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    except ZIP_ERRORS:
        return [], False
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
    return parts, recalculates_on_load(workbook)


class _Prescan:
    """:func:`scan_sheet` of the likely first worksheet, in a thread while calamine opens the workbook.

    calamine releases the GIL while it loads the shared strings, so the scan costs no time then.
    """

    def __init__(self, path: Path, part: str | None) -> None:
        self.path = path
        self.part = part
        self._scan: SheetScan | None = None
        self.formats: dict[int, str] = {}
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if part is not None:
            self._thread = threading.Thread(target=self._run, name="formatkit-xlsx-scan", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            with zipfile.ZipFile(self.path) as archive:
                assert self.part is not None
                self.formats = number_formats(archive)
                self._scan = scan_sheet(archive, self.part, self.formats)
        except BaseException as exc:  # handed to the caller's thread
            self._error = exc

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def result(self, archive: zipfile.ZipFile, part: str) -> SheetScan:
        if part != self.part:
            self.join()
            return scan_sheet(archive, part, self.formats)
        self.join()
        if self._error is not None:
            raise self._error
        assert self._scan is not None
        return self._scan


def _read(
    path: Path, archive: zipfile.ZipFile, parts: list[str | None], prescan: _Prescan, stale: bool, wanted: str | None
) -> SheetData:
    from python_calamine import CalamineWorkbook, PasswordError

    try:
        workbook = CalamineWorkbook.from_path(str(path))
        kinds = [str(m.typ) for m in workbook.sheets_metadata]
        names = list(workbook.sheet_names)
        first = pick_sheet(names, wanted, [k.endswith("WorkSheet") for k in kinds])
        if first is None:
            raise Unreadable("empty_file", Msg("empty_file.only_charts"))
        part = parts[first] if first < len(parts) else None
        scan = prescan.result(archive, part) if part is not None else None
        if scan is not None and part is not None:
            if scan.damage is not None:
                raise _damaged(scan.damage, names[first])
            if _too_large(scan):
                scan = exact_extent(archive, part, scan)
            _check_size(scan, names[first])
        else:
            # The sheet's part could not be resolved as calamine will: bound every worksheet part instead.
            for name in archive.namelist():
                if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                    other = scan_sheet(archive, name)
                    if _too_large(other):
                        _check_size(exact_extent(archive, name, other), names[first])
        hidden = str(workbook.sheets_metadata[first].visible).endswith("Hidden")  # Hidden, VeryHidden
        sheet = workbook.get_sheet_by_index(first)
        # The sheet holds its own copy of the cells: the workbook's (every shared string) goes before the
        # grid is built, or the text would be in memory three times at the peak instead of twice.
        del workbook
        rows: list[list[Any]] = sheet.to_python(skip_empty_area=False)
        merged = [(r0, c0, r1, c1) for (r0, c0), (r1, c1) in (sheet.merged_cell_ranges or [])]
        del sheet
    except Unreadable:
        raise
    except PasswordError:
        raise Unreadable("unreadable_file", Msg("unreadable_file.encrypted_short")) from None
    except Exception as exc:  # calamine's errors: damaged XML or zip entries
        raise Unreadable(
            "unreadable_file",
            Msg("unreadable_file.damaged", error=f"{type(exc).__name__}: {_clip(str(exc))}"),
        ) from None
    except BaseException as exc:  # a Rust panic surfaces as pyo3's PanicException (a BaseException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
            raise
        raise Unreadable(
            "unreadable_file",
            Msg("unreadable_file.damaged_plain"),
        ) from None
    details = Details()
    if scan is not None and part is not None and (scan.suspects or scan.hidden or scan.styled):
        details = find_details(archive, part, formats=prescan.formats if scan.styled else None, stale=stale)
        _apply(rows, details)
    extra = (
        [
            names[i]
            for i, kind in enumerate(kinds)
            if i != first and kind.endswith("WorkSheet") and i < len(parts) and _has_values(archive, parts[i])
        ]
        if wanted is None
        else []
    )  # a sheet chosen by name: the others are not a surprise
    return SheetData(
        name=names[first],
        rows=rows,
        merged=merged,
        extra_sheets=extra,
        skipped=names[:first],
        true_length=TrueLengths(path, part) if part is not None else None,
        hidden=hidden,
        hidden_rows=details.hidden_rows,
        hidden_cols=details.hidden_cols,
        filtered=details.filtered,
        totals_rows=totals_rows(archive, part) if part is not None else [],
    )


def _has_values(archive: zipfile.ZipFile, part: str | None) -> bool:
    return part is not None and has_values(archive, part)


def _damaged(damage: tuple[str, Any], sheet: str) -> Unreadable:
    """The refusal of a sheet whose XML is damaged so that its cells cannot be trusted (Excel would repair
    it, dropping or moving cells): a row written twice, a negative shared-string index."""
    kind, where = damage
    if kind == "row":
        return Unreadable(
            "unreadable_file",
            Msg("unreadable_file.repeated_row", sheet=sheet, row=where),
            {"sheet": sheet, "row": where},
        )
    row, letters, index = where
    return Unreadable(
        "unreadable_file",
        Msg("unreadable_file.shared_string", sheet=sheet, cell=f"{letters}{row}", index=index),
        {"sheet": sheet, "row": row, "column": letters},
    )


def _too_large(scan: SheetScan) -> bool:
    grid = scan.rows * scan.cols
    return not (grid <= FREE_CELLS or (grid <= MAX_CELLS and grid <= DENSITY * scan.cells))


def _check_size(scan: SheetScan, name: str) -> None:
    if not _too_large(scan):
        return
    rows, cols = scan.rows, scan.cols
    grid = rows * cols
    sparse = grid <= MAX_CELLS
    why = Msg("frag.sparse_sheet", cells=scan.cells) if sparse else Msg("frag.huge_sheet", limit=MAX_CELLS)
    raise Unreadable(
        "unreadable_file",
        Msg(
            "unreadable_file.sheet_too_large",
            sheet=name,
            rows=rows,
            column=column_letter(max(cols, 1) - 1),
            cells=grid,
            why=why,
        ),
    )


def _apply(rows: list[list[Any]], details: Details) -> None:
    """Put what the XML says into calamine's grid: error values, formulas without (or with stale) values,
    and numbers as their number format shows them."""
    width = max((len(r) for r in rows), default=0)
    for (r, c), mark in details.marks.items():
        if r < 0 or c < 0:
            continue
        while len(rows) <= r:
            rows.append([""] * width)
        row = rows[r]
        if len(row) <= c:
            row.extend([""] * (c + 1 - len(row)))
        if isinstance(mark, StaleValue):
            if row[c] not in ("", None):
                row[c] = StaleValue(row[c])
        # calamine left these cells empty; a formula that has a cached value keeps it.
        elif row[c] in ("", None) or isinstance(mark, CellError):
            row[c] = mark
    for (r, c), code in details.formats.items():
        if 0 <= r < len(rows) and 0 <= c < len(rows[r]):
            value = rows[r][c]
            if type(value) in (int, float):
                rows[r][c] = shown(value, code)


def shown(value: float | int, code: str) -> Any:
    """A number under its format: the plain number when it shows as General does, else a :class:`Shown`."""
    text = render(value, code)
    plain = general(value)
    if text is None:
        return Shown(plain, value, code, rendered=False)
    # Padding for alignment (``_)``, ``?``) is layout, not content.
    text = text.strip()
    return value if text == plain else Shown(text, value, code)


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
