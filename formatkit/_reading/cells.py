"""The values a workbook reader returns, whatever the file kind (.xlsx or .xls).

:class:`SheetData` holds the first sheet: ``rows[i][j]`` is the value of Excel row ``i + 1``, column
``j``. A value is ``''`` or None when the cell is empty, else a str, int, float, bool, a date/time, a
:class:`CellError` (``#N/A``...) or :data:`NO_VALUE` (a formula with no saved result). A file that cannot
be read raises :class:`Unreadable`, which the Excel driver turns into one issue;
:func:`formatkit._reading.workbook.read_sheet` reads one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from formatkit._core.codes import Code
from formatkit._core.draft import Place
from formatkit._core.messages import Msg

__all__ = [
    "NO_VALUE",
    "CellError",
    "FormulaText",
    "LongText",
    "NoValue",
    "SheetData",
    "Shown",
    "StaleValue",
    "Unreadable",
    "column_letter",
    "pick_sheet",
]

#: Guards against zip bombs and absurd sheets (a stray cell at XFD1048576 would be 17 billion cells).
MAX_PART_BYTES = 4 * 1024**3
MAX_RATIO = 1000
#: A part this large that packs better than MAX_RATIO to one is refused as a zip bomb.
BOMB_MIN_BYTES = 100 * 1024**2
MAX_CELLS = 40_000_000
#: A grid up to this many cells is always read; a larger one only when cells fill at least 1/DENSITY of it
#: (a few stray far cells in a small file would otherwise make the reader allocate gigabytes).
FREE_CELLS = 2_000_000
DENSITY = 64


class CellError:
    """An Excel error value held by a cell, such as ``#N/A`` or ``#REF!``."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"CellError({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CellError) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


class NoValue:
    """A formula cell whose result was never saved (the file was written by a program, not Excel)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE = NoValue()


class LongText(str):
    """Text the reading library cut at Excel's limit; ``length`` is what the file really holds."""

    length: int

    def __new__(cls, text: str, length: int) -> LongText:
        self = super().__new__(cls, text)
        self.length = length
        return self


class Shown(str):
    """A number cell as Excel shows it under its number format (``3.14`` for 3.14159 formatted ``0.00``).

    ``raw`` is the stored number and ``code`` the format; ``rendered`` is False when the format is beyond
    formatkit's renderer and the text is the General rendering of ``raw``.
    """

    raw: float | int
    code: str
    rendered: bool

    def __new__(cls, text: str, raw: float | int, code: str, *, rendered: bool = True) -> Shown:
        self = super().__new__(cls, text)
        self.raw = raw
        self.code = code
        self.rendered = rendered
        return self


class FormulaText(str):
    """Text that Excel would compute as a formula when it opens the file (a CSV cell starting with ``=``):
    the text is what the file holds, and what formatkit reads."""


class StaleValue:
    """A formula's cached value that the workbook itself declares stale (``fullCalcOnLoad``)."""

    __slots__ = ("cached",)

    def __init__(self, cached: object) -> None:
        self.cached = cached

    def __repr__(self) -> str:
        return f"StaleValue({self.cached!r})"


class Unreadable(Exception):
    """The workbook cannot be read; ``code`` and ``message`` become the file's issue."""

    def __init__(self, code: Code, message: Msg, place: Place | None = None) -> None:
        super().__init__(message.render())
        self.code = code
        self.message = message
        #: Where in the workbook, when the damage has a place (a sheet, a row, a cell).
        self.place: Place = place or {}


@dataclass(slots=True)
class SheetData:
    """The first sheet: its name, its rows, its merged ranges and the other sheets that hold data."""

    name: str
    rows: list[list[Any]]
    #: Merged ranges as 0-based inclusive (first_row, first_col, last_row, last_col).
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)
    extra_sheets: list[str] = field(default_factory=list)
    #: Other sheets precede the first worksheet (chart sheets): their names, for the message.
    skipped: list[str] = field(default_factory=list)
    #: For a text the reader returned cut at 32,767 characters: its real length, by 0-based (row, col).
    true_length: Callable[[int, int], int] | None = None
    #: The first sheet is hidden in Excel: the user does not see the sheet that is read.
    hidden: bool = False
    #: 1-based numbers of rows hidden in Excel (hidden by hand or filtered out), and 0-based hidden columns.
    hidden_rows: list[int] = field(default_factory=list)
    hidden_cols: list[int] = field(default_factory=list)
    #: The sheet has an AutoFilter: hidden rows are then (mostly) filtered out.
    filtered: bool = False
    #: 1-based rows that are an Excel table's totals row.
    totals_rows: list[int] = field(default_factory=list)
    #: What the reader found about the whole file (a CSV's encoding), reported at the sheet.
    notes: list[tuple[Code, Msg]] = field(default_factory=list)
    #: Read from a CSV file (one table, no other sheets): what ``formatkit fix`` can do differs.
    from_csv: bool = False


def pick_sheet(names: list[str], wanted: str | None, usable: list[bool]) -> int | None:
    """The index of the sheet to read: the first usable one, or the one named ``wanted`` (exactly, else
    ignoring case and surrounding spaces); :class:`Unreadable` naming the sheets when there is none."""
    if wanted is None:
        return next((i for i, ok in enumerate(usable) if ok), None)
    folded = wanted.strip().casefold()
    exact = [i for i, name in enumerate(names) if usable[i] and name == wanted]
    loose = [i for i, name in enumerate(names) if usable[i] and name.strip().casefold() == folded]
    if exact or loose:
        return (exact or loose)[0]
    shown = ", ".join(f'"{name}"' for name, ok in zip(names, usable, strict=False) if ok)
    raise Unreadable("unreadable_file", Msg("unreadable_file.no_sheet", sheet=wanted, sheets=shown))


def column_index(letters: str) -> int:
    """A → 0, Z → 25, AA → 26 (upper-case letters, as a cell reference writes them)."""
    index = 0
    for char in letters:
        index = index * 26 + ord(char) - 64
    return index - 1


def column_letter(index: int) -> str:
    """0 → A, 25 → Z, 26 → AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters
