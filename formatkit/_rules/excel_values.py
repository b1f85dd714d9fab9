"""One Excel cell → the text or session id it stands for, with the cell rules of FORMATS.md.

Numbers become text as Excel shows them (``1.0`` → ``1``); dates, booleans, error values and formulas
without a saved value are errors in a text column; a cell over Excel's 32,767 characters is an error.
The hot path (a plain string) stays inline in the caller; these functions handle everything else.
"""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

from formatkit._core.issues import IssueSink
from formatkit._reading.cells import CellError, LongText, NoValue, Shown, StaleValue
from formatkit._reading.numfmt import general

__all__ = ["INVALID_ID", "MAX_CELL_CHARS", "number_text", "session_id_value", "text_value"]

MAX_CELL_CHARS = 32_767
#: Beyond 2**53 Excel's floats no longer hold every integer (and JSON readers lose precision).
MAX_ID = 2**53
_INT_TEXT = re.compile(r"[+-]?\d+")


class _Invalid:
    __slots__ = ()

    def __repr__(self) -> str:
        return "INVALID_ID"


#: A session_id that is present but not an integer (already reported).
INVALID_ID = _Invalid()


def number_text(value: float | int) -> str:
    """A number the way Excel's General format shows it: 1.0 → "1", 2.5 → "2.5", 0.1+0.2 → "0.3"."""
    return general(value)


def text_value(value: Any, place: dict[str, Any], sink: IssueSink) -> str | None:
    """The text of a cell in a text column; None when empty. Reports the cell's problem, if any."""
    if value is None or value == "":
        return None
    if type(value) is Shown:
        _shown(value, place, sink)
        return str(value)
    if isinstance(value, StaleValue):
        stale_value(value, place, sink)
        return text_value(value.cached, place, sink)
    if isinstance(value, str):
        length = value.length if isinstance(value, LongText) else len(value)
        if length > MAX_CELL_CHARS:
            _too_long(length, place, sink)
        return value
    if isinstance(value, bool):
        shown = "TRUE" if value else "FALSE"
        sink.add(
            "boolean_cell",
            f"The cell holds the logical value {shown}, not text. Type the text you mean; to keep the word "
            f"{shown}, format the cell as Text first (or type '{shown}).",
            **place,
        )
        return shown
    if isinstance(value, (int, float)):
        return number_text(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        shown = value.isoformat() if not isinstance(value, datetime.timedelta) else str(value)
        sink.add(
            "date_cell",
            f"The cell holds a date/time ({shown}), not text: Excel converted what was typed. Format the "
            "cell as Text and type the text again.",
            **place,
        )
        return shown
    if isinstance(value, CellError):
        error_cell(value, place, sink)
        return value.text
    if isinstance(value, NoValue):
        formula_without_value(place, sink)
        return "="
    return str(value)


def session_id_value(value: Any, place: dict[str, Any], sink: IssueSink) -> int | _Invalid | None:
    """The integer session id of a cell; None when empty; INVALID_ID (reported) when not an integer."""
    if value is None or value == "":
        return None
    if type(value) is Shown:
        value = value.raw  # an id is the stored number, whatever its format shows
    if isinstance(value, StaleValue):
        stale_value(value, place, sink)
        return INVALID_ID
    if isinstance(value, bool):
        problem = f"the logical value {'TRUE' if value else 'FALSE'}"
    elif isinstance(value, (int, float)) and (not math.isfinite(value) or abs(value) >= MAX_ID):
        problem = f"{number_text(value)}, too large for an id"
    elif isinstance(value, int):
        return value
    elif isinstance(value, float):
        if value.is_integer():
            return int(value)
        problem = f"{number_text(value)}, which has a fraction"
    elif isinstance(value, str):
        text = value.strip()
        if _INT_TEXT.fullmatch(text) and len(text) < 17 and abs(int(text)) < MAX_ID:
            return int(text)
        if not text:
            return None
        problem = f'the text "{text[:40]}"'
    elif isinstance(value, CellError):
        error_cell(value, place, sink)
        return INVALID_ID
    elif isinstance(value, NoValue):
        formula_without_value(place, sink)
        return INVALID_ID
    else:
        problem = f"a date/time ({value})"
    sink.add(
        "invalid_session_id",
        f"session_id is {problem}; it must be a whole number (0, 1, 2, ...). Rows with the same number "
        "form one multi-turn conversation.",
        **place,
    )
    return INVALID_ID


def error_cell(value: CellError, place: dict[str, Any], sink: IssueSink) -> None:
    sink.add(
        "error_cell",
        f"The cell shows the Excel error {value.text}, usually a broken formula or reference. Fix the "
        "formula or replace it with its value (Copy, then Paste Special → Values).",
        **place,
    )


def formula_without_value(place: dict[str, Any], sink: IssueSink) -> None:
    sink.add(
        "formula_without_value",
        "The cell holds a formula whose result was never saved (the file was written by a program, not "
        "Excel), so there is no value to read. Open the file in Excel and save it, or write the value "
        "instead of the formula.",
        **place,
    )


def stale_value(value: StaleValue, place: dict[str, Any], sink: IssueSink) -> None:
    cached = value.cached
    shown = general(cached) if isinstance(cached, (int, float)) and not isinstance(cached, bool) else str(cached)
    sink.add(
        "stale_formula_value",
        f'The cell holds a formula whose saved value ("{shown}") the workbook itself marks as out of date '
        "(it asks Excel to recalculate everything on opening: pandas and xlsxwriter write a placeholder 0). "
        "Open the file in Excel and save it, or write the value instead of the formula. Text that starts "
        'with "=" must be typed with a leading apostrophe.',
        **place,
    )


def _shown(value: Shown, place: dict[str, Any], sink: IssueSink) -> None:
    stored = general(value.raw)
    if not value.rendered:
        sink.add(
            "number_format",
            f'The cell stores {stored} under the number format "{value.code}", which formatkit cannot render; '
            f"it is read as {stored}. If Excel shows something else, type the text you mean (format the cell "
            "as Text first).",
            **place,
        )
        return
    sink.add(
        "number_format",
        f'The cell shows "{value}" (number format "{value.code}") but stores {stored}; the shown text is '
        f"used, as Excel displays it, and {stored} is kept in meta.raw_values. If the stored value is meant, "
        "set the cell's format to General (or Text and type it).",
        **place,
    )


def _too_long(length: int, place: dict[str, Any], sink: IssueSink) -> None:
    sink.add(
        "cell_too_long",
        f"The cell holds {length:,} characters, more than Excel's limit of {MAX_CELL_CHARS:,}; Excel "
        "would cut it. Shorten the text, or keep such records in a jsonl file.",
        **place,
    )
