"""CSV files: the cells of a table written as text, as Excel and LibreOffice save them and read them back.

The text is decoded the way Excel's two CSV flavours write it: UTF-8 (with the byte-order mark of "CSV UTF-8",
or without), else GBK (GB18030, Excel's plain "CSV" on a Chinese Windows), else UTF-16 with its mark (Excel's
"Unicode text"). A file that is none of them cleanly is refused, never read as mojibake: GB18030 decodes almost
any bytes, so a decoding that does not read as Chinese text (Big5, Latin-1, ...) is refused too.

Excel's own quirks: the separator is ``,``, or ``;`` where the locale writes decimal commas, or a tab (the one
found as often on most of the first rows; a first line ``sep=;`` names it, as Excel reads it); a
quoted cell may hold line breaks (a row is one record, numbered as Excel numbers rows, not lines); a cell
``="0123"`` is Excel's way to keep text that looks like a number (read as ``0123``); a cell Excel would
compute (``=A1+1``) is a :class:`~formatkit._reading.cells.FormulaText`, kept as written and warned about
by the cell rules; an error value Excel saved as its text (``#N/A``) is a :class:`~formatkit._reading.cells.CellError`;
a number Excel had cut to 15 digits and wrote as ``1.23456789012346E+17`` is that number (the cell rules say so).

:func:`csv_rows` yields the rows with their numbers (usable on its own); :func:`read_csv` is the table
format's ``sheet`` function (:data:`formatkit._core.formats.INPUT_FORMATS`).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formatkit._core.errors import UnreadablePathError
from formatkit._core.messages import Msg
from formatkit._reading.cells import CellError, FormulaText, SheetData, Unreadable, column_letter, pick_sheet

__all__ = ["CsvLayout", "csv_records", "csv_rows", "decode_csv", "raw_fields", "read_csv", "unwrap_cell"]

#: The separators Excel writes (``,``; ``;`` in locales with a decimal comma; a tab for "text").
SEPARATORS = (",", ";", "\t")
#: Error values as Excel writes them into a CSV (a formula's error is saved as its text).
ERROR_TEXTS = frozenset(
    ("#N/A", "#REF!", "#VALUE!", "#DIV/0!", "#NAME?", "#NUM!", "#NULL!", "#SPILL!", "#CALC!", "#GETTING_DATA")
)
#: Of the distinct non-ASCII characters a GB18030 decoding yields, at most this share may lie outside GB2312
#: (the 7,445 common ones): a Chinese text saved as GBK stays far below it, bytes of another encoding do not.
RARE_SHARE = 0.2
#: A cell may be this long (Python's csv module stops at 128 KiB; the cell rules say when one is too long).
MAX_FIELD = 64 * 1024**2
#: A number as Excel writes one it cut to 15 significant digits (1.23456789012346E+17, LibreOffice E+017).
_CUT_NUMBER = re.compile(r"[+-]?\d\.\d{14,}[eE][+-]?\d+")
_ASCII = re.compile(r"[\x00-\x7f]+")
#: Kana, Greek and Cyrillic: what another encoding's bytes read as GB18030 yield, and Chinese text does not.
_MOJIBAKE = re.compile(r"[\u0370-\u04ff\u3040-\u30ff]")
_TEXT_FORMULA = re.compile(r'="((?:[^"]|"")*)"')
_SEP_LINE = re.compile(r"sep=(.)\r?\n?", re.S)


@dataclass(frozen=True)
class CsvLayout:
    """How a CSV file is written, so that a repaired copy is written the same way."""

    #: The Python codec ("utf-8", "utf-8-sig", "gb18030", "utf-16").
    encoding: str
    #: The name said to the user ("UTF-8", "GBK", ...).
    label: str
    delimiter: str = ","
    #: The line break between rows ("\r\n" as Excel writes, or "\n").
    newline: str = "\r\n"
    #: Excel's ``sep=;`` first line as written (its line break included; kept by a rewrite, and not a row).
    sep_line: str = ""


def decode_csv(data: bytes) -> tuple[str, CsvLayout]:
    """The text of a CSV file and how it is written; :class:`Unreadable` when no encoding reads it cleanly."""
    text, encoding, label = _decoded(data)
    sep_line = ""
    match = _SEP_LINE.match(text)
    if match is not None and match.group(1) not in "\r\n":
        delimiter, sep_line = match.group(1), match.group(0)
    else:
        delimiter = _delimiter(text)
    newline = "\r\n" if "\r\n" in text[:65536] or "\n" not in text[:65536] else "\n"
    return text, CsvLayout(encoding, label, delimiter, newline, sep_line)


def _decoded(data: bytes) -> tuple[str, str, str]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) and not data.startswith(b"\xff\xfe\x00\x00"):
        try:
            return data.decode("utf-16"), "utf-16", "UTF-16"
        except UnicodeDecodeError:
            pass
    elif b"\x00" not in data[:4096]:
        try:
            if data.startswith(b"\xef\xbb\xbf"):
                return data[3:].decode("utf-8"), "utf-8-sig", "UTF-8"
            return data.decode("utf-8"), "utf-8", "UTF-8"
        except UnicodeDecodeError:
            pass
        try:
            text = data.decode("gb18030")
        except UnicodeDecodeError:
            pass
        else:
            if _plausible_chinese(text, data):
                return text, "gb18030", "GBK"
    raise Unreadable("unreadable_file", Msg("unreadable_file.csv_encoding"))


def _plausible_chinese(text: str, data: bytes) -> bool:
    """Whether a GB18030 decoding of ``data`` reads as Chinese text. Simplified Chinese: its distinct
    non-ASCII characters are mostly common ones (GB2312). Traditional Chinese saved as GBK holds characters
    outside GB2312 too, but bytes Big5 cannot read, and no Japanese kana, Greek or Cyrillic letters: those
    are what Big5 (or Latin-1) bytes read as GB18030 yield among their rare characters. A large file is
    judged on 16 slices spread over it."""
    if len(text) > 16 * _SLICE:
        step = len(text) // 16
        text = "".join(text[start : start + _SLICE] for start in range(0, len(text), step))
    wide = "".join(set(_ASCII.sub("", text)))
    rare = len(wide) - len(wide.encode("gb2312", "ignore").decode("gb2312"))
    if rare <= RARE_SHARE * len(wide):
        return True
    if _MOJIBAKE.search(wide):
        return False
    try:
        data.decode("big5")
    except UnicodeDecodeError:
        return True  # not Big5: traditional characters saved as GBK
    return False


_SLICE = 16_384


def _delimiter(text: str) -> str:
    """The separator of the table: of ``,``, ``;`` and tab, the one found outside quotes the same number of
    times on most of the first rows (Excel writes every row as wide as the table; a title row above the
    header may hold none), the most frequent breaking a tie; a comma when none is found."""
    rows: list[dict[str, int]] = [dict.fromkeys(SEPARATORS, 0)]
    quoted = False
    for char in text[:65536]:
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char in rows[-1]:
            rows[-1][char] += 1
        elif char == "\n":
            if len(rows) == _SNIFF_ROWS:
                break
            rows.append(dict.fromkeys(SEPARATORS, 0))

    def score(sep: str) -> tuple[int, int]:
        counts = [row[sep] for row in rows if row[sep]]
        if not counts:
            return (0, 0)
        usual = max(set(counts), key=counts.count)
        return (counts.count(usual), sum(counts))

    best = max(SEPARATORS, key=score)
    return best if score(best)[0] else ","


#: The rows the separator is judged on.
_SNIFF_ROWS = 10


def csv_rows(path: str | os.PathLike[str]) -> Iterator[tuple[int, list[str]]]:
    """The rows of a CSV file as ``(row number, cells)``, numbered as Excel numbers them when it opens the
    file (a quoted line break does not start a row; a ``sep=`` line is not one), the cells as written but
    ``="0123"`` unwrapped. :class:`~formatkit.errors.UnreadablePathError`, saying why, when the file cannot
    be read or decoded (the reason ``validate`` gives as its ``unreadable_file`` issue)."""
    try:
        text, layout = decode_csv(_bytes(Path(path)))
        for number, cells, _ in csv_records(text, layout, sources=False):
            yield number, [unwrap_cell(cell) for cell in cells]
    except Unreadable as problem:
        raise UnreadablePathError(f"{path}: {problem.message.render()}") from None


def csv_records(text: str, layout: CsvLayout, *, sources: bool = True) -> Iterator[tuple[int, list[str], str]]:
    """The rows of a decoded CSV text: number, cells exactly as written (``="0123"`` kept) and the text the
    row was read from (its line break included), so that a rewrite can copy a row it leaves unchanged
    (``""`` when ``sources`` is False: a reader that only needs the cells)."""
    if layout.sep_line:
        text = text[len(layout.sep_line) :]
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FIELD))
    lines = io.StringIO(text, newline="")
    held: list[list[str]] = [[]]  # the lines of the row being read (the list is replaced at each row)

    def feed() -> Iterator[str]:
        for line in lines:
            held[0].append(line)
            yield line

    reader = csv.reader(feed(), delimiter=layout.delimiter, strict=False)
    number, last = 0, held[0]
    try:
        for number, cells in enumerate(reader, start=1):
            last = held[0]
            held[0] = []
            yield number, cells, "".join(last) if sources else ""
    except csv.Error as exc:
        raise Unreadable("unreadable_file", Msg("unreadable_file.damaged", error=f"csv: {exc}")) from None
    source = "".join(last)
    fields, unclosed = raw_fields(source.rstrip("\r\n"), layout.delimiter)
    if unclosed:  # only the last row can be: an unclosed quote runs to the end of the file
        column = column_letter(len(fields) - 1)
        count = source.count("\n") + (not source.endswith("\n"))
        message = Msg("unreadable_file.csv_quote", row=number, column=column, lines=count)
        raise Unreadable("unreadable_file", message, {"row": number, "column": column})


def raw_fields(body: str, delimiter: str) -> tuple[list[str], bool]:
    """The fields of one row's text exactly as written (quotes included), and whether the last one opens a
    quote it never closes. A quote opens a quoted cell only at the start of a cell (elsewhere it is text)."""
    fields: list[str] = []
    start, quoted, i, end = 0, False, 0, len(body)
    while i < end:
        char = body[i]
        if quoted:
            if char == '"':
                if i + 1 < end and body[i + 1] == '"':
                    i += 1  # a quote written twice inside a quoted cell
                else:
                    quoted = False
        elif char == '"' and i == start:
            quoted = True
        elif char == delimiter:
            fields.append(body[start:i])
            start = i + 1
        i += 1
    fields.append(body[start:])
    return fields, quoted


def unwrap_cell(cell: str) -> str:
    """``="0123"`` (Excel's text that looks like a number) → ``0123``; any other cell as it is."""
    if cell.startswith('="'):
        match = _TEXT_FORMULA.fullmatch(cell)
        if match is not None:
            return match.group(1).replace('""', '"')
    return cell


def read_csv(path: Path, sheet: str | None = None) -> SheetData:
    """The table of a CSV file as a sheet named after the file (as Excel names it when it opens one)."""
    name = path.stem
    pick_sheet([name], sheet, [True])
    text, layout = decode_csv(_bytes(path))
    try:
        rows: list[list[Any]] = [
            [cell if cell[:1] not in _SPECIAL and "\r" not in cell else _value(cell) for cell in cells]
            for _, cells, _ in csv_records(text, layout, sources=False)
        ]
    except Unreadable as problem:
        if problem.place:
            problem.place = {"sheet": name, **problem.place}
        raise
    data = SheetData(name=name, rows=rows, from_csv=True)
    if layout.encoding == "gb18030":
        data.notes.append(("csv_encoding", Msg("csv_encoding", encoding=layout.label)))
    return data


def _value(cell: str) -> Any:
    """A cell whose first character (``_SPECIAL``) says it may be more than text, as the table rules read it:
    text (``="0123"`` unwrapped), an Excel error value, text Excel would compute, or a number Excel cut to its
    15 digits (the number, as the sheet held it: the cell rules say it was cut)."""
    if "\r" in cell:  # a line break inside a quoted cell, as Windows writes it: one "\n", as in a workbook
        cell = cell.replace("\r\n", "\n").replace("\r", "\n")
        if cell[:1] not in _SPECIAL:
            return cell
    first = cell[0]
    if first == "=":
        text = unwrap_cell(cell)
        return text if text is not cell else FormulaText(cell) if len(cell) > 1 else cell
    if first == "#":
        return CellError(cell) if cell in ERROR_TEXTS else cell
    if len(cell) >= 19 and _CUT_NUMBER.fullmatch(cell):
        number = float(cell)
        if abs(number) >= 1e15:
            return number
    return cell


#: The first characters of a cell that may be more than its text (an empty cell is text).
_SPECIAL = frozenset("=#0123456789+-")


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise Unreadable("unreadable_file", Msg("unreadable_file.cannot_open", reason=exc.strerror or exc)) from None
