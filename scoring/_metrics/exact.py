"""The exact metric: normalised exact match against every accepted answer; numbers compare as numbers."""

from __future__ import annotations

import re

import orjson

from scoring._metrics.base import Item, ItemScore
from scoring._metrics.extract.numeric import extract_number, reference_number
from scoring._metrics.normalize import normalize_text, reply_body

__all__ = ["accepted_answers", "exact_match", "score_exact"]


def accepted_answers(item: Item) -> list[str]:
    """The reference (a JSON list of strings counts as several answers) plus ``meta.aliases``."""
    out: list[str] = []
    ref = (item.reference or "").strip()
    if ref.startswith("[") and ref.endswith("]"):
        try:
            data = orjson.loads(ref)
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, list) and data and all(isinstance(x, str | int | float) for x in data):
            out.extend(str(x) for x in data)
    if not out and ref:
        out.append(ref)
    aliases = item.meta.get("aliases")
    if isinstance(aliases, list):
        out.extend(str(a) for a in aliases)
    return out


_MARKER = re.compile(
    r"(?:(?i:final[ \t]+answer|the[ \t]+answer[ \t]+is|answer)[ \t]*[:：]?|答案[是为]?[:：]?)[ \t]*(?P<rest>[^\n]+)"
)


# The end of the answer's sentence: CJK terminators anywhere, ASCII ones before a space or the end ("3.5" stays).
_SENTENCE_END = re.compile(r"[。！？；]|[.!?;](?=\s|$)")


def _candidates(content: str) -> list[str]:
    body = reply_body(content)[0].replace("**", "")
    out = [body]
    last = None
    for m in _MARKER.finditer(body):
        last = m
    if last is not None:
        rest = last.group("rest")
        out.append(rest)
        sentence = _SENTENCE_END.split(rest, maxsplit=1)[0]
        if sentence != rest:
            out.append(sentence)  # "答案：北京。因为它是首都" → "北京"
    lines = [line for line in body.strip().splitlines() if line.strip()]
    if lines:
        out.extend((lines[0], lines[-1]))
    return out


def exact_match(content: str, answers: list[str]) -> str | None:
    """The accepted answer the reply matches after normalisation, or None."""
    wanted = {normalize_text(a): a for a in answers if normalize_text(a)}
    for candidate in _candidates(content):
        hit = wanted.get(normalize_text(candidate))
        if hit is not None:
            return hit
    return None


# Excel displays large numbers as "1.23457E+11": a reference in scientific notation with three or more
# significant digits is as precise as its mantissa, and the reply's number is compared at that precision.
_SCIENTIFIC = re.compile(r"^\s*(?:####\s*)?[-+]?\d\.(\d{2,})[eE]([-+]?\d+)\s*$")


def _tolerance(reference: str, value: float) -> float:
    m = _SCIENTIFIC.match(reference.rsplit("####", 1)[-1])
    if m is not None:
        return 0.5 * 10.0 ** (int(m.group(2)) - len(m.group(1))) * (1 + 1e-9)
    return 1e-9 * max(1.0, abs(value))


def _fmt(value: float) -> str:
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def score_exact(content: str, item: Item) -> ItemScore:
    """1 or 0. A numeric reference (``42``, ``#### 42``) compares with the reply's answer number."""
    answers = accepted_answers(item)
    if not answers:
        return ItemScore(None, "exact: no reference answer")
    numeric = [(a, n) for a, n in ((a, reference_number(a)) for a in answers) if n is not None]
    if numeric and len(numeric) < len(answers):
        # Some accepted answers are numbers, some words ("12", "twelve"): the words match as text, else
        # the reply's number is compared with the numbers.
        hit = exact_match(content, answers)
        if hit is not None:
            return ItemScore(1.0, f"exact: reply matches «{hit}» after normalisation; correct", normalize_text(hit))
        answers = [a for a, _ in numeric]
    numbers = [n for _, n in numeric]
    if numbers and len(numbers) == len(answers):
        value, how = extract_number(content)
        if value is None:
            return ItemScore(0.0, f"exact: {how}; reference «{_fmt(numbers[0])}»; wrong", None)
        right = any(abs(value - n) <= _tolerance(a, n) for a, n in zip(answers, numbers, strict=True))
        verdict = "correct" if right else "wrong"
        shown = answers[0].strip() if _SCIENTIFIC.match(answers[0]) else _fmt(numbers[0])
        return ItemScore(
            float(right),
            f"exact: extracted «{_fmt(value)}» via {how}; reference «{shown}»; {verdict}",
            _fmt(value),
        )
    hit = exact_match(content, answers)
    shown = " | ".join(answers[:5])
    if hit is not None:
        return ItemScore(1.0, f"exact: reply matches «{hit}» after normalisation; correct", normalize_text(hit))
    return ItemScore(
        0.0,
        f"exact: reply matches none of «{shown}» after normalisation; wrong",
        normalize_text(_candidates(content)[-1])[:200],
    )
