"""A number as Excel shows it under a cell's number format (ECMA-376 §18.8.31 format codes).

Covers what evaluation sets hold: General, fixed decimals (``0.00``), thousands separators (``#,##0``),
percent (``0%``), scientific (``0.00E+00``), fractions (``# ?/?``, ``?/4``), literal text and currency
(``"¥"#,##0``, ``[$¥-804]#,##0.00``, ``\\$0``), up to four sections (positive;negative;zero;text) and
``@``. Dates are not rendered here (the workbook reader already returns dates as dates); a format it does
not cover (conditions such as ``[>100]``, date tokens) gives None, and the caller keeps General.

Evaluated instead of a library: the Python ports of SheetJS SSF on PyPI are unmaintained (``ssf`` 0.2.2
fails on current Babel; its fork prints debug lines, drops the ``#,##0`` separator under a POSIX locale,
shows 123456789012 as ``1.23457E+11`` and pulls in six dependencies) — see the issue note of #14.

Rounding follows Excel: the stored double is first taken to 15 significant digits, then rounded half
away from zero (1.005 under ``0.00`` shows ``1.01``, as in Excel).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction

__all__ = ["general", "is_general", "render"]

_DATE_TOKENS = re.compile(r"[yYdDhHsS]|[mM]|AM/PM|am/pm|A/P|a/p|\[[hHmMsS]+\]")
_BRACKET = re.compile(r"\[([^\]]*)\]")
_MAX_DIGITS = 30


def general(value: float | int) -> str:
    """A number as Excel's General format shows it in a wide column: 1.0 → "1", 0.1+0.2 → "0.3"."""
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.15g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa.upper()}E{sign}{abs(int(exponent)):02d}"
    return text


def is_general(code: str) -> bool:
    """Whether a format code shows numbers as General does (General itself, or text ``@``)."""
    folded = code.strip().lower()
    return folded in ("", "general", "@")


def render(value: float | int, code: str) -> str | None:
    """``value`` shown under format ``code``; None when the format is beyond this renderer."""
    if isinstance(value, bool) or not math.isfinite(value):
        return None
    sections = _split_sections(code)
    if not sections or len(sections) > 4:
        return None
    if any(_BRACKET.search(s) and _has_condition(s) for s in sections):
        return None
    numeric = [s for s in sections[:3]]
    if value < 0 and len(numeric) >= 2:
        section, number, sign = numeric[1], -value, ""
    elif value == 0 and len(numeric) >= 3:
        section, number, sign = numeric[2], 0.0, ""
    else:
        section, number, sign = numeric[0], abs(value), "-" if value < 0 else ""
    try:
        text = _render_section(section, number)
    except (InvalidOperation, ValueError, OverflowError):
        return None
    if text is None:
        return None
    # A minus sign that rounding leaves in front of nothing but zeros is dropped, as Excel does.
    if sign and any(ch in "123456789" for ch in text):
        return sign + text
    return text


def _has_condition(section: str) -> bool:
    return any(inner[:1] in "<>=" for inner in _BRACKET.findall(section))


def _split_sections(code: str) -> list[str]:
    sections: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(code):
        ch = code[i]
        if ch == '"':
            end = code.find('"', i + 1)
            end = len(code) - 1 if end == -1 else end
            current.append(code[i : end + 1])
            i = end + 1
            continue
        if ch == "\\" and i + 1 < len(code):
            current.append(code[i : i + 2])
            i += 2
            continue
        if ch == ";":
            sections.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    sections.append("".join(current))
    return sections


def _tokens(section: str) -> list[tuple[str, str]] | None:
    """The section as (kind, text) tokens: lit, digit (0 # ?), point, comma, percent, exp, slash, at, general."""
    out: list[tuple[str, str]] = []
    i = 0
    n = len(section)
    while i < n:
        ch = section[i]
        if ch == '"':
            end = section.find('"', i + 1)
            end = n if end == -1 else end
            out.append(("lit", section[i + 1 : end]))
            i = end + 1
        elif ch == "\\":
            out.append(("lit", section[i + 1 : i + 2]))
            i += 2
        elif ch == "_":
            out.append(("lit", " "))  # the width of the next character: a space
            i += 2
        elif ch == "*":
            i += 2  # fill to the column width: nothing in text
        elif ch == "[":
            end = section.find("]", i)
            if end == -1:
                return None
            inner = section[i + 1 : end]
            if inner.startswith("$"):
                symbol = inner[1:].split("-", 1)[0]
                out.append(("lit", symbol))
            elif _DATE_TOKENS.fullmatch(f"[{inner}]"):
                return None  # elapsed time
            # colours and locales show nothing
            i = end + 1
        elif section[i : i + 7].lower() == "general":
            out.append(("general", ""))
            i += 7
        elif ch in "0#?":
            out.append(("digit", ch))
            i += 1
        elif ch == ".":
            out.append(("point", "."))
            i += 1
        elif ch == ",":
            out.append(("comma", ","))
            i += 1
        elif ch == "%":
            out.append(("percent", "%"))
            i += 1
        elif ch in "Ee" and i + 1 < n and section[i + 1] in "+-":
            out.append(("exp", section[i + 1]))
            i += 2
        elif ch == "/":
            out.append(("slash", "/"))
            i += 1
        elif ch == "@":
            out.append(("at", "@"))
            i += 1
        elif ch.isalpha() and _DATE_TOKENS.match(section, i):
            return None
        else:
            out.append(("lit", ch))
            i += 1
    return out


def _render_section(section: str, number: float) -> str | None:
    tokens = _tokens(section)
    if tokens is None:
        return None
    kinds = [k for k, _ in tokens]
    if "general" in kinds or "at" in kinds:
        shown = general(number)
        return "".join(shown if k in ("general", "at") else (t if k == "lit" else "") for k, t in tokens)
    if "digit" not in kinds:
        return "".join(t for k, t in tokens if k in ("lit", "comma", "point", "percent", "slash"))
    if "slash" in kinds:
        return _fraction(tokens, number)
    if "exp" in kinds:
        return _scientific(tokens, number)
    return _fixed(tokens, number)


def _decimal(number: float, places: int) -> Decimal:
    exact = Decimal(f"{number:.15g}")
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _split_digits(tokens: list[tuple[str, str]]) -> tuple[list[str], list[str], bool, int]:
    """Integer and fraction placeholders, whether to group thousands, and the scaling by trailing commas."""
    integer: list[str] = []
    fraction: list[str] = []
    seen_point = False
    group = False
    scale = 0
    last_digit = max(i for i, (k, _) in enumerate(tokens) if k == "digit")
    for i, (kind, text) in enumerate(tokens):
        if kind == "point":
            seen_point = True
        elif kind == "digit":
            (fraction if seen_point else integer).append(text)
        elif kind == "comma":
            if i > last_digit:
                scale += 1
            elif not seen_point and any(k == "digit" for k, _ in tokens[:i]):
                group = True
    return integer, fraction, group, scale


def _fixed(tokens: list[tuple[str, str]], number: float) -> str:
    integer, fraction, group, scale = _split_digits(tokens)
    number = number * 100 ** sum(1 for k, _ in tokens if k == "percent") / 1000**scale
    rounded = _decimal(number, len(fraction))
    whole, _, frac = f"{rounded:f}".partition(".")
    whole = whole.lstrip("-")
    int_text = _integer_text(whole, integer, group)
    frac_text = _fraction_text(frac.ljust(len(fraction), "0"), fraction)
    out: list[str] = []
    placed = False
    for kind, text in tokens:
        if kind == "digit":
            if not placed:
                out.append(int_text if not any(k == "point" for k, _ in tokens) or integer else "")
                placed = True
            continue
        if kind == "point":
            if not placed:
                out.append(int_text)
                placed = True
            out.append("." + frac_text if frac_text or fraction else ".")
            continue
        if kind in ("comma",):
            continue
        out.append(text)
    return "".join(out)


def _integer_text(whole: str, placeholders: list[str], group: bool) -> str:
    digits = whole.lstrip("0")
    zeros = placeholders.count("0")
    spaces = placeholders.count("?")
    if len(digits) < zeros:
        digits = digits.rjust(zeros, "0")
    if group and digits:
        digits = f"{int(digits):,}" if digits.isdigit() else digits
    if len(digits) < zeros + spaces:
        digits = digits.rjust(zeros + spaces, " ")
    return digits


