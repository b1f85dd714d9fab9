"""Is one answer equal to another? Fast paths first, sympy (guarded) only for what they cannot settle.

Order: identical text → units → ``x = 3`` vs ``3`` → percent and degrees → intervals/inequalities →
equations → the fast evaluator (numbers, radicals, algebra at test points) → sympy → normalised text.
"""

from __future__ import annotations

import math
import re
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import permutations

from scoring._metrics.math.budget import TimeLimit, check, remaining
from scoring._metrics.math.evaluate import (
    Expr,
    NotEvaluable,
    compile_expr,
    constant_value,
    expressions_equal,
    proportional,
    values_close,
)
from scoring._metrics.math.intervals import Piece, parse_set
from scoring._metrics.math.latex import plain, strip_decorations
from scoring._metrics.math.split import COMMA as _COMMA
from scoring._metrics.math.split import split_top_level
from scoring._metrics.math.sympy_guard import SympyGuard
from scoring._metrics.math.units import SCALES, split_unit
from scoring._metrics.normalize import nfkc, normalize_text

__all__ = ["APPROX_PI", "SYMPY_TIME_LIMIT", "SYMPY_UNPARSED", "Equality", "answers_equal", "join_thousands", "text_key"]


@dataclass(frozen=True)
class Equality:
    """The verdict on two answers: ``equal``; ``settled`` False when only a time limit or parse failure
    kept it from being decided (the math judge can take those); ``how`` for the analysis."""

    equal: bool
    settled: bool = True
    how: str = ""


# Thousands separators: "1,887,800", and the spaces of "1 000" / "1 000" (NFKC makes thin spaces plain).
_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d{1,3}(?: \d{3})+)(?![\d,]| \d)")
# "x = 3", "f(x) = 2x", "a_1 = 2", and a tuple of names "(x, y) = (2, 3)".
_ASSIGN = re.compile(
    r"^(?:[a-zA-Z](?:_\{?[a-zA-Z0-9]+\}?)?(?:\([a-z]\))?|\(\s*[a-zA-Z]\s*(?:,\s*[a-zA-Z]\s*)+\))\s*=\s*(?!=)"
)
# The name in "AB = 4", "|AB| = 1", "V_1:V_2 = 11:21", "\\angle P = 45°", "S_{ABC} = 12": letters,
# subscripts, bars, angle marks, ratios and fractions of names — no digits outside subscripts.
_NAME_PIECE = re.compile(r"\\[a-zA-Z]+|_\{[^{}]{0,12}\}|_\w|\^\{?[′'*]\}?|[A-Za-zα-ωΑ-Ω{}()|∠△:/\s′']")
# "2 + 1 + 0 + 0 = 3": a computation whose result is the value stated.
_ARITHMETIC = re.compile(r"^[\d\s.+\-*/×÷()^]+$")
_SUBSCRIPT = re.compile(r"_\{[^{}]{0,12}\}|_\w")
_APPROX = re.compile(r"\\approx|≈")
#: The verdict's ``how`` when sympy ran out of time (the item is then unscored: ``null``, not 0).
SYMPY_TIME_LIMIT = "sympy reached its time limit"
#: The verdict's ``how`` when sympy could not read the answers (the metric then tries their values).
SYMPY_UNPARSED = "sympy could not parse them"
# Set by the metric for each item: whether its question lets π be taken as 3.14.
APPROX_PI: ContextVar[bool] = ContextVar("formatkit_math_approx_pi", default=False)


def _computation(left: str) -> bool:
    """``2 + 1 + 0 + 0`` (numbers and operators): what follows its ``=`` is its result."""
    return bool(_ARITHMETIC.match(left)) and any(op in left.strip() for op in "+-*/×÷")


def _is_name(left: str) -> bool:
    left = left.strip()
    if not left or len(left) > 40 or any(ch.isdigit() for ch in _SUBSCRIPT.sub("", left)):
        return False
    return not _NAME_PIECE.sub("", left) and any(ch.isalpha() or ch in "∠△" for ch in left)


