"""LaTeX and Unicode math → one plain, Python-like expression syntax (``\\frac{1}{2}`` → ``((1)/(2))``).

The plain form is what the fast evaluator and sympy read: ``+ - * / **``, parentheses, numbers, single
letter variables and a few named functions (``sqrt``, ``sin``, ``log``…), ``pi``, ``oo``. Anything else
is left as is and later treated as text.
"""

from __future__ import annotations

import re

from scoring._metrics.normalize import nfkc

__all__ = ["plain", "strip_decorations"]

_DROP = re.compile(
    r"\\(?:left|right|big|Big|bigg|Bigg|displaystyle|textstyle|limits)(?![a-zA-Z])"
    r"|\\[,;:! ]|\\quad|\\qquad|~|\$|\\\(|\\\)|\\\[|\\\]"
)
_TEXT_CMD = re.compile(
    r"\\(?:text|textbf|textit|textnormal|textrm|mathrm|mathbf|mathit|operatorname|mbox|rm)\s*\{([^{}]*)\}"
)
_SIMPLE = (
    (re.compile(r"\\[dtc]frac"), r"\\frac"),
    (re.compile(r"\\lt(?![a-zA-Z])"), "<"),
    (re.compile(r"\\gt(?![a-zA-Z])"), ">"),
    (re.compile(r"\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|\\circ|°|\\degree"), "°"),
    (re.compile(r"\\%"), "%"),
    (re.compile(r"\\(?:cdot|times|ast)(?![a-zA-Z])"), "*"),
    (re.compile(r"\\div(?![a-zA-Z])"), "/"),
    (re.compile(r"\\(?:leq|leqslant|le)(?![a-zA-Z])|≤|⩽"), "<="),
    (re.compile(r"\\(?:geq|geqslant|ge)(?![a-zA-Z])|≥|⩾"), ">="),
    (re.compile(r"\\(?:neq|ne)(?![a-zA-Z])|≠"), "!="),
    (re.compile(r"\\infty|∞|\\infin"), "oo"),
    (re.compile(r"\\pi(?![a-zA-Z])|π"), "pi"),
    (re.compile(r"根号"), "√"),
    (re.compile(r"\\pm|±"), "±"),
    (re.compile(r"\\mp|∓"), "∓"),
    (re.compile(r"\\cup|∪"), "∪"),
    (re.compile(r"\\cap|∩"), "∩"),
    (re.compile(r"\\in(?![a-zA-Z])|∈"), "∈"),
    (re.compile(r"\\mid|\\vert"), "|"),
    (re.compile(r"\\(?:lbrace|\{)"), "{"),
    (re.compile(r"\\(?:rbrace|\})"), "}"),
    (re.compile(r"\\(sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|ln|log|exp|sqrt|frac)(?![a-zA-Z])"), r"\\\1"),
    (re.compile(r"\\e(?![a-zA-Z])"), "e"),
)


_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺"
_SUPERSCRIPT_RUN = re.compile(f"[{_SUPERSCRIPTS}]+")
_SUPERSCRIPT_MAP = str.maketrans(_SUPERSCRIPTS, "0123456789-+")
# LaTeX's grouped comma "10{,}000" (MATH references write thousands so) and thin spaces between digit groups.
_GROUPED_COMMA = re.compile(r"(?<=\d)\s?\{\s?,\s?\}\s?(?=\d)|(?<=\d),\\[!,]\s?(?=\d{3})")
_EMPTY_SET = re.compile(r"\\(?:emptyset|varnothing)(?![a-zA-Z])|∅|\\\{\s*\\\}|^\{\s*\}$")
_REALS = re.compile(r"\\mathbb\s*\{?\s*R\s*\}?|ℝ")
_LOG_BASE = re.compile(r"\\log_\s*(\{[^{}]*\}|\d+|[a-zA-Z])\s*(\{[^{}]*\}|\([^()]*\)|\d+(?:\.\d+)?|[a-zA-Z])")
_MIXED_NUMBER = re.compile(r"(?<![\d.}^_])(\d+)\s*\\[dtc]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}")
# An escaped backslash before a command ("\\\\left(" from a JSON string escaped twice) is the command.
_DOUBLED = re.compile(r"\\\\(?=(?:left|right|frac|dfrac|tfrac|sqrt|pi|cdot|times|infty|boxed)(?![a-zA-Z]))")
_BINOM = re.compile(r"\\[dt]?binom\s*\{\s*(\d{1,3})\s*\}\s*\{\s*(\d{1,3})\s*\}")


def _superscript(m: re.Match[str]) -> str:
    """``x²`` → ``x^2``, ``10⁻³`` → ``10^{-3}``."""
    power = m.group(0).translate(_SUPERSCRIPT_MAP)
    return f"^{power}" if len(power) == 1 else f"^{{{power}}}"


def _binom(m: re.Match[str]) -> str:
    from math import comb

    n, k = int(m.group(1)), int(m.group(2))
    return str(comb(n, k)) if k <= n else "0"


def _mixed(m: re.Match[str]) -> str:
    """``2\\frac{1}{3}`` is the mixed number 2⅓ (elementary school answers write it so), not 2·⅓."""
    whole, num, den = m.groups()
    return f"({whole}+{num}/{den})" if int(num) < int(den) else m.group(0)