def _fraction_text(frac: str, placeholders: list[str]) -> str:
    chars = list(frac[: len(placeholders)])
    for index in range(len(chars) - 1, -1, -1):
        if chars[index] != "0" or placeholders[index] == "0":
            break
        chars[index] = " " if placeholders[index] == "?" else ""
    return "".join(chars)


def _scientific(tokens: list[tuple[str, str]], number: float) -> str | None:
    at = next(i for i, (k, _) in enumerate(tokens) if k == "exp")
    mantissa_tokens = tokens[:at]
    exp_tokens = tokens[at + 1 :]
    sign_mode = tokens[at][1]
    integer, fraction, _, _ = (
        _split_digits(mantissa_tokens)
        if any(k == "digit" for k, _ in mantissa_tokens)
        else (
            [],
            [],
            False,
            0,
        )
    )
    exp_digits = sum(1 for k, _ in exp_tokens if k == "digit")
    if len(integer) > 1 and "#" in integer:
        return None  # engineering notation (##0.0E+0): exponents in steps of three
    int_places = max(len(integer), 1)
    if number == 0:
        exponent = 0
        mantissa = Decimal(0)
    else:
        exponent = math.floor(math.log10(number)) - (int_places - 1)
        mantissa = _decimal(number / 10**exponent, len(fraction))
        if mantissa >= Decimal(10) ** int_places:
            exponent += 1
            mantissa = _decimal(number / 10**exponent, len(fraction))
    whole, _, frac = f"{mantissa:f}".partition(".")
    int_text = _integer_text(whole, integer or ["0"], False)
    frac_text = _fraction_text(frac.ljust(len(fraction), "0"), fraction)
    body = int_text + ("." + frac_text if fraction else "")
    prefix = "".join(t for k, t in mantissa_tokens if k == "lit")
    sign = "-" if exponent < 0 else ("+" if sign_mode == "+" else "")
    exp_text = str(abs(exponent)).rjust(max(exp_digits, 1), "0")
    suffix = "".join(t for k, t in exp_tokens if k == "lit")
    return f"{prefix}{body}E{sign}{exp_text}{suffix}"


def _fraction(tokens: list[tuple[str, str]], number: float) -> str | None:
    slash = next(i for i, (k, _) in enumerate(tokens) if k == "slash")
    before = tokens[:slash]
    after = tokens[slash + 1 :]
    den_tokens = [t for k, t in after if k == "digit"]
    literal_den = "".join(t for k, t in after if k == "lit").strip()
    # Digit groups before the slash: "# ?/?" has a whole part and a numerator; "?/?" only a numerator.
    groups: list[list[str]] = [[]]
    for kind, text in before:
        if kind == "digit":
            groups[-1].append(text)
        elif groups[-1]:
            groups.append([])
    groups = [g for g in groups if g]
    if not groups:
        return None
    has_whole = len(groups) >= 2
    num_places = len(groups[-1])
    if den_tokens:
        max_den = 10 ** len(den_tokens) - 1
        frac = Fraction(number).limit_denominator(max_den) if not has_whole else None
        if has_whole:
            whole = int(number)
            frac = Fraction(number - whole).limit_denominator(max_den)
            if frac == 1:
                whole, frac = whole + 1, Fraction(0)
        assert frac is not None
    elif literal_den.isdigit():
        den = int(literal_den)
        whole = int(number) if has_whole else 0
        frac = Fraction(round((number - whole) * den), den)
    else:
        return None
    if not has_whole:
        numerator, denominator = frac.numerator, frac.denominator
        whole_text = ""
    else:
        numerator, denominator = frac.numerator, frac.denominator
        whole_text = str(whole) if whole else ""
    if literal_den.isdigit():
        denominator = int(literal_den)
        numerator = round(frac * denominator)
    if numerator == 0 and has_whole:
        width = num_places + 1 + max(len(den_tokens), len(literal_den))
        return (whole_text or "0") + " " * (width + 1) if whole_text else "0" + " " * (width + 1)
    num_text = str(numerator).rjust(num_places)
    den_text = str(denominator).ljust(len(den_tokens)) if den_tokens else str(denominator)
    lead = (whole_text.rjust(len(groups[0])) + " ") if has_whole else ""
    return f"{lead}{num_text}/{den_text}"
