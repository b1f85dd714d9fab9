"""Text helpers the math extractor and the math metric share: the reply's body, blanks, and the value
inside an answer clause.

Everything here runs in time linear in its (bounded) input: no regex with nested quantifiers reads
untrusted text, and loops walk the text once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Blank", "blanks", "isolate", "reply_text", "split_blanks"]

# Only the end of a very long reply can hold its final answer: the extractor reads its last 32,000 characters.
MAX_REPLY = 32_000
_THINK_OPEN = re.compile(r"<think\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think\s*>", re.IGNORECASE)


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - the last match is wanted
        pass
    return found


def reply_text(text: str) -> tuple[str, bool]:
    """The part of a reply that can hold its final answer, and whether it ends inside unclosed reasoning.

    Reasoning in ``<think>…</think>`` is dropped (everything up to the last ``</think>``); a ``<think>``
    that never closes leaves only what precedes it, and the flag says so. One pass over the text.
    """
    close = _last(_THINK_CLOSE, text) if "</" in text else None
    if close is not None:
        text = text[close.end() :]
    opened = _THINK_OPEN.search(text) if "<" in text else None
    cut = opened is not None
    if opened is not None:
        text = text[: opened.start()]
    if len(text) > MAX_REPLY:
        text = text[-MAX_REPLY:]
    return text, cut


@dataclass(frozen=True)
class Blank:
    """One blank of an answer: its text and the numbered part it answers (``(2)`` → 2), if marked."""

    text: str
    part: int | None = None


_PART_MARK = re.compile(r"[(（]\s*(\d{1,2})\s*[)）]")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
# A circled number is an answer (a choice among ①②③…) unless content follows it: "②40°" marks a sub-part,
# "①③,④" lists choices.
_CIRCLED_ANSWER_NEXT = set(_CIRCLED) | set(",，、;；.。\n和或及与)") | {""}


def _part_marks(text: str) -> list[tuple[int, int, int]]:
    """``(start, end, number)`` of the ``(1)``/``(2)`` markers that number the parts of an answer."""
    out: list[tuple[int, int, int]] = []
    for m in _PART_MARK.finditer(text):
        before = text[m.start() - 1] if m.start() else ""
        if before and (before.isalpha() or before in ")]}^_\\'" or (before.isdigit() and m.group(0)[0] == "(")):
            continue  # f(2), x^(2), a_(1): not a part marker
        n = int(m.group(1))
        if out and n <= out[-1][2]:
            continue
        out.append((m.start(), m.end(), n))
    if len(out) == 1 and text[: out[0][0]].strip(" \t\n:："):
        return []  # one "(3)" inside a sentence is not a numbering
    return out


def _circled_marks(text: str) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    for k, ch in enumerate(text):
        if ch not in _CIRCLED:
            continue
        nxt = text[k + 1 : k + 8].lstrip(" \t")[:1]
        if nxt in _CIRCLED_ANSWER_NEXT:
            continue
        n = _CIRCLED.index(ch) + 1
        if out and n <= out[-1][2]:
            continue
        out.append((k, k + 1, n))
    if len(out) < 2 and not (out and not text[: out[0][0]].strip(" \t\n:：")):
        return []
    return out


def _pieces(text: str, marks: list[tuple[int, int, int]]) -> list[tuple[int | None, str]]:
    if not marks:
        return [(None, text)]
    out: list[tuple[int | None, str]] = []
    head = text[: marks[0][0]]
    if any(ch.isdigit() for ch in head):
        out.append((None, head))
    for k, (_, end, n) in enumerate(marks):
        stop = marks[k + 1][0] if k + 1 < len(marks) else len(text)
        out.append((n, text[end:stop]))
    return out


def _top_level_split(text: str) -> list[str]:
    """Split on newlines, and on ``;``/``；`` outside brackets (``(0;0;0)`` stays whole, ``\\;`` is a space)."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "\n" or (ch in ";；" and depth == 0 and not (ch == ";" and i and text[i - 1] == "\\")):
            out.append(text[start:i])
            start = i + 1
            if ch == "\n":
                depth = 0
    out.append(text[start:])
    return out


_EDGE = " \t\r\n,，。.;；"


def blanks(text: str) -> list[Blank]:
    """The blanks of an answer (seed 003): ``(1)``/``(2)`` parts, then ``①``/``②`` sub-parts, then newlines
    and ``;``. ``"(1) 3 (2) 5"`` → 3 (part 1), 5 (part 2); ``"3; 5"`` → 3, 5."""
    out: list[Blank] = []
    for part, piece in _pieces(text, _part_marks(text)):
        for _, subpiece in _pieces(piece, _circled_marks(piece)):
            for chunk in _top_level_split(subpiece):
                chunk = chunk.strip(_EDGE)
                if chunk:
                    out.append(Blank(chunk, part))
    return out or [Blank(text.strip())]


def split_blanks(text: str) -> list[str]:
    """The blanks' texts: ``"(1) 3 (2) 5"``, ``"3; 5"``, ``"3\\n5"`` → ``["3", "5"]``."""
    return [b.text for b in blanks(text)]


