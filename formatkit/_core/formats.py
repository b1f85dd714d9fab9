"""The input formats: one table, :data:`INPUT_FORMATS`, from a file's extension to what reads it.

Every place that depends on the kind of an input file reads this table: :func:`formatkit._drivers.open_reader`
(which reader, hence which rules), :func:`formatkit._reading.workbook.read_sheet` (which cell reader, by the
file's first bytes), ``formatkit fix`` (which repair, and the extension of the repaired copy), convert's
parallel reading of a large file, and the messages that list the extensions formatkit reads.

A row names its reader and functions by dotted path (``"package.module:name"``), imported only when a file of
that kind is read, so the table costs nothing at start (a jsonl convert never imports the Excel readers) and
sits below every layer it names. A callable is accepted in place of a path (a reader registered by a test).

The messages that list the extensions formatkit reads are written from the table when the catalogues load
(a built-in format is a row of this file). Adding a format is one row here and its reader; see
CONTRIBUTING.md, "Add an input format" (tests/formats/test_format_recipe.py registers a toy one).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from formatkit._lazy import load_ref

__all__ = [
    "INPUT_FORMATS",
    "TABLE_RULES",
    "InputFormat",
    "input_format",
    "listed_suffixes",
    "load",
    "readable_suffixes",
]

#: A function or class, by dotted path (``"formatkit._reading.xls:read_xls"``) or itself.
Ref = str | Callable[..., Any]

#: The reader of tables (a header row, then one row per turn): the rules of an Excel sheet, for any format
#: whose cells a ``sheet`` function reads.
TABLE_RULES = "formatkit._drivers.excel:ExcelReader"


@dataclass(frozen=True)
class InputFormat:
    """One kind of input file.

    - ``reader``: the :class:`~formatkit._drivers.DraftReader` class, called as
      ``reader(path, mode=, sink=, max_rows=, fast=, sheet=, start=)``; it applies its rules (the table
      rules of :data:`TABLE_RULES`, the jsonl rules, or its own).
    - ``sheet``: for the table rules, the function ``(path, sheet_name) -> SheetData`` that reads the cells
      (:mod:`formatkit._reading.cells`); raises :class:`~formatkit._reading.cells.Unreadable`.
    - ``signatures``: first bytes that identify the format whatever the file is named (a workbook saved
      with the other workbook's extension is said so, not misread).
    - ``repair``: ``formatkit fix``'s function ``(path) -> Repaired | None`` (:mod:`formatkit._fixing`); None
      when fix does not repair this format. ``fixed``: the extension of the repaired copy.
    - ``parts``: a large file may be read by two processes, split at a line (convert's parallel path).
    """

    reader: Ref
    sheet: Ref | None = None
    signatures: tuple[bytes, ...] = ()
    repair: Ref | None = None
    fixed: str | None = None
    parts: bool = False


_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_OLE = (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",)

#: Every input format by its extension (lower case, with the dot), in the order the messages list them.
INPUT_FORMATS: dict[str, InputFormat] = {
    ".xlsx": InputFormat(
        TABLE_RULES,
        sheet="formatkit._reading.xlsx:read_xlsx",
        signatures=_ZIP,
        repair="formatkit._fixing.excel:repair_excel",
        fixed=".xlsx",
    ),
    ".xls": InputFormat(
        TABLE_RULES,
        sheet="formatkit._reading.xls:read_xls",
        signatures=_OLE,
        repair="formatkit._fixing.excel:repair_excel",
        fixed=".xlsx",
    ),
    ".jsonl": InputFormat(
        "formatkit._drivers.jsonl:JsonlReader",
        repair="formatkit._fixing.jsonl:repair_jsonl_file",
        fixed=".jsonl",
        parts=True,
    ),
    ".csv": InputFormat(
        TABLE_RULES,
        sheet="formatkit._reading.csv_file:read_csv",
        repair="formatkit._fixing.csv_file:repair_csv",
        fixed=".csv",
    ),
}


def input_format(path: str | os.PathLike[str]) -> InputFormat | None:
    """The format of ``path`` by its extension (any case), or None when formatkit does not read it."""
    return INPUT_FORMATS.get(PurePath(path).suffix.lower())


def readable_suffixes() -> tuple[str, ...]:
    """The extensions formatkit reads, in the table's order."""
    return tuple(INPUT_FORMATS)


def listed_suffixes(sep: str, last: str) -> str:
    """The extensions formatkit reads as a sentence lists them: ``listed_suffixes(", ", " and ")`` is
    ``.xlsx, .xls, .jsonl and .csv`` (the messages that say what formatkit reads are written from the table)."""
    *most, final = readable_suffixes()
    return f"{sep.join(most)}{last}{final}" if most else final


def load(ref: Ref) -> Any:
    """The function or class ``ref`` names (imported now), or ``ref`` itself when it is one."""
    return load_ref(ref) if isinstance(ref, str) else ref
