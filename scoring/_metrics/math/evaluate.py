"""A small, safe evaluator for plain expressions: numbers, ``+ - * / **``, implicit products, a few
functions and single-letter variables. It settles most equivalences in microseconds, without sympy.

Two expressions with variables are compared at a few fixed points (random-looking, positive); equal
values at every point count as equal. Nothing here can hang: floats overflow to an error instead of
growing, and input size is bounded by the caller.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

__all__ = [
    "Expr",
    "NotEvaluable",
    "compile_expr",
    "constant_value",
    "expressions_equal",
    "proportional",
    "values_close",
]


class NotEvaluable(Exception):
    """The expression is outside what the fast evaluator handles (the caller may try sympy)."""


_FUNCS: dict[str, Callable[[float], float]] = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "cot": lambda v: 1 / math.tan(v),
    "sec": lambda v: 1 / math.cos(v),
    "csc": lambda v: 1 / math.sin(v),
    "arcsin": math.asin,
    "arccos": math.acos,
    "arctan": math.atan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "ln": math.log,
    "log": math.log,
    "exp": math.exp,
    "abs": abs,
    "factorial": lambda v: float(math.factorial(int(v))) if v == int(v) and 0 <= v <= 170 else math.nan,
}
_CONSTS = {"pi": math.pi, "e": math.e, "E": math.e}
_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)|([a-zA-Z]+)|(\*\*|[-+*/()]))")

_WORD = re.compile(r"[a-zA-Z]{4,}")

# Tree nodes: ("n", value) | ("v", name) | ("f", name, arg) | ("neg", a) | (op, a, b)
Expr = tuple[object, ...]


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise NotEvaluable(f"unexpected {text[pos : pos + 10]!r}")
            num, name, op = m.groups()
            if num is not None:
                self.tokens.append(("n", num))
            elif name is not None:
                self._names(name)
            else:
                self.tokens.append(("o", op))
            pos = m.end()
        self.i = 0

    def _names(self, name: str) -> None:
        while name:
            for known in sorted((*_FUNCS, *_CONSTS), key=len, reverse=True):
                if name.startswith(known) and (known in _FUNCS or len(known) > 1 or len(name) == 1):
                    self.tokens.append(("f" if known in _FUNCS else "c", known))
                    name = name[len(known) :]
                    break
            else:
                self.tokens.append(("v", name[0]))
                name = name[1:]

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def parse(self) -> Expr:
        if not self.tokens:
            raise NotEvaluable("empty")
        node = self.expr()
        if self.peek() is not None:
            raise NotEvaluable("trailing tokens")
        return node

    def expr(self) -> Expr:
        node = self.term()
        while (tok := self.peek()) is not None and tok in (("o", "+"), ("o", "-")):
            self.take()
            node = (tok[1], node, self.term())
        return node

    def term(self) -> Expr:
        node = self.unary()
        while (tok := self.peek()) is not None:
            if tok in (("o", "*"), ("o", "/")):
                self.take()
                node = (tok[1], node, self.unary())
            elif tok[0] in "nfcv" or tok == ("o", "("):
                node = ("*", node, self.power())
            else:
                break
        return node

    def unary(self) -> Expr:
        tok = self.peek()
        if tok == ("o", "-"):
            self.take()
            return ("neg", self.unary())
        if tok == ("o", "+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Expr:
        base = self.primary()
        if self.peek() == ("o", "**"):
            self.take()
            return ("**", base, self.unary())
        return base

    def primary(self) -> Expr:
        if self.peek() is None:
            raise NotEvaluable("unexpected end")
        kind, value = self.take()
        if kind == "n":
            return ("n", float(value))
        if kind == "c":
            return ("n", _CONSTS[value])
        if kind == "v":
            return ("v", value)
        if kind == "f":
            if self.peek() == ("o", "("):
                self.take()
                arg = self.expr()
                if self.peek() != ("o", ")"):
                    raise NotEvaluable("unclosed call")
                self.take()
            else:
                arg = self.power()
            return ("f", value, arg)
        if value == "(":
            node = self.expr()
            if self.peek() != ("o", ")"):
                raise NotEvaluable("unclosed parenthesis")
            self.take()
            return node
        raise NotEvaluable(f"unexpected {value!r}")


def compile_expr(text: str) -> Expr:
    """Parse a plain expression (see :mod:`scoring._metrics.math.latex`) or raise NotEvaluable."""
    if len(text) > 400:
        raise NotEvaluable("too long")
    for word in _WORD.findall(text):
        if word not in _FUNCS and word not in _CONSTS:
            raise NotEvaluable(f"{word!r} is a word, not a product of variables")
    if text.count("(") > 60:
        raise NotEvaluable("nested too deeply")
    try:
        return _Parser(text).parse()
    except RecursionError as exc:
        raise NotEvaluable("nested too deeply") from exc


def _eval(node: Expr, env: dict[str, float]) -> float:
    kind = node[0]
    try:
        if kind == "n":
            return float(node[1])  # type: ignore[arg-type]
        if kind == "v":
            return env[str(node[1])]
        if kind == "neg":
            return -_eval(node[1], env)  # type: ignore[arg-type]
        if kind == "f":
            value = _FUNCS[node[1]](_eval(node[2], env))  # type: ignore[index,arg-type]
            if math.isnan(value):
                raise NotEvaluable("not a number")
            return value
        a = _eval(node[1], env)  # type: ignore[arg-type]
        b = _eval(node[2], env)  # type: ignore[arg-type]
        if kind == "+":
            return a + b
        if kind == "-":
            return a - b
        if kind == "*":
            return a * b
        if kind == "/":
            return a / b
        result: object = a**b
        if not isinstance(result, float):
            raise NotEvaluable("complex value")
        return result
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        raise NotEvaluable(str(exc)) from exc


def constant_value(node: Expr) -> float:
    """The value of an expression without variables (NotEvaluable when it has some or fails)."""
    if _variables(node, set()):
        raise NotEvaluable("has variables")
    value = _eval(node, {})
    if math.isnan(value):
        raise NotEvaluable("not a number")
    return value


def _variables(node: Expr, out: set[str]) -> set[str]:
    if node[0] == "v":
        out.add(node[1])  # type: ignore[arg-type]
    for child in node[1:]:
        if isinstance(child, tuple):
            _variables(child, out)
    return out


_POINTS = (0.5772156649, 1.4142135623, 2.7182818284, 0.3183098861)


def values_close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def expressions_equal(a: Expr, b: Expr) -> bool:
    """Equal values at every test point. Raises NotEvaluable when fewer than two points evaluate."""
    names = sorted(_variables(a, set()) | _variables(b, set()))
    if not names:
        return values_close(_eval(a, {}), _eval(b, {}))
    ok = 0
    for shift in range(len(_POINTS)):
        env = {name: _POINTS[(shift + k) % len(_POINTS)] * (1 + 0.37 * k) for k, name in enumerate(names)}
        try:
            va, vb = _eval(a, env), _eval(b, env)
        except NotEvaluable:
            continue
        if not values_close(va, vb):
            return False
        ok += 1
    if ok < 2:
        raise NotEvaluable("too few points evaluate")
    return True


def proportional(a: Expr, b: Expr) -> bool:
    """``a = k·b`` for one non-zero constant ``k`` at every test point (two equations ``a = 0``, ``b = 0``
    state the same relation). Raises NotEvaluable when fewer than two points evaluate."""
    names = sorted(_variables(a, set()) | _variables(b, set()))
    ratio: float | None = None
    ok = 0
    for shift in range(len(_POINTS)):
        env = {name: _POINTS[(shift + k) % len(_POINTS)] * (1 + 0.37 * k) for k, name in enumerate(names)}
        try:
            va, vb = _eval(a, env), _eval(b, env)
        except NotEvaluable:
            continue
        if abs(vb) < 1e-12 or abs(va) < 1e-12:
            if not (values_close(va, 0.0) and values_close(vb, 0.0)):
                return False
            ok += 1
            continue
        if ratio is None:
            ratio = va / vb
        elif not values_close(va / vb, ratio):
            return False
        ok += 1
    if ok < 2:
        raise NotEvaluable("too few points evaluate")
    return ratio is not None
