"""Chinese numerals in replies read as numbers: ``四个`` → ``4个``, ``十二`` → ``12``, ``一百二十五`` → ``125``,
``两只`` → ``2只``, ``三分之一`` → ``1/3``, ``百分之五十`` → ``50%``, ``零点五`` → ``0.5``.

A numeral is a number only where Chinese uses it as one: a run with a place word (``十``/``百``/``千``/
``万``/``亿``) or of several digits, a fraction or a percent, or one digit followed by a measure word, a unit
or the end of its clause. Words that merely hold a digit character stay words: ``一起``, ``一共``, ``一样``,
``第一``, ``星期三``, ``十分重要``, ``四川``. One pass over the text.
"""

from __future__ import annotations

import re

__all__ = ["arabic_numerals", "zh_number"]

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_PLACES = {"十": 10, "百": 100, "千": 1000}
_GROUPS = {"万": 10_000, "亿": 100_000_000}
_NUMERAL = "零〇一二两三四五六七八九十百千万亿"
# What may follow a lone digit for it to be a count: measure words and units (longest first where it matters).
_MEASURE = (
    "个只天年月日元块角毛岁人本次名条张件辆台头支瓶箱颗份页道座间位种季节倍题组套双对层步周户棵朵匹根片杯碗斤"
    "米克吨升度分秒时钟"
)
_RUN = re.compile(
    r"(?P<pct>百分之)?(?P<num>[" + _NUMERAL + r"]+(?:点[" + _NUMERAL[:12] + r"]+)?)"
    r"(?:分之(?P<over>[" + _NUMERAL + r"]+))?"
)
# Before a numeral: an ordinal or a weekday, never a count.
_NOT_AFTER = ("第", "星期", "周", "礼拜", "初", "万", "统", "唯", "同", "之")
# Words a lone digit starts that are no number.
_WORDS = re.compile(
    r"一(?:起|共|样|般|定|直|些|切|致|旦|点儿|下|再|边|方面|向|时|瞬|口气|律|贯|概|同|并|番|会儿|阵|生)"
    r"|十分(?![钟\d一二三四五六七八九十])|万一|千万|三思|四川|五金|九州|百姓|千克(?=[\u4e00-\u9fff])"
    r"|(?<=[张李王赵])[三四五六]"  # 张三, 李四, 王五: names
)
_CLAUSE_END = set("。，,.；;！!？?、）)\n】」』”\"' \t")


def zh_number(text: str) -> float | None:
    """The value of one Chinese numeral (``一百二十五`` → 125, ``两千零五`` → 2005, ``三点五`` → 3.5), or None."""
    if not text:
        return None
    whole, _, decimals = text.partition("点")
    value = _integer(whole) if whole else None
    if value is None:
        return None
    if decimals:
        digits = [_DIGITS.get(ch) for ch in decimals]
        if any(d is None for d in digits):
            return None
        return float(f"{value}.{''.join(str(d) for d in digits)}")
    return float(value)


def _integer(text: str) -> int | None:
    if all(ch in _DIGITS for ch in text):
        # "二〇二三" is read digit by digit; a lone digit is itself.
        return int("".join(str(_DIGITS[ch]) for ch in text))
    total = 0
    group = 0
    digit: int | None = None
    for ch in text:
        if ch in _DIGITS:
            if digit is not None and _DIGITS[ch] != 0:
                return None  # two digits without a place between them: "三四百" is a range, not a number
            digit = _DIGITS[ch] if _DIGITS[ch] != 0 else None
        elif ch in _PLACES:
            group += (1 if digit is None else digit) * _PLACES[ch]
            digit = None
        elif ch in _GROUPS:
            group += digit or 0
            if group == 0:
                return None
            total += group * _GROUPS[ch]
            group, digit = 0, None
        else:
            return None
    return total + group + (digit or 0)


def _text(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def _is_count(text: str, start: int, end: int, run: str) -> bool:
    """Whether the lone-digit run ``text[start:end]`` is a number where it stands."""
    if len(run) > 1 or any(ch in "十百千万亿" for ch in run):
        return True
    after = text[end : end + 1]
    if after == "大" and run != "一":
        return True  # "八大行星", "四大发明": a count of the great ones ("一大早" is no count)
    return not after or after in _MEASURE or after in _CLAUSE_END


def arabic_numerals(text: str) -> str:
    """``text`` with its Chinese numerals written in Arabic digits (fractions as ``a/b``, percents as ``n%``);
    numerals that are part of a word, an ordinal or a weekday are left as they are."""
    if not any(ch in _NUMERAL for ch in text):
        return text
    out: list[str] = []
    pos = 0
    for m in _RUN.finditer(text):
        start, end = m.span()
        if m.start("num") > start and m.group("pct") is None:
            continue
        if text[max(0, start - 2) : start].endswith(_NOT_AFTER) or _WORDS.match(text, start):
            continue
        value = zh_number(m.group("num"))
        if value is None:
            continue
        if m.group("over") is not None:
            numerator = zh_number(m.group("over"))
            if numerator is None:
                continue
            written = f"{_text(numerator)}/{_text(value)}"  # 三分之一: one part of three
        elif m.group("pct") is not None:
            written = f"{_text(value)}%"
        else:
            if not _is_count(text, start, end, m.group("num")):
                continue
            written = _text(value)
        before = text[start - 1 : start]
        space = " " if before and (before.isdigit() or before == ".") else ""
        out.append(text[pos:start] + space + written)
        pos = end
    out.append(text[pos:])
    return "".join(out)