def _named_value(s: str) -> str:
    """The value a named statement gives: ``AB=4`` → ``4``; ``x = 5+5+1 = 11`` → ``11``; else ``s``."""
    if _ASSIGN.match(s) and s.count("=") == 1:
        value = _ASSIGN.sub("", s, count=1)
    elif any(op in s for op in ("<", ">", "!=")):
        return s
    else:
        eq = s.find("=")
        if eq <= 0 or not (_is_name(s[:eq]) or _computation(s[:eq])):
            return s
        if _JOINED.search(s, eq, s.rfind("=")):
            return s  # "x = 2 or x = 3": two values offered, not a chain that ends in its value
        value = s[s.rfind("=") + 1 :].strip()
    approx = _APPROX.search(value)
    return value[: approx.start()].strip() if approx else value


_JOINED = re.compile(r"(?i:\bor\b|\band\b)|或|和|以及")


def _approximated(s: str) -> str:
    """``x ≈ 11`` → ``11``: a name said to be about a value."""
    m = _APPROX.search(s)
    if m is None or "=" in s or not _is_name(s[: m.start()]):
        return s
    return s[m.end() :].strip()


_WS = re.compile(r"\s+")
_DIGIT_GAP = re.compile(r"(?<=\d)\s+(?=\d)")
# Whole answers that name the empty set ("no solution" and 无解 mean it for an equation's roots).
_NO_SOLUTION = frozenset(
    {
        "∅",
        "{}",
        "no solution",
        "no solutions",
        "no real solution",
        "no real solutions",
        "none",
        "empty set",
        "the empty set",
        "无解",
        "无实数解",
        "方程无解",
        "空集",
        "不存在",
    }
)


def join_thousands(s: str) -> str:
    """``1,887,800`` → ``1887800`` outside brackets only: ``(1,500)`` and ``(12,102)`` are pairs, not numbers."""
    if "," not in s and " " not in s:
        return s
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(s):
        if ch in "([{":
            if depth == 0:
                out.append(_THOUSANDS.sub(_joined_number, s[start:i]))
                start = i
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
            if depth == 0:
                out.append(s[start : i + 1])
                start = i + 1
    out.append(_THOUSANDS.sub(_joined_number, s[start:]) if depth == 0 else s[start:])
    return "".join(out)


def _joined_number(m: re.Match[str]) -> str:
    return m.group(1).replace(",", "").replace(" ", "")


_SPACES = re.compile(r"\s+")
_END_PUNCT = ".,;:!?'\"。，；：、！？"


def text_key(text: str) -> str:
    """Text compared as text: NFKC, case-folded, spaces and end punctuation dropped — signs, relations and
    inner punctuation kept (``±2`` is not ``2``, ``x≠3`` is not ``x=3``, ``1.5`` is not ``15``)."""
    return _SPACES.sub("", _DIGIT_GAP.sub("|", nfkc(text).casefold())).strip(_END_PUNCT)


def _clean(text: str) -> str:
    s = strip_decorations(text).strip().rstrip("。.;；,，").strip()
    s = join_thousands(s)
    if s.casefold() in _NO_SOLUTION:
        return "∅"
    return s


def _compact(text: str) -> str:
    """Whitespace removed, except between digits: "1 2" is not "12"."""
    return _WS.sub("", _DIGIT_GAP.sub(",", text)).casefold()


def _brace_items(s: str) -> list[str] | None:
    """The elements of a listed set ``{1, 2}`` (``\\{1,2\\}`` once decorations are stripped); None otherwise."""
    if not (s.startswith("{") and s.endswith("}")) or "|" in s or ":" in s:
        return None
    depth = 0
    for k, ch in enumerate(s):
        depth += ch in "{(["
        depth -= ch in "})]"
        if depth == 0 and k < len(s) - 1:
            return None  # "{1}{2}": not one brace group
    return split_top_level(s[1:-1], _COMMA)


def _same_elements(xs: list[str], ys: list[str], guard: SympyGuard | None) -> bool:
    """Sets listed in any order: each element matches a distinct element of the other."""
    if len(xs) != len(ys) or len(xs) > 12:
        return False
    left = list(ys)
    for x in xs:
        for k, y in enumerate(left):
            if answers_equal(x, y, guard).equal:
                del left[k]
                break
        else:
            return False
    return True


