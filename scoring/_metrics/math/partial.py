"""Partial credit (seed 003): blanks, then components inside a blank.

The reference splits into blanks on newlines, ``;``/``；`` and ``(1)``/``(2)``/``①`` markers; each blank
weighs the same. Inside a blank, "or"-alternatives (``5 or -75``, ``±``), comma lists, coordinates and
point lists share the blank's credit evenly; a point's coordinates share the point's credit, so seed
003's example (three points, two right, one half right) scores 1/3 + 1/3 + ½·1/3 = 0.83. Components the
answer adds beyond the reference's dilute the credit (``max(len(ref), len(answer))`` is the divisor), so
listing every candidate does not earn full marks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring._metrics.math.equal import Equality, answers_equal
from scoring._metrics.math.latex import strip_decorations
from scoring._metrics.math.split import split_top_level
from scoring._metrics.math.sympy_guard import SympyGuard

__all__ = ["Credit", "blank_credit", "components", "split_blanks", "split_top_level"]


@dataclass(frozen=True)
class Credit:
    score: float
    settled: bool
    how: str


_MARKER = re.compile(r"[(（]\s*(\d{1,2})\s*[)）]|([①②③④⑤⑥⑦⑧⑨⑩])")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"


def _numbered_split(text: str) -> list[str] | None:
    marks = list(_MARKER.finditer(text))
    numbers = [int(m.group(1)) if m.group(1) else _CIRCLED.index(m.group(2)) + 1 for m in marks]
    if len(marks) < 2 or numbers[:2] != [1, 2]:
        return None
    pieces: list[str] = []
    expected = 1
    starts: list[tuple[int, int]] = []
    for m, n in zip(marks, numbers, strict=False):
        if n == expected:
            starts.append((m.start(), m.end()))
            expected += 1
    for k, (_, end) in enumerate(starts):
        stop = starts[k + 1][0] if k + 1 < len(starts) else len(text)
        pieces.append(text[end:stop])
    return pieces


def split_blanks(text: str) -> list[str]:
    """The blanks of an answer: ``"(1) 3 (2) 5"``, ``"3; 5"``, ``"3\\n5"`` → ``["3", "5"]``."""
    numbered = _numbered_split(text)
    chunks = numbered if numbered is not None else [text]
    out: list[str] = []
    for chunk in chunks:
        for piece in re.split(r"[;；\n]", chunk):
            piece = piece.strip().strip(",，。.").strip()
            if piece:
                out.append(piece)
    return out or [text.strip()]


_ALTERNATIVES = re.compile(r"\s*(?:\bor\b|或者|或|\band\b|和|以及|,)\s*", re.IGNORECASE)
_TUPLE = re.compile(r"^[A-Za-z]?\s*\((.*,.*)\)$")
_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d{1,3}(?: \d{3})+)(?![\d,]| \d)")
# "(x, y) = (2, 3)": the names before the tuple are not part of it.
_TUPLE_NAMES = re.compile(r"^\(\s*[a-zA-Z]\s*(?:,\s*[a-zA-Z]\s*)+\)\s*=\s*(?=\()")
_NAMED_VALUE = re.compile(r"^[a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?\s*=\s*(?!=)(.+)$")
_PM = re.compile(r"^(.*?)±(.*)$")

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


def components(blank: str) -> list[Component]:
    """The parts of one blank: alternatives/list items, each a 1-tuple or a coordinate tuple."""
    s = _THOUSANDS.sub(lambda m: m.group(1).replace(",", "").replace(" ", ""), strip_decorations(blank))
    s = _TUPLE_NAMES.sub("", s.strip(), count=1)
    if s.startswith("{") and s.endswith("}") and "|" not in s and s.count("{") == 1:
        s = s[1:-1]  # a listed set {1, 2}: its elements share the credit like a list
    out: list[Component] = []
    for part in split_top_level(s, _ALTERNATIVES):
        m = _TUPLE.match(part.strip())
        if m:
            coords = split_top_level(m.group(1), re.compile(r"\s*,\s*"))
            out.append(tuple(coords))
        else:
            out.extend((p,) for p in _expand_pm(part))
    return out


def _pair_credit(r: Component, p: Component, guard: SympyGuard | None, unsettled: list[bool]) -> float:
    if len(r) != len(p):
        return 0.0
    total = 0
    for a, b in zip(p, r, strict=False):
        eq = answers_equal(a, b, guard)
        if not eq.settled:
            unsettled.append(True)
        total += eq.equal
    return total / len(r)


def blank_credit(pred: str, ref: str, guard: SympyGuard | None = None) -> Credit:
    """Credit in [0, 1] for one blank."""
    whole: Equality = answers_equal(pred, ref, guard)
    if whole.equal:
        return Credit(1.0, True, whole.how)
    ref_parts = components(ref)
    if len(ref_parts) == 1 and len(ref_parts[0]) == 1:
        pred_parts = components(pred)
        if len(pred_parts) > 1:
            # "x = 3, so y = 3" against "3": each named value is a candidate; more than one dilutes.
            hits = [answers_equal(p[0], ref, guard).equal for p in pred_parts if len(p) == 1]
            if any(hits):
                return Credit(round(1 / len(pred_parts), 4), True, "right value among others")
        return Credit(0.0, whole.settled, whole.how)
    pred_parts = components(pred)
    if not ref_parts or not pred_parts:
        return Credit(0.0, whole.settled, whole.how)
    if len(ref_parts) == 1 and len(ref_parts[0]) > 1 and len(pred_parts) == len(ref_parts[0]):
        # "x = 2, y = 3" against the point (2, 3): named values in order are its coordinates.
        named = [_NAMED_VALUE.match(p[0]) if len(p) == 1 else None for p in pred_parts]
        if all(named):
            pred_parts = [tuple(m.group(1).strip() for m in named if m is not None)]
    # The parts decide the blank: ``(5,1)`` against ``(5,0)`` is two numbers compared, one right, even
    # though sympy cannot compare the tuples whole. Only an undecided part leaves the blank unsettled
    # (seeding this from ``whole`` sent every partly right tuple or point list to the math judge).
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
