"""Final-answer extraction for math replies (seed 003's priority).

1. every ``\\boxed{…}`` (brace-matched, ``\\fbox`` too), joined by ``;``;
2. else the text after the last answer keyword of the highest tier present — final answer / 最终答案;
   the answer is / answer / result / 答案 / 结果; therefore / thus / hence / so / in conclusion / 所以 /
   因此 / 故 / 综上;
3. else the last sentence of the reply.
"""

from __future__ import annotations

import re

from scoring.normalize import strip_think

__all__ = ["boxed_contents", "extract_math_answer"]

_BOX_START = re.compile(r"\\(?:boxed|fbox)\s*\{")


def boxed_contents(text: str) -> list[str]:
    """The contents of every ``\\boxed{…}`` in order, braces matched (``\\boxed{\\frac{1}{2}}`` → ``\\frac{1}{2}``)."""
    out: list[str] = []
    pos = 0
    while True:
        m = _BOX_START.search(text, pos)
        if m is None:
            return out
        depth = 1
        i = m.end()
        while i < len(text) and depth:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            i += 1
        if depth:
            out.append(text[m.end() :].strip())
            return out
        out.append(text[m.end() : i - 1].strip())
        pos = i


_TIERS = (
    re.compile(r"(?i:final\s+answer|最终答案|最终结果)"),
    re.compile(r"(?i:the\s+answer\s+is|the\s+result\s+is|answer|result)|答案|结果|解得"),
    re.compile(r"(?i:\btherefore\b|\bthus\b|\bhence\b|\bso\b|in\s+conclusion)|所以|因此|综上所述|综上|故"),
)
_LEAD = re.compile(
    r"^[\s:：,，]*(?:(?:is|are|was|would\s+be|will\s+be|equals|为|是|应为|等于)(?![a-z])[\s:：]*)?", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|。|！|!(?=\s|$)|\n")
_PROSE = re.compile(
    r"^(?:[A-Za-z][A-Za-z ,']{0,60}?\b(?:is|are|equals|was|would\s+be)\s+"
    r"|[\u4e00-\u9fff，,]{1,12}?(?:为|是|等于)\s*)(?=\S)"
)


def _tail_after(text: str, start: int) -> str:
    rest = text[start:]
    rest = _LEAD.sub("", rest, count=1)
    line = rest.split("\n", 1)[0]
    m = _SENTENCE_END.search(line)
    if m is not None and m.start() > 0:
        line = line[: m.start()]
    line = _PROSE.sub("", line.strip(), count=1)
    return line.strip().strip("*").strip()


def _last_sentence(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1].rstrip("。.!！ ")
    pieces = [p.strip() for p in _SENTENCE_END.split(last) if p and p.strip()]
    return pieces[-1] if pieces else last


def extract_math_answer(text: str | None) -> tuple[str, str]:
    """The final answer of a reply and how it was found. ``("", "empty reply")`` when there is nothing."""
    if not text or not text.strip():
        return "", "empty reply"
    body = strip_think(text).replace("**", "")
    boxes = [b for b in boxed_contents(body) if b]
    if boxes:
        return ";".join(boxes), f"\\boxed{{}} ×{len(boxes)}" if len(boxes) > 1 else "\\boxed{}"
    for tier in _TIERS:
        matches = list(tier.finditer(body))
        for m in reversed(matches):
            tail = _tail_after(body, m.end())
            if tail:
                return tail, f'keyword "{m.group(0)}"'
    last = _last_sentence(body)
    if last:
        return last, "last sentence"
    return "", "no answer found"
