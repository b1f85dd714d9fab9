"""Is one answer equal to another? Fast paths first, sympy (guarded) only for what they cannot settle.

Order: identical text → units → ``x = 3`` vs ``3`` → percent and degrees → intervals/inequalities →
equations → the fast evaluator (numbers, radicals, algebra at test points) → sympy → normalised text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import permutations

from scoring.metrics.math.evaluate import (
    Expr,
    NotEvaluable,
    compile_expr,
    constant_value,
    expressions_equal,
    values_close,
)
from scoring.metrics.math.intervals import Piece, parse_set
from scoring.metrics.math.latex import plain, strip_decorations
from scoring.metrics.math.sympy_guard import SympyGuard
from scoring.metrics.math.units import split_unit
from scoring.normalize import normalize_text

__all__ = ["Equality", "answers_equal"]


@dataclass(frozen=True)
class Equality:
    """The verdict on two answers: ``equal``; ``settled`` False when only a time limit or parse failure
    kept it from being decided (the math judge can take those); ``how`` for the analysis."""

    equal: bool
    settled: bool = True
    how: str = ""


_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+)(?![\d,])")
_ASSIGN = re.compile(r"^[a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?(?:\([a-z]\))?\s*=\s*(?!=)")
_WS = re.compile(r"\s+")


def _clean(text: str) -> str:
    s = strip_decorations(text).strip().rstrip("。.;；,，").strip()
    s = _THOUSANDS.sub(lambda m: m.group(1).replace(",", ""), s)
    return s


def _compact(text: str) -> str:
    return _WS.sub("", text).casefold()


def _evaluable_equal(a: str, b: str, guard: SympyGuard | None) -> Equality | None:
    """Numeric/algebraic comparison of two plain expressions; None when neither path can parse them."""
    pa, pb = plain(a), plain(b)
    if pa == pb:
        return Equality(True, how="same expression")
    ea: Expr | None
    eb: Expr | None
    try:
        ea, eb = compile_expr(pa), compile_expr(pb)
    except NotEvaluable:
        ea = eb = None
    except RecursionError:
        return None
    if ea is not None and eb is not None:
        try:
            return Equality(expressions_equal(ea, eb), how="value")
        except NotEvaluable:
            pass
    if guard is not None:
        verdict = guard.equal(pa, pb)
        if verdict is not None:
            return Equality(verdict, how="sympy")
        if ea is not None or eb is not None or (_looks_math(pa) and _looks_math(pb)):
            return Equality(False, settled=False, how="sympy could not decide (time limit, or it cannot parse them)")
    return None


_MATHY = re.compile(r"^[0-9a-zA-Z+\-*/().,=]+$")


def _looks_math(s: str) -> bool:
    return bool(_MATHY.match(s)) and any(c.isdigit() or c in "+-*/" for c in s)


def _number(s: str) -> float | None:
    try:
        return constant_value(compile_expr(plain(s)))
    except NotEvaluable:
        return None


def _bounds_equal(a: str, b: str, guard: SympyGuard | None) -> bool:
    a, b = a.lstrip("+"), b.lstrip("+")
    if a in ("oo", "-oo") or b in ("oo", "-oo"):
        return a == b
    verdict = _evaluable_equal(a, b, guard)
    return verdict is not None and verdict.equal


def _sets_equal(x: list[Piece], y: list[Piece], guard: SympyGuard | None) -> bool:
    if len(x) != len(y) or len(x) > 5:
        return False

    def same(p: Piece, q: Piece) -> bool:
        return (
            p.low_closed == q.low_closed
            and p.high_closed == q.high_closed
            and _bounds_equal(p.low, q.low, guard)
            and _bounds_equal(p.high, q.high, guard)
        )

    return any(all(same(p, q) for p, q in zip(x, perm, strict=False)) for perm in permutations(y))


def _as_set(s: str, other_is_set: bool) -> list[Piece] | None:
    pieces = parse_set(s)
    compact = s.replace(" ", "")
    if pieces is None and other_is_set:
        m = re.match(r"^\(([^,()]+),([^,()]+)\)$", compact)
        if m:
            return [Piece(m.group(1), False, m.group(2), False)]
    return pieces


def _split_equation(s: str) -> tuple[str, str] | None:
    if s.count("=") != 1 or any(op in s for op in ("<=", ">=", "!=")):
        return None
    left, right = s.split("=")
    return (left, right) if left.strip() and right.strip() else None


def _equations_equal(a: tuple[str, str], b: tuple[str, str], guard: SympyGuard | None) -> Equality | None:
    """``y = 2x + 3`` equals ``2x - y + 3 = 0``: the two differences are proportional."""
    if _compact(a[0]) == _compact(b[0]):
        return _evaluable_equal(a[1], b[1], guard)
    try:
        fa = compile_expr(plain(f"({a[0]})-({a[1]})"))
        fb = plain(f"({b[0]})-({b[1]})")
        for scale in ("1", "-1"):
            if expressions_equal(fa, compile_expr(f"{scale}*({fb})")):
                return Equality(True, how="same equation")
    except NotEvaluable:
        return None
    return Equality(False, how="different equations")


_WORDS_ONLY = re.compile(r"^[^\W\d_]{2,}(?:\s+[^\W\d_]+)*$")
MAX_ANSWER = 1000


def answers_equal(pred: str, ref: str, guard: SympyGuard | None = None) -> Equality:
    """Whether ``pred`` is mathematically the same answer as ``ref`` (SCORING.md, "math")."""
    if len(pred) > MAX_ANSWER or len(ref) > MAX_ANSWER:
        same = normalize_text(pred) == normalize_text(ref)
        return Equality(same, how="long answers compared as text")
    p, r = _clean(pred), _clean(ref)
    if not p:
        return Equality(False, how="empty answer")
    if _compact(p) == _compact(r):
        return Equality(True, how="same text")
    if _WORDS_ONLY.match(p) and _WORDS_ONLY.match(r):
        # Words, not products of variables: "dog" is not "god".
        same = normalize_text(p) == normalize_text(r)
        return Equality(same, how="same words" if same else "different words")

    # Units: none on the reference accepts any; a missing one is fine; two different ones are wrong.
    pv, pu = split_unit(p)
    rv, ru = split_unit(r)
    if pu is not None and ru is not None and pu != ru and not {pu, ru} & {"%", "°"}:
        return Equality(False, how=f"unit {pu} is not {ru}")
    if pu in ("%", "°") or ru in ("%", "°"):
        return _scaled_equal(pv, pu, rv, ru, guard)
    p, r = pv, rv

    # "x = 3" against "3".
    p_eq, r_eq = "=" in p, "=" in r
    if p_eq != r_eq:
        if p_eq and _ASSIGN.match(p):
            p = _ASSIGN.sub("", p, count=1)
        elif r_eq and _ASSIGN.match(r):
            r = _ASSIGN.sub("", r, count=1)
    elif p_eq and r_eq:
        ep, er = _split_equation(p), _split_equation(r)
        if ep and er:
            verdict = _equations_equal(ep, er, guard)
            if verdict is not None:
                return verdict
    if _compact(p) == _compact(r):
        return Equality(True, how="same text")

    rs = _as_set(r, False)
    ps = _as_set(p, rs is not None)
    if rs is None and ps is not None:
        rs = _as_set(r, True)
    if ps is not None and rs is not None:
        same = _sets_equal(ps, rs, guard)
        return Equality(same, how="same set" if same else "different sets")

    verdict = _evaluable_equal(p, r, guard)
    if verdict is not None:
        return verdict
    same = normalize_text(p) == normalize_text(r) and bool(normalize_text(p))
    return Equality(same, how="same words" if same else "different")


def _scaled_equal(pv: str, pu: str | None, rv: str, ru: str | None, guard: SympyGuard | None) -> Equality:
    """Percent (``50%`` = ``50`` = ``0.5``) and degrees (``30°`` = ``30`` = ``π/6``)."""
    direct = _evaluable_equal(pv, rv, guard)
    if direct is not None and direct.equal:
        return Equality(True, how="same value")
    a, b = _number(pv), _number(rv)
    if a is None or b is None:
        return direct or Equality(False, how="different")
    unit = pu if pu in ("%", "°") else ru
    factor = 100.0 if unit == "%" else 180.0 / math.pi
    scaled_p = pu == unit and ru != unit
    if (scaled_p and values_close(a, b * factor)) or (not scaled_p and values_close(a * factor, b)):
        return Equality(True, how=f"same value ({unit} converted)")
    return Equality(False, how="different values")
