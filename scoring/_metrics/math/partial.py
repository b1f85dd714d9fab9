"""Partial credit (seed 003): blanks, then components inside a blank.

The reference splits into blanks on ``(1)``/``(2)`` parts, ``①``/``②`` sub-parts (a circled number
followed by content; ``①③,④`` are choices, not markers), newlines and ``;``/``；`` outside brackets; each
blank weighs the same. Inside a blank, "or"-alternatives (``5 or -75``, ``±``), comma lists, coordinates and
point lists share the blank's credit evenly; a point's coordinates share the point's credit, so seed
003's example (three points, two right, one half right) scores 1/3 + 1/3 + ½·1/3 = 0.83. Components the
answer adds beyond the reference's dilute the credit (``max(len(ref), len(answer))`` is the divisor), so
listing every candidate does not earn full marks; a component repeated counts once.

A blank is compared whole first, then as the value its clause states (``圆柱的体积为339.12cm³`` →
``339.12cm³``, on both sides), then component by component.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring._metrics.extract.math_text import isolate, split_blanks
from scoring._metrics.math.budget import check
from scoring._metrics.math.equal import Equality, answers_equal, join_thousands
from scoring._metrics.math.latex import strip_decorations
from scoring._metrics.math.split import split_top_level
from scoring._metrics.math.sympy_guard import SympyGuard

__all__ = ["Credit", "blank_credit", "components", "split_blanks", "split_top_level", "values_equal"]


@dataclass(frozen=True)
class Credit:
    score: float
    settled: bool
    how: str


_ALTERNATIVES = re.compile(r"\s*(?:\bor\b|或者|或|\band\b|和|以及|,|、)\s*", re.IGNORECASE)
_TUPLE = re.compile(r"^[A-Za-z]?\s*\((.*[,;].*)\)$")
_COORD_SEP = re.compile(r"\s*[,;]\s*")
# "(x, y) = (2, 3)": the names before the tuple are not part of it.
_TUPLE_NAMES = re.compile(r"^\(\s*[a-zA-Z]\s*(?:,\s*[a-zA-Z]\s*)+\)\s*=\s*(?=\()")
_NAMED_VALUE = re.compile(r"^[a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?\s*=\s*(?!=)(.+)$")
_PM = re.compile(r"^(.*?)[±](.*)$")
_MAX_COMPONENTS = 40

Component = tuple[str, ...]


def _expand_pm(part: str) -> list[str]:
    m = _PM.match(part)
    if not m:
        return [part]
    head, tail = m.groups()
    head = head.strip()
    if head.endswith("="):
        return [f"{head}{tail}", f"{head}-({tail})"]
    if not head:
        return [tail, f"-({tail})"]
    return [f"{head}+{tail}", f"{head}-({tail})"]


def _unbrace(s: str) -> str:
    if s.startswith("{") and s.endswith("}") and "|" not in s and s.count("{") == 1:
        return s[1:-1]  # a listed set {1, 2}: its elements share the credit like a list
    return s


def components(blank: str) -> list[Component]:
    """The parts of one blank: alternatives/list items, each a 1-tuple or a coordinate tuple (repeats once)."""
    s = join_thousands(strip_decorations(blank))
    s = _TUPLE_NAMES.sub("", s.strip(), count=1)
    s = _unbrace(s)
    out: list[Component] = []
    seen: set[Component] = set()
    for part in split_top_level(s, _ALTERNATIVES)[: _MAX_COMPONENTS + 1]:
        m = _TUPLE.match(part.strip())
        found = [tuple(split_top_level(m.group(1), _COORD_SEP))] if m else [(p,) for p in _expand_pm(part)]
        for comp in found:
            key = tuple(re.sub(r"\s+", "", c) for c in comp)
            if key not in seen:
                seen.add(key)
                out.append(comp)
    return out


_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def _residue(text: str, value: str) -> list[str]:
    """The numbers of ``text`` that its isolated ``value`` leaves out (sorted)."""
    left = _DIGITS.findall(text)
    for number in _DIGITS.findall(value):
        if number in left:
            left.remove(number)
    return sorted(left)


def _isolated(a: str, b: str) -> tuple[str, str] | None:
    """The values two clauses state — unless isolating them drops different numbers from both (so
    ``… 面积30相等`` and ``… 面积31相等`` are not made equal by dropping their ends)."""
    ia, ib = isolate(a) or a, isolate(b) or b
    if (ia, ib) == (a, b):
        return None
    left_a, left_b = _residue(a, ia), _residue(b, ib)
    if left_a and left_b and left_a != left_b:
        return None
    return ia, ib


def values_equal(a: str, b: str, guard: SympyGuard | None) -> Equality:
    """Two values, compared as written, then as the values their clauses state."""
    eq = answers_equal(a, b, guard)
    if eq.equal:
        return eq
    isolated = _isolated(a, b)
    if isolated is not None:
        again = answers_equal(*isolated, guard)
        if again.equal:
            return again
    return eq


def _pair_credit(r: Component, p: Component, guard: SympyGuard | None, unsettled: list[bool]) -> float:
    if len(r) != len(p):
        return 0.0
    total = 0
    for a, b in zip(p, r, strict=False):
        check()
        eq = values_equal(a, b, guard)
        if not eq.settled:
            unsettled.append(True)
        total += eq.equal
    return total / len(r)


def _as_point(parts: list[Component], size: int) -> list[Component] | None:
    """``x = 2, y = 3`` (named values, in order) read as the point ``(2, 3)``."""
    if len(parts) != size:
        return None
    named = [_NAMED_VALUE.match(p[0]) if len(p) == 1 else None for p in parts]
    if not all(named):
        return None
    return [tuple(m.group(1).strip() for m in named if m is not None)]


def blank_credit(pred: str, ref: str, guard: SympyGuard | None = None) -> Credit:
    """Credit in [0, 1] for one blank."""
    whole: Equality = values_equal(pred, ref, guard)
    if whole.equal:
        return Credit(1.0, True, whole.how)
    ip, ir = _isolated(pred, ref) or (pred, ref)
    ref_parts = components(ir)
    pred_parts = components(ip)
    if len(pred_parts) > _MAX_COMPONENTS or len(ref_parts) > _MAX_COMPONENTS:
        return Credit(0.0, whole.settled, whole.how + " (too many parts to compare one by one)")
    if len(ref_parts) == 1 and len(ref_parts[0]) == 1:
        if len(pred_parts) > 1:
            # "x = 3, so y = 3" against "3": each named value is a candidate; more than one dilutes.
            hits = [values_equal(p[0], ir, guard).equal for p in pred_parts if len(p) == 1]
            if any(hits):
                return Credit(round(1 / len(pred_parts), 4), True, "right value among others")
        return Credit(0.0, whole.settled, whole.how)
    if not ref_parts or not pred_parts:
        return Credit(0.0, whole.settled, whole.how)
    if len(ref_parts) == 1 and len(ref_parts[0]) > 1:
        pred_parts = _as_point(pred_parts, len(ref_parts[0])) or pred_parts
    if len(pred_parts) == 1 and len(pred_parts[0]) > 1:
        ref_parts = _as_point(ref_parts, len(pred_parts[0])) or ref_parts
    # The parts decide the blank: ``(5,1)`` against ``(5,0)`` is two numbers compared, one right, even
    # though sympy cannot compare the tuples whole. Only an undecided part leaves the blank unsettled.
    unsettled: list[bool] = []
    pairs = sorted(
        (
            (_pair_credit(r, p, guard, unsettled), i, j)
            for i, r in enumerate(ref_parts)
            for j, p in enumerate(pred_parts)
        ),
        reverse=True,
    )
    used_r: set[int] = set()
    used_p: set[int] = set()
    total = 0.0
    for credit, i, j in pairs:
        if credit <= 0 or i in used_r or j in used_p:
            continue
        used_r.add(i)
        used_p.add(j)
        total += credit
    score = total / max(len(ref_parts), len(pred_parts))
    how = f"{total:g} of {len(ref_parts)} parts"
    if len(pred_parts) != len(ref_parts):
        how += f" ({len(pred_parts)} given)"
    return Credit(score, not unsettled or score >= 1.0, how)
