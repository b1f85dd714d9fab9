"""Intervals and inequalities as one shape: a union of (low, low_closed, high, high_closed) pieces.

``[0, 1]``, ``0 \\le x \\le 1``, ``0≤x≤1``, ``{x | 0 <= x <= 1}`` and ``x ∈ [0,1]`` are the same set;
``x < 0 或 x > 2`` equals ``(-oo, 0) ∪ (2, oo)``. Bounds stay expressions; the caller compares them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring._metrics.math.split import split_top_level

__all__ = ["Piece", "parse_set"]


@dataclass(frozen=True)
class Piece:
    low: str
    low_closed: bool
    high: str
    high_closed: bool


_BOUND = r"([^,\[\]()]*(?:\([^()]*\)[^,\[\]()]*)*)"
_INTERVAL = re.compile(r"^([\[(])" + _BOUND + "," + _BOUND + r"([\])])$")
_VAR = r"[a-zA-Z](?:\([a-z]\))?"
_REL = r"<=|>=|<|>"
_CHAIN = re.compile(rf"^(.+?)({_REL})({_VAR})({_REL})(.+)$")
_ONE_LEFT = re.compile(rf"^({_VAR})({_REL})(.+)$")
_NEGATED_LEFT = re.compile(rf"^-({_VAR})({_REL})(.+)$")
_ONE_RIGHT = re.compile(rf"^(.+?)({_REL})({_VAR})$")
_OR = re.compile(r"(?:\bor\b|或者|或|∪|\bU\b|,)")
_ALL_REALS = frozenset({"ℝ", "R", "(-oo,oo)", "(-oo,+oo)", "全体实数", "实数集", "allrealnumbers", "实数"})
_NOT_EQUAL = re.compile(r"^(?:[a-zA-Z]!=([^<>=!]+)|([^<>=!]+)!=[a-zA-Z])$")
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _pieces_of(part: str) -> Piece | None:
    m = _INTERVAL.match(part)
    if m:
        return Piece(m.group(2), m.group(1) == "[", m.group(3), m.group(4) == "]")
    m = _CHAIN.match(part)
    if m:
        low, rel1, _, rel2, high = m.groups()
        if rel1[0] == "<" and rel2[0] == "<":
            return Piece(low, rel1 == "<=", high, rel2 == "<=")
        if rel1[0] == ">" and rel2[0] == ">":
            return Piece(high, rel2 == ">=", low, rel1 == ">=")
        return None
    m = _ONE_LEFT.match(part)
    if m:
        _, rel, bound = m.groups()
        return _one_sided(rel, bound)
    m = _NEGATED_LEFT.match(part)
    if m:  # -x > -1 is x < 1
        _, rel, bound = m.groups()
        return _one_sided(_FLIP[rel], f"-({bound})")
    m = _ONE_RIGHT.match(part)
    if m:
        bound, rel, _ = m.groups()
        return _one_sided(_FLIP[rel], bound)
    return None


def _one_sided(rel: str, bound: str) -> Piece:
    """``x rel bound``."""
    if rel[0] == ">":
        return Piece(bound, rel == ">=", "oo", False)
    return Piece("-oo", False, bound, rel == "<=")


def parse_set(text: str) -> list[Piece] | None:
    """The set a plain answer describes, or None when it is not an interval or inequality.

    ``text`` has no spaces and uses ``<=``/``>=``/``oo``/``∪`` (see :func:`latex.strip_decorations`).
    """
    s = re.sub(r"\s*(?:\bor\b|或者|或)\s*", "∪", text).replace(" ", "")
    if s in _ALL_REALS:
        return [Piece("-oo", False, "oo", False)]
    m = re.match(r"^\{?[a-zA-Z]\|(.*?)\}?$", s) or re.match(r"^[a-zA-Z]∈(.*)$", s)
    member = m is not None  # "x ∈ (1, 2)": the brackets are an interval, not a point
    if m:
        s = m.group(1)
        if s in _ALL_REALS:
            return [Piece("-oo", False, "oo", False)]
    ne = _NOT_EQUAL.match(s)
    if ne is not None:  # x ≠ 2 is (-oo, 2) ∪ (2, oo)
        bound = ne.group(1) or ne.group(2)
        return [Piece("-oo", False, bound, False), Piece(bound, False, "oo", False)]
    open_pair = s.startswith("(") and "," in s and ("oo" in s or member)
    if not any(c in s for c in "<>[]∪") and not open_pair:
        return None
    parts = _split(s)
    pieces: list[Piece] = []
    for part in parts:
        piece = _pieces_of(part)
        if piece is None:
            return None
        pieces.append(piece)
    return sorted(pieces, key=lambda p: (p.low, p.high)) if pieces else None


def _split(s: str) -> list[str]:
    """Split on or/或/∪ (and commas between inequalities), outside brackets."""
    return split_top_level(s, _OR)