# Excel shows large numbers as "1.23457E+11" (six significant digits): a reference in scientific notation
# is as precise as its mantissa, so the answer is compared at that precision.
_SCI_REFERENCE = re.compile(r"^[-+]?\d\.(\d{2,})[eE]([-+]?\d+)$")


def _scientific_equal(pred: str, ref: str) -> bool | None:
    m = _SCI_REFERENCE.match(ref.replace(" ", ""))
    if m is None:
        return None
    value = _number(pred)
    if value is None:
        return None
    target = float(ref.replace(" ", ""))
    digits = len(m.group(1))
    half_step = 0.5 * 10.0 ** (int(m.group(2)) - digits)
    return abs(value - target) <= half_step * (1 + 1e-9)


_SUBSCRIPTED = re.compile(r"(?<![A-Za-z\\])([A-Za-z])_(?:\{\s*([A-Za-z0-9]{1,6})\s*\}|([A-Za-z0-9]))")
_LETTERS = "ABCDFGHJKLMNOPQRSTUVWXYZabcdfghjklmnopqrsuvwxyz"


def _unsubscripted(a: str, b: str) -> tuple[str, str]:
    """``N_{1}/N`` and ``\\frac{N_1}{N}``: each subscripted name becomes one fresh letter in both."""
    if "_" not in a and "_" not in b:
        return a, b
    names: dict[str, str] = {}
    used = set(_SUBSCRIPTED.sub("", a + b))

    def fresh(m: re.Match[str]) -> str:
        key = m.group(1) + (m.group(2) or m.group(3))
        if key not in names:
            free = [c for c in _LETTERS if c not in used and c not in names.values()]
            names[key] = free[0] if free else key
        return names[key]

    return _SUBSCRIPTED.sub(fresh, a), _SUBSCRIPTED.sub(fresh, b)


def _pi_equal(pa: str, pb: str) -> bool:
    """The question allows π ≈ 3.14 (seed 003): 2π and 6.28 are the same answer there."""
    if not APPROX_PI.get() or ("pi" in pa) == ("pi" in pb):
        return False
    a_num, b_num = _number(pa.replace("pi", "(3.14)")), _number(pb.replace("pi", "(3.14)"))
    return a_num is not None and b_num is not None and math.isclose(a_num, b_num, rel_tol=1e-9, abs_tol=1e-9)


def _evaluable_equal(a: str, b: str, guard: SympyGuard | None) -> Equality | None:
    """Numeric/algebraic comparison of two plain expressions; None when neither path can parse them."""
    ua, ub = _unsubscripted(a, b)
    pa, pb = plain(ua), plain(ub)
    if pa == pb:
        return Equality(True, how="same expression")
    if _pi_equal(pa, pb):
        return Equality(True, how="same value with π ≈ 3.14, as the question allows")
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
        left = remaining()
        if left is not None and left <= 0:
            raise TimeLimit
        timeouts = guard.timeouts
        verdict = guard.equal(pa, pb, timeout=left)
        if verdict is not None:
            return Equality(verdict, how="sympy")
        if guard.timeouts > timeouts:
            return Equality(False, settled=False, how=SYMPY_TIME_LIMIT)
        if ea is not None or eb is not None or (_looks_math(pa) and _looks_math(pb)):
            return Equality(False, settled=False, how=SYMPY_UNPARSED)
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
    """``y = 2x + 3`` equals ``2x - y + 3 = 0`` and ``x+2y=3`` equals ``2x+4y=6``: the two differences are
    proportional (by any non-zero factor)."""
    if _compact(a[0]) == _compact(b[0]):
        return _evaluable_equal(a[1], b[1], guard)
    try:
        fa = compile_expr(plain(f"({a[0]})-({a[1]})"))
        fb = compile_expr(plain(f"({b[0]})-({b[1]})"))
        if proportional(fa, fb):
            return Equality(True, how="same equation")
    except NotEvaluable:
        return None
    return Equality(False, how="different equations")


_WORDS_ONLY = re.compile(r"^[^\W\d_]{2,}(?:\s+[^\W\d_]+)*$")
MAX_ANSWER = 1000


