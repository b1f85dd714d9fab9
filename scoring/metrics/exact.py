"""The exact metric: normalised exact match against every accepted answer; numbers compare as numbers."""

from __future__ import annotations

import re

import orjson

from scoring.extract.numeric import extract_number, reference_number
from scoring.metrics.base import Item, ItemScore
from scoring.normalize import normalize_text, strip_think

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


def _candidates(content: str) -> list[str]:
    body = strip_think(content).replace("**", "")
    out = [body]
    last = None
    for m in _MARKER.finditer(body):
        last = m
    if last is not None:
        out.append(last.group("rest"))
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


def _fmt(value: float) -> str:
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def score_exact(content: str, item: Item) -> ItemScore:
    """1 or 0. A numeric reference (``42``, ``#### 42``) compares with the reply's answer number."""
    answers = accepted_answers(item)
    if not answers:
        return ItemScore(None, "exact: no reference answer")
    numbers = [n for n in (reference_number(a) for a in answers) if n is not None]
    if numbers and len(numbers) == len(answers):
        value, how = extract_number(content)
        if value is None:
            return ItemScore(0.0, f"exact: {how}; reference «{_fmt(numbers[0])}»; wrong", "")
        right = any(abs(value - n) <= 1e-9 * max(1.0, abs(n)) for n in numbers)
        verdict = "correct" if right else "wrong"
        return ItemScore(
            float(right), f"exact: extracted «{_fmt(value)}» via {how}; reference «{_fmt(numbers[0])}»; {verdict}",
            _fmt(value),
        )
    hit = exact_match(content, answers)
    shown = " | ".join(answers[:5])
    if hit is not None:
        return ItemScore(1.0, f"exact: reply matches «{hit}» after normalisation; correct", normalize_text(hit))
    return ItemScore(0.0, f"exact: reply matches none of «{shown}» after normalisation; wrong",
                     normalize_text(_candidates(content)[-1])[:200])
