"""Dates compared as dates (docs/pages/scoring.md, "exact"): ``February 9, 1964`` = ``9 Feb 1964`` =
``1964-02-09`` = ``1964/2/9`` = ``1964年2月9日``.

A reference that is one full date (year, month and day) is compared with the dates the reply writes, in any of
these forms: both are rewritten as ISO dates (``1964-02-09``) and then matched as words are, so the reply's
answer must still commit to the date (a date negated, listed among others, or mentioned in passing is not
its answer). Only unambiguous forms are read: a month named in words, a year written first (``1964-02-09``,
``1964/2/9``, ``1964.2.9``), or Chinese ``年月日``; ``02/09/1964`` (February or September?) is left as it is.
"""

from __future__ import annotations

import datetime
import re

__all__ = ["as_iso_date", "with_iso_dates"]

_MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}
_ABBREVIATIONS = {name[:3]: number for name, number in _MONTHS.items()} | {"sept": 9}
_MONTH = r"(?P<month>(?i:" + "|".join([*_MONTHS, *sorted(_ABBREVIATIONS, key=len, reverse=True)]) + r")\.?)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>[12]\d{3})"
_FORMS = (
    # February 9, 1964 / Feb. 9 1964 / February 9th, 1964
    re.compile(r"(?<![A-Za-z])" + _MONTH + r"[ \t]+" + _DAY + r"(?:[ \t]*,)?[ \t]+" + _YEAR + r"(?!\d)"),
    # 9 February 1964 / 9th of February, 1964
    re.compile(r"(?<![\dA-Za-z])" + _DAY + r"[ \t]+(?:of[ \t]+)?" + _MONTH + r"(?:[ \t]*,)?[ \t]+" + _YEAR + r"(?!\d)"),
    # 1964-02-09 / 1964/2/9 / 1964.2.9
    re.compile(r"(?<![\d.\-/])" + _YEAR + r"(?P<sep>[-/.])(?P<month>[01]?\d)(?P=sep)(?P<day>[0-3]?\d)(?![\d\-/]|\.\d)"),
    # 1964年2月9日
    re.compile(_YEAR + r"[ \t]*年[ \t]*(?P<month>[01]?\d)[ \t]*月[ \t]*(?P<day>[0-3]?\d)[ \t]*[日号]"),
)


def _date(m: re.Match[str]) -> datetime.date | None:
    month_text = m.group("month").rstrip(".").casefold()
    month = int(month_text) if month_text.isdigit() else _MONTHS.get(month_text, _ABBREVIATIONS.get(month_text))
    if month is None:
        return None
    try:
        return datetime.date(int(m.group("year")), month, int(m.group("day")))
    except ValueError:
        return None  # 1964-02-30 is no date


def as_iso_date(text: str) -> str | None:
    """``text`` as an ISO date when it is exactly one full date (see the module docstring), else None."""
    stripped = text.strip().rstrip("。.").strip()
    for form in _FORMS:
        m = form.fullmatch(stripped)
        if m is not None:
            date = _date(m)
            return None if date is None else date.isoformat()
    return None


def with_iso_dates(text: str) -> str:
    """``text`` with every full date it writes rewritten as an ISO date (the rest unchanged)."""
    for form in _FORMS:
        if form.search(text) is not None:

            def iso(m: re.Match[str]) -> str:
                date = _date(m)
                return m.group(0) if date is None else date.isoformat()

            text = form.sub(iso, text)
    return text