def answers_equal(pred: str, ref: str, guard: SympyGuard | None = None) -> Equality:
    """Whether ``pred`` is mathematically the same answer as ``ref`` (docs/pages/scoring.md, "math")."""
    if len(pred) > MAX_ANSWER or len(ref) > MAX_ANSWER:
        same = text_key(pred) == text_key(ref)
        return Equality(same, how="long answers compared as text")
    check()
    p, r = _clean(pred), _clean(ref)
    if not p:
        return Equality(False, how="empty answer")
    if _compact(p) == _compact(r):
        return Equality(True, how="same text")
    pi, ri = _brace_items(p), _brace_items(r)
    if pi is not None or ri is not None:
        # {1, 2} = {2, 1}; a listed set also equals its elements written as a list ("1, 2").
        xs = pi if pi is not None else split_top_level(p, _COMMA)
        ys = ri if ri is not None else split_top_level(r, _COMMA)
        if len(xs) > 1 or len(ys) > 1 or (pi is not None and ri is not None):
            same = _same_elements(xs, ys, guard)
            return Equality(same, how="same set" if same else "different sets")
    if _WORDS_ONLY.match(p) and _WORDS_ONLY.match(r):
        # Words, not products of variables: "dog" is not "god".
        same = normalize_text(p) == normalize_text(r)
        return Equality(same, how="same words" if same else "different words")

    if ("=" in p) != ("=" in r):
        # "AB = 4 cm" against "4", "1 + 2 + 3 = 6 squares" against "6": the value the statement gives,
        # compared with every rule (units included).
        named = p if "=" in p else r
        value = _named_value(named)
        if value and value != named and "=" not in value:
            return answers_equal(value, r, guard) if named is p else answers_equal(p, value, guard)

    # Units: none on the reference accepts any; a missing one is fine; two different ones are wrong.
    pv, pu = split_unit(p)
    rv, ru = split_unit(r)
    if pu is not None and ru is not None and pu != ru and not {pu, ru} & {"%", "°"}:
        return _converted_equal(pv, pu, rv, ru)
    if pu in ("%", "°") or ru in ("%", "°"):
        return _scaled_equal(pv, pu, rv, ru, guard)
    p, r = pv, rv

    # "x = 3" against "3".
    p, r = _approximated(p), _approximated(r)
    p_eq, r_eq = "=" in p, "=" in r
    if p_eq != r_eq:
        if p_eq:
            p = _named_value(p)
        else:
            r = _named_value(r)
    elif p_eq and r_eq:
        ep, er = _split_equation(p), _split_equation(r)
        if ep and er:
            verdict = _equations_equal(ep, er, guard)
            if verdict is not None:
                return verdict
        else:
            # "x = 5+5+1 = 7 = 11" against "x = 11": a named chain states its last value.
            p, r = _named_value(p), _named_value(r)
    if _compact(p) == _compact(r):
        return Equality(True, how="same text")

    rs = _as_set(r, False)
    ps = _as_set(p, rs is not None)
    if rs is None and ps is not None:
        rs = _as_set(r, True)
    if ps is not None and rs is not None:
        same = _sets_equal(ps, rs, guard)
        return Equality(same, how="same set" if same else "different sets")

    scientific = _scientific_equal(p, r)
    if scientific is not None:
        return Equality(scientific, how=f"same value at the reference's precision ({r})" if scientific else "value")
    verdict = _evaluable_equal(p, r, guard)
    if verdict is not None:
        return verdict
    same = text_key(p) == text_key(r) and bool(text_key(p))
    return Equality(same, how="same text" if same else "different")


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


def _converted_equal(pv: str, pu: str, rv: str, ru: str) -> Equality:
    """Different units: the same quantity when both are of one kind (``5 cm`` = ``0.05 m``), else wrong."""
    kind_p, kind_r = SCALES.get(pu), SCALES.get(ru)
    if kind_p is None or kind_r is None or kind_p[0] != kind_r[0]:
        return Equality(False, how=f"unit {pu} is not {ru}")
    a, b = _number(pv), _number(rv)
    if a is None or b is None:
        return Equality(False, how=f"unit {pu} is not {ru}")
    if values_close(a * kind_p[1], b * kind_r[1]):
        return Equality(True, how=f"same quantity ({pu} converted to {ru})")
    return Equality(False, how=f"different quantity ({pv} {pu} is not {rv} {ru})")