# ---------------------------------------------------------------------------------------------------------
# The value inside an answer clause.

_CLAUSE_MAX = 1000
_PROSE = re.compile(
    r"^(?:[A-Za-z][A-Za-z ,']{0,60}?\b(?:is|are|equals|was|would\s+be)\s+"
    r"|[\u4e00-\u9fff，,]{1,12}?(?:为|是|等于)\s*)(?=\S)"
)
_CONNECTIVE = re.compile(
    r"^(?:(?i:therefore|thus|hence|so|then|finally|in\s+conclusion)\b[\s,，]*|所以|因此|故|综上所述|综上)[\s,，:：]*"
)
# A condition before the answer: "当3x+1=10时，x的值为3" states 3.
_CONDITION = re.compile(r"^当[^，,。；;\n<>≤≥≠]{1,40}时[，,]\s*")  # a range ("当58<x≤68时") is part of the answer
# A reason after the answer: "5 because 2+3=5", "5, but I am not sure", "5 (since …)", "5，因为……".
_REASON = re.compile(
    r"[,，;；]?\s*\b(?:because|since|as\s+(?:shown|required|expected)|which|but|so\s+that|where|given\s+that)\b"
    r"|\((?:since|because|as|from|by|which|i\.e\.|e\.g\.|using|via|note)\b[^)]*\)\s*$"
    r"|[,，]?\s*(?:因为|由于|但是|但|其中)",
    re.IGNORECASE,
)
# Inline math: $…$, $$…$$, \(…\), \[…\].
_MATH_SEGMENT = re.compile(r"\$\$([^$]+)\$\$|\$([^$]+)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_JOINER = re.compile(r"^\s*(?:,|，|、|;|；|or|and|或者|或|和|以及|及)?\s*$", re.IGNORECASE)
_UNIT_SUFFIX = re.compile(r"^\s*[^\s\d$.,;:!?。，；：]{1,8}\s*$")
# Prose: a Chinese character or an English word — not a joiner (and, 或, 和) or a function or LaTeX name.
_PROSE_WORD = re.compile(
    r"(?![或和及且])[\u4e00-\u9fff]"
    r"|(?<![\\A-Za-z])(?!(?:and|or|sqrt|frac|dfrac|pi|sin|cos|tan|cot|log|ln|exp|text|cdot|times|infty)\b)[A-Za-z]{3,}"
)
_EN_VERB = re.compile(r"\b(?:is|are|equals|was|were|would\s+be|will\s+be|becomes|gives|yields)\s+", re.IGNORECASE)
_ZH_VERB = re.compile(r"(?:得到|求得|解得|(?<![因作成认以称])为|是|等于|得)\s*")
# "Solving, a = 3" / "由题意得 a=3": prose, then the value named last.
_ASSIGNMENT = re.compile(r"(?:^|(?<=[\s,，:：]))[A-Za-z](?:_\{?\w+\}?)?\s*=\s*[^=,，;；\s]")
_HAS_MATH = re.compile(r"[0-9A-Za-z\\√π∞(\[{<>=≤≥±-]")
_NUMBER = re.compile(r"(?<![\w.^_{])[-+]?\d+(?:[.,]\d+)*(?:\.\d+)?(?![\w.^_}])")
# What a stated value holds (a digit, math markup or a symbol), unlike "is the solution".
_VALUE = re.compile(r"[\d$\\√π∞=<>≤≥±^+\-*/①②③④⑤⑥⑦⑧⑨⑩]|\b[A-Za-z]\b")
_MATH_NAME = re.compile(r"\$[^$]{1,40}\$")


def has_math(text: str) -> bool:
    return bool(_HAS_MATH.search(text))


def _math_span(text: str) -> str | None:
    """The last run of inline math in prose (runs joined only by ``or``/``and``/commas stay together)."""
    segments = list(_MATH_SEGMENT.finditer(text))
    if not segments:
        return None
    first = last = len(segments) - 1
    while first > 0 and _JOINER.match(text[segments[first - 1].end() : segments[first].start()]):
        first -= 1
    start, end = segments[first].start(), segments[last].end()
    prefix, suffix = text[:start], text[end:]
    if prefix.strip() and not _PROSE_WORD.search(prefix):
        start = 0  # "x = $3$", "-$5$": the prefix is part of the answer
    if _UNIT_SUFFIX.match(suffix) or (suffix.strip(" .。") and not _PROSE_WORD.search(suffix)):
        end = len(text)  # "$5$ 元", "$12$ cm", "20, $y = 5x + 5$, 45": the suffix is part of the answer
    return text[start:end].strip()


def _cut_reason(s: str) -> str:
    """ "5 because 2+3=5" → "5"; but "the highest bar, which is 100" keeps its value (the head has none)."""
    m = _REASON.search(s)
    if m is None or m.start() == 0 or not s[: m.start()].strip():
        return s
    head = s[: m.start()].strip()
    if m.group(0).strip(" ,，").lower() == "which" and not re.search(r"[\d$\\]", head) and re.search(r"\d", s):
        return s
    return head


def _after_last_verb(s: str) -> str | None:
    """ "the area of the square is 25" → "25": the answer follows the last verb whose remainder holds
    something mathematical, when what precedes it is prose (``The largest $n$ is 34`` → ``34``)."""
    for verb in (_EN_VERB, _ZH_VERB):
        cut = None
        for m in verb.finditer(s):
            rest = s[m.end() :]
            head = s[: m.start()]
            if rest.strip() and _VALUE.search(rest) and (_PROSE_WORD.search(head) or _MATH_NAME.search(head)):
                cut = m.end()
        if cut is not None:
            return s[cut:]
    return None


# A count inside Chinese prose, with its measure word or unit: "需要4天才能到达" → "4天".
_CJK_COUNT = re.compile(
    r"(?<=[\u4e00-\u9fff])\d+(?:\.\d+)?(?:平方|立方)?(?:千米|厘米|分米|毫米|公里|千克|公斤|毫升|小时|分钟|块钱"
    r"|[天个只元块岁人米克吨升年月日次本辆页张件瓶条棵名位倍秒])"
)


def _lone_number(s: str) -> str | None:
    """ "So she has 12 apples left" → "12", "需要4天" → "4": prose around exactly one number."""
    numbers = _NUMBER.findall(s)
    if "$" in s or "\\" in s or "=" in s:
        return None
    if not numbers:
        counts = _CJK_COUNT.findall(s)  # the digits touch the characters around them
        if (
            len(counts) == 1
            and len(re.findall(r"\d+(?:\.\d+)?", s)) == 1
            and len(re.findall(r"[\u4e00-\u9fff]", s)) >= 2
        ):
            return str(counts[0])
        return None
    if len(numbers) != 1:
        return None
    rest = _NUMBER.sub(" ", s, count=1)
    words = re.findall(r"[A-Za-z]{3,}", rest)
    han = re.findall(r"[\u4e00-\u9fff]", rest)
    if len(words) >= 2 or len(han) >= 4:
        return str(numbers[0])
    return None


def _clauses(s: str) -> list[str]:
    """Split on commas outside brackets and math, never between digits (``1,000``)."""
    out: list[str] = []
    depth = 0
    in_math = False
    start = 0
    for i, ch in enumerate(s):
        if ch == "$":
            in_math = not in_math
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch in ",，" and not depth and not in_math:
            if ch == "," and 0 < i < len(s) - 1 and s[i - 1].isdigit() and s[i + 1].isdigit():
                continue
            out.append(s[start:i])
            start = i + 1
    out.append(s[start:])
    return [re.sub(r"^\s*(?:and|以及|和)\s+", "", p.strip()) for p in out]


def _stated_values(s: str) -> str | None:
    """ "表面积是190dm^2,体积是175dm^3" → "190dm^2, 175dm^3": several named values in one clause."""
    if "," not in s and "，" not in s:
        return None
    pieces = _clauses(s)
    valued = [p for p in pieces if re.search(r"\d", p)]
    if len(valued) < 2 or not any(_PROSE_WORD.search(p) for p in valued):
        return None
    return ", ".join(_isolate_one(p) for p in pieces if p)


def isolate(text: str) -> str:
    """The answer out of a clause (several values stated in one clause are all kept)."""
    s = _CONDITION.sub("", text[:_CLAUSE_MAX].strip().strip("*").strip(), count=1)
    stated = _stated_values(_cut_reason(s).rstrip("。."))
    return stated if stated is not None else _isolate_one(s)


def _isolate_one(text: str) -> str:
    """The answer out of a clause: no leading prose or connective, no trailing reason.

    ``Therefore, the value of $k$ is $\\frac{1}{2}$.`` → ``$\\frac{1}{2}$``; ``圆柱的体积为339.12cm³`` →
    ``339.12cm³``; ``So she has 12 apples left.`` → ``12``.
    """
    s = text[:_CLAUSE_MAX].strip().strip("*").strip()
    s = s.replace("\\$", "")  # a dollar sign, not math
    s = _CONNECTIVE.sub("", s, count=1)
    s = _cut_reason(s)
    if _PROSE_WORD.search(s):
        after = _after_last_verb(s)
        if after is not None:
            s = after.strip()
    span = _math_span(s)
    if span is not None:
        return _cut_reason(span) if not _MATH_SEGMENT.fullmatch(span) else span
    s = _cut_reason(s)
    s = _PROSE.sub("", s, count=1)
    if _PROSE_WORD.search(s):
        assignment = _last(_ASSIGNMENT, s)
        if assignment is not None and _PROSE_WORD.search(s[: assignment.start()]):
            tail = s[assignment.start() :]
            if not re.search(r"[=,，;；]", tail[tail.index("=") + 1 :]):
                return tail.strip().rstrip("。.,，;；:：").strip()
        lone = _lone_number(s)
        if lone is not None:
            return lone
    return s.strip().strip("*").strip().rstrip("。.,，;；:：").strip()
