"""One Excel cell → the text or session id it stands for, with the cell rules of docs/pages/reference/formats.md.

Numbers become text as Excel shows them (``1.0`` → ``1``); dates, booleans, error values and formulas
without a saved value are errors in a text column; a cell over Excel's 32,767 characters is an error.
The hot path (a plain string) stays inline in the caller; these functions handle everything else.
"""

from __future__ import annotations

import datetime
import math
import re
from typing import Any

from formatkit._core.draft import Place
from formatkit._core.issues import IssueSink
from formatkit._core.messages import Msg
from formatkit._reading.cells import CellError, FormulaText, LongText, NoValue, Shown, StaleValue
from formatkit._reading.numfmt import general

__all__ = ["INVALID_ID", "MAX_CELL_CHARS", "number_text", "session_id_value", "text_value"]

MAX_CELL_CHARS = 32_767
#: Beyond 2**53 Excel's floats no longer hold every integer (and JSON readers lose precision).
MAX_ID = 2**53
#: From 10**15 on a number holds more than the 15 significant digits Excel keeps (it shows 1.23456789012346E+17).
LONG_NUMBER = 1e15
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


def text_value(value: Any, place: Place, sink: IssueSink) -> str | None:
    """The text of a cell in a text column; None when empty. Reports the cell's problem, if any."""
    if value is None or value == "":
        return None
    if type(value) is Shown:
        _shown(value, place, sink)
        return str(value)
    if isinstance(value, StaleValue):
        stale_value(value, place, sink)
        return text_value(value.cached, place, sink)
    if type(value) is FormulaText:
        sink.add("formula_text", Msg("formula_text", text=value[:40]), **place)
    if isinstance(value, str):
        length = value.length if isinstance(value, LongText) else len(value)
        if length > MAX_CELL_CHARS:
            _too_long(length, place, sink)
        return value
    if isinstance(value, bool):
        shown = "TRUE" if value else "FALSE"
        sink.add(
            "boolean_cell",
            Msg("boolean_cell", shown=shown),
            **place,
        )
        return shown
    if isinstance(value, (int, float)):
        shown = number_text(value)
        if type(value) is float and abs(value) >= LONG_NUMBER and _fills_15_digits(value):
            sink.add("long_number", Msg("long_number", shown=shown), **place)
        return shown
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        shown = value.isoformat() if not isinstance(value, datetime.timedelta) else str(value)
        typed = _typed(value)
        if typed is None:
            message = Msg("date_cell", shown=shown)
        else:  # a time of day is a time, not a date: say which Excel made of what was typed
            key = "date_cell.typed_time" if isinstance(value, datetime.time) else "date_cell.typed"
            message = Msg(key, shown=shown, typed=typed)
        sink.add("date_cell", message, **place)
        return shown
    if isinstance(value, CellError):
        error_cell(value, place, sink)
        return value.text
    if isinstance(value, NoValue):
        formula_without_value(place, sink)
        return "="
    return str(value)


def _fills_15_digits(value: float) -> bool:
    """Whether a number of 10**15 or more uses all 15 significant digits Excel keeps: a longer number typed
    into Excel (an ID) was cut to them. One typed short, as 1E+20, is left alone."""
    if not math.isfinite(value):
        return False
    mantissa = f"{value:.15e}".split("e")[0].rstrip("0")
    return sum(c.isdigit() for c in mantissa) >= 15


def _typed(value: datetime.date | datetime.time | datetime.timedelta) -> str | None:
    """What was most likely typed for Excel to make this date or time, in the short form Excel reads as one
    (``1/2`` for January 2nd, ``12:30``): a fraction, a ratio or a score typed into a text column; None when
    there is no such short form (a date with a time of day, a duration)."""
    if isinstance(value, datetime.datetime):
        if value.time() != datetime.time(0):
            return None
        value = value.date()
    if isinstance(value, datetime.date):
        return f"{value.month}/{value.day}"
    if isinstance(value, datetime.time) and not value.second and not value.microsecond:
        return f"{value.hour}:{value.minute:02d}"
    return None


def session_id_value(value: Any, place: Place, sink: IssueSink) -> int | _Invalid | None:
    """The integer session id of a cell; None when empty; INVALID_ID (reported) when not an integer."""
    if value is None or value == "":
        return None
    if type(value) is Shown:
        value = value.raw  # an id is the stored number, whatever its format shows
    if isinstance(value, StaleValue):
        stale_value(value, place, sink)
        return INVALID_ID
    if isinstance(value, bool):
        problem = Msg("frag.sid.boolean", value="TRUE" if value else "FALSE")
    elif isinstance(value, (int, float)) and (not math.isfinite(value) or abs(value) >= MAX_ID):
        problem = Msg("frag.sid.too_large", value=number_text(value))
    elif isinstance(value, int):
        return value
    elif isinstance(value, float):
        if value.is_integer():
            return int(value)
        problem = Msg("frag.sid.fraction", value=number_text(value))
    elif isinstance(value, str):
        text = value.strip()
        if _INT_TEXT.fullmatch(text) and len(text) < 17 and abs(int(text)) < MAX_ID:
            return int(text)
        if not text:
            return None
        problem = Msg("frag.sid.text", value=text[:40])
    elif isinstance(value, CellError):
        error_cell(value, place, sink)
        return INVALID_ID
    elif isinstance(value, NoValue):
        formula_without_value(place, sink)
        return INVALID_ID
    else:
        problem = Msg("frag.sid.date", value=value)
    sink.add(
        "invalid_session_id",
        Msg("invalid_session_id", problem=problem),
        **place,
    )
    return INVALID_ID


def error_cell(value: CellError, place: Place, sink: IssueSink) -> None:
    sink.add(
        "error_cell",
        Msg("error_cell", error=value.text),
        **place,
    )


def formula_without_value(place: Place, sink: IssueSink) -> None:
    sink.add(
        "formula_without_value",
        Msg("formula_without_value"),
        **place,
    )


def stale_value(value: StaleValue, place: Place, sink: IssueSink) -> None:
    cached = value.cached
    shown = general(cached) if isinstance(cached, (int, float)) and not isinstance(cached, bool) else str(cached)
    sink.add(
        "stale_formula_value",
        Msg("stale_formula_value", shown=shown),
        **place,
    )


def _shown(value: Shown, place: Place, sink: IssueSink) -> None:
    stored = general(value.raw)
    if not value.rendered:
        sink.add(
            "number_format",
            Msg("number_format.unrendered", stored=stored, format=value.code),
            **place,
        )
        return
    sink.add(
        "number_format",
        Msg("number_format", shown=str(value), format=value.code, stored=stored),
        **place,
    )


def _too_long(length: int, place: Place, sink: IssueSink) -> None:
    sink.add(
        "cell_too_long",
        Msg("cell_too_long", length=length, limit=MAX_CELL_CHARS),
        **place,
    )
