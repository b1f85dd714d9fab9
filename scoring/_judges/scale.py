"""The absolute judge's score scale (``--judge-scale 0-2``, ``1-10``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["DEFAULT_SCALE", "Scale", "parse_scale"]

_SCALE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|~|\.\.|,|to)\s*(-?\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Scale:
    """A closed range of scores, ``low`` (wrong) to ``high`` (fully right)."""

    low: float
    high: float

    def label(self, value: float) -> str:
        return _number(value)

    def __str__(self) -> str:
        return f"{_number(self.low)}-{_number(self.high)}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


DEFAULT_SCALE = Scale(0.0, 2.0)


def parse_scale(text: str) -> Scale:
    """``"0-10"`` → ``Scale(0, 10)``; a malformed or empty range is a ``ValueError`` saying why."""
    match = _SCALE.match(text)
    if match is None:
        raise ValueError(f"judge scale {text!r}: expected LOW-HIGH, for example 0-2 or 1-10")
    low, high = float(match.group(1)), float(match.group(2))
    if not (math.isfinite(low) and math.isfinite(high)) or low >= high:
        raise ValueError(f"judge scale {text!r}: the low end must be below the high end")
    return Scale(low, high)