def _log_base(m: re.Match[str]) -> str:
    base, arg = (g.strip("{}") if g.startswith("{") else g for g in m.groups())
    return f"(\\ln({arg})/\\ln({base}))"


def strip_decorations(text: str) -> str:
    """NFKC, LaTeX spacing/sizing and ``\\text{…}`` removed, relation and constant symbols made uniform."""
    if not text.isascii():
        text = _SUPERSCRIPT_RUN.sub(_superscript, text)
    s = nfkc(text)
    if "{" in s or ",\\" in s:
        s = _GROUPED_COMMA.sub(",", s)
    if "\\" in s:
        s = _EMPTY_SET.sub("∅", s)
        s = _REALS.sub("ℝ", s)
        s = _BINOM.sub(_binom, s)
        s = _MIXED_NUMBER.sub(_mixed, s)
        s = _LOG_BASE.sub(_log_base, s)
    if "\\\\" in s:
        s = _DOUBLED.sub(r"\\", s)
    s = _DROP.sub("", s)
    for _ in range(3):
        t = _TEXT_CMD.sub(r"\1", s)
        if t == s:
            break
        s = t
    for pattern, repl in _SIMPLE:
        s = pattern.sub(repl, s)
    return s.strip()


def _group(s: str, i: int) -> tuple[str, int]:
    """The argument starting at ``s[i]``: a brace group's inside, or one character/command. Returns (arg, end)."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        return "", i
    if s[i] == "{":
        depth = 0
        for j in range(i, len(s)):
            if s[j] == "{":
                depth += 1
            elif s[j] == "}":
                depth -= 1
                if depth == 0:
                    return s[i + 1 : j], j + 1
        return s[i + 1 :], len(s)
    if s[i] == "\\":
        m = re.match(r"\\[a-zA-Z]+", s[i:])
        if m:
            return m.group(0), i + m.end()
    return s[i], i + 1


def _expand(s: str) -> str:
    r"""``\frac``, ``\sqrt[n]{…}``, ``\sqrt{…}`` and ``√`` rewritten as calls, recursively."""
    out: list[str] = []
    i = 0
    while i < len(s):
        if s.startswith("\\frac", i):
            num, j = _group(s, i + 5)
            den, k = _group(s, j)
            out.append(f"(({_expand(num)})/({_expand(den)}))")
            i = k
        elif s.startswith("\\sqrt", i):
            j = i + 5
            index = None
            if j < len(s) and s[j] == "[":
                close = s.find("]", j)
                if close > 0:
                    index = s[j + 1 : close]
                    j = close + 1
            arg, k = _group(s, j)
            body = _expand(arg)
            out.append(f"(({body})**(1/({_expand(index)})))" if index else f"sqrt({body})")
            i = k
        elif s[i] == "√":
            j = i + 1
            if j < len(s) and s[j] == "(":
                depth = 0
                for k in range(j, len(s)):
                    depth += s[k] == "("
                    depth -= s[k] == ")"
                    if depth == 0:
                        break
                out.append(f"sqrt({_expand(s[j + 1 : k])})")
                i = k + 1
            elif j < len(s) and s[j] == "{":
                arg, k = _group(s, j)
                out.append(f"sqrt({_expand(arg)})")
                i = k
            else:
                m = re.match(r"\d+(?:\.\d+)?|[a-zA-Z]", s[j:])
                if m is None:
                    out.append("√")
                    i = j
                else:
                    out.append(f"sqrt({m.group(0)})")
                    i = j + m.end()
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


_FUNCS = r"(?:sqrt|sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|asin|acos|atan|ln|log|exp)"
_IMPLICIT = (
    (re.compile(r"(\d)\s*(?=[a-zA-Z(])"), r"\1*"),
    (re.compile(r"\)\s*(?=[\da-zA-Z(])"), ")*"),
)
_FUNC_NOPAREN = re.compile(r"\b" + _FUNCS + r"\s*(?!\()(\d+(?:\.\d+)?|[a-zA-Z])(?![a-zA-Z(])")


_TRIG_POWER = re.compile(r"\\?(sin|cos|tan|cot|sec|csc)\s*\^\s*\{?(\d)\}?\s*(\\?[a-zA-Z]+|\d+|\([^()]*\)|\{[^{}]*\})")


def plain(text: str) -> str:
    """The plain expression form of an answer (decorations already stripped or not)."""
    s = strip_decorations(text)
    s = _TRIG_POWER.sub(r"(\1(\3))^\2", s)
    s = _expand(s)
    s = re.sub(r"\\(sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|ln|log|exp)", r"\1", s)
    s = s.replace("{", "(").replace("}", ")").replace("^", "**")
    s = re.sub(r"(?<=\d)\s+(?=\d)", ",", s)  # "1 2" is two numbers, not 12 (thousands are joined earlier)
    s = re.sub(r"\s+", "", s)
    s = _FUNC_NOPAREN.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)].strip() + f"({m.group(1)})", s)
    s = re.sub(r"(?<![a-zA-Z])(\d+)\s*\*?\s*(pi|oo)\b", r"\1*\2", s)
    s = re.sub(r"(\d+)!", r"factorial(\1)", s)
    return s
