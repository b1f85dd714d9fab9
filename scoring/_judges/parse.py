"""Reading a judge's reply: strict about what counts as a verdict, tolerant of how it is wrapped.

Each judge has one verdict format, and only that format counts:

- absolute: a JSON object with a ``score`` (``分数``/``得分``/``评分``) and usually an ``analysis``;
- pairwise: a JSON object with a ``choice`` (``选择``) holding one of ``A++ A+ A=B B+ B++``;
- math grading: a ``<score>x</score>`` tag; math extraction: an ``<answer>…</answer>`` tag.

Around that, judges are untidy: code fences, prose before and after, trailing commas, Chinese keys,
full-width punctuation, several drafts of a verdict. The rules:

- every well-formed verdict in the reply is found, and the **last** one counts; only when there is none,
  the verdict field is read from a ``{...}`` that is not valid JSON (an unescaped quote in the analysis),
  never from prose;
- a score outside the scale is clamped to it (and the verdict says so);
- a verdict that appears word for word inside the text being judged (``quoted``) is ignored: it is the
  judged response's forgery repeated by the judge, not the judge's own verdict. Except the lowest score
  (absolute, math grading): no forgery gains by it, and ignoring it would let a response that carries
  ``<score>0</score>`` turn the judge's real 0 into "no verdict", leaving the wrong answer out of the mean;
- a reasoning judge's ``<think>…</think>`` is not part of its reply: drafts of a verdict in there
  do not count;
- a reply with no verdict raises :class:`UnparseableReply` with the reason; it never becomes a 0.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scoring._judges.jsonscan import brace_pairs, json_objects
from scoring._judges.scale import Scale
from scoring._metrics.normalize import strip_think

__all__ = [
    "CHOICES",
    "AbsoluteVerdict",
    "Choice",
    "Extraction",
    "MathGrade",
    "PairwiseVerdict",
    "UnparseableReply",
    "json_objects",
    "normalize_choice",
    "parse_absolute",
    "parse_extraction",
    "parse_math_grade",
    "parse_pairwise",
]

Choice = Literal["A++", "A+", "A=B", "B+", "B++"]
CHOICES: tuple[Choice, ...] = ("A++", "A+", "A=B", "B+", "B++")

_CHOICE_KEYS = frozenset({"choice", "选择", "最终选择", "final choice", "final_choice"})
_SCORE_KEYS = frozenset({"score", "分数", "得分", "评分", "final score", "final_score", "最终得分"})
_ANALYSIS_KEYS = frozenset({"analysis", "分析", "reason", "reasoning", "理由", "explanation", "解释"})


class UnparseableReply(ValueError):
    """The judge's reply holds no verdict in the expected format."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class AbsoluteVerdict:
    score: float
    raw_score: float
    clamped: bool
    analysis: str


@dataclass(frozen=True)
class PairwiseVerdict:
    choice: Choice
    analysis: str


@dataclass(frozen=True)
class MathGrade:
    score: float
    raw_score: float
    clamped: bool


@dataclass(frozen=True)
class Extraction:
    """The answer the extraction judge found; ``None`` when it reported that there is none."""

    answer: str | None


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """``value`` and every dict nested in it, outermost first."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _dicts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _dicts(item)


def _key(key: object) -> str:
    return unicodedata.normalize("NFKC", str(key)).strip().lower()


def _get(obj: dict[str, Any], keys: frozenset[str]) -> Any:
    for key, value in obj.items():
        if _key(key) in keys:
            return value
    return None


def _has(obj: dict[str, Any], keys: frozenset[str]) -> bool:
    return any(_key(key) in keys for key in obj)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


class _Quoted:
    """The judged texts, to recognise a verdict the judge merely copied out of them."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = [_squash(t) for t in texts if t]

    def __contains__(self, chunk: str) -> bool:
        needle = _squash(chunk)
        return bool(needle) and any(needle in text for text in self._texts)


def _analysis(obj: dict[str, Any], skip: frozenset[str], prose: str) -> str:
    value = _get(obj, _ANALYSIS_KEYS)
    if isinstance(value, str) and value.strip():
        return value.strip()
    parts = [
        f"{key}: {val.strip()}"
        for key, val in obj.items()
        if isinstance(val, str) and val.strip() and _key(key) not in skip
    ]
    if parts:
        return "\n".join(parts)
    return _strip_fences(prose)


_FENCE_LINE = re.compile(r"^\s*```[\w-]*\s*$", re.MULTILINE)


def _strip_fences(text: str) -> str:
    return _FENCE_LINE.sub("", text).strip()


def _verdict_objects(reply: str, keys: frozenset[str], quoted: _Quoted) -> Iterator[tuple[dict[str, Any], str, bool]]:
    """Objects holding one of ``keys``, last first, with the prose before them and whether the object is a
    copy of text being judged."""
    objects = json_objects(reply)
    for start, end, value in reversed(objects):
        copied = reply[start:end] in quoted
        for obj in reversed(list(_dicts(value))):
            if _has(obj, keys):
                yield obj, reply[:start], copied


# --------------------------------------------------------------------------------------------------
# Values

_NUMBER = re.compile(
    r"^\s*(?P<num>[-+]?\d+(?:\.\d+)?|[-+]?\.\d+)\s*"
    r"(?:/\s*(?P<den>\d+(?:\.\d+)?))?\s*(?P<pct>%)?\s*(?:分|points?|pts?)?\s*$",
    re.IGNORECASE,
)


def _number(value: Any, *, fraction: bool = False) -> float | None:
    """A finite number from a JSON value or a numeric string; ``fraction``: ``5/6`` is 5/6 (else 5)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
        return number if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    match = _NUMBER.match(unicodedata.normalize("NFKC", value).replace("−", "-"))
    if match is None:
        return None
    number = float(match.group("num"))
    den = match.group("den")
    if den is not None and fraction:
        if float(den) == 0:
            return None
        number /= float(den)
    if match.group("pct"):
        number /= 100
    return number if math.isfinite(number) else None


_CHOICE_NOISE = re.compile(r"[\s\"'`*\[\]【】()（）「」<>《》.。:：]")


def normalize_choice(value: Any) -> Choice | None:
    """``" [A+] "``, ``"Ａ＋＋"``, ``"a = b"`` → the canonical verdict; anything else → None."""
    if not isinstance(value, str):
        return None
    text = _CHOICE_NOISE.sub("", unicodedata.normalize("NFKC", value)).upper()
    if text == "B=A":
        text = "A=B"
    for choice in CHOICES:
        if text == choice:
            return choice
    return None


# --------------------------------------------------------------------------------------------------
# Salvage: a verdict object that is not valid JSON (an unescaped quote in the analysis, a missing comma)
# still holds the verdict field. Used only when the reply has no well-formed verdict at all; the field
# must sit inside a {...} of the reply, so a score mentioned in prose never counts.

_SALVAGE_SCORE = re.compile(
    r'"\s*(?:score|分数|得分|评分|final[ _]score|最终得分)\s*"\s*[:：]\s*("?\s*-?\d+(?:\.\d+)?\s*"?)', re.IGNORECASE
)
_SALVAGE_CHOICE = re.compile(
    r'"\s*(?:choice|选择|最终选择|final[ _]choice)\s*"\s*[:：]\s*"([^"\n]{1,24})"', re.IGNORECASE
)


_SALVAGE_TRIES = 20


def _salvage(reply: str, pattern: re.Pattern[str], seen: _Quoted) -> Iterator[tuple[str, str, str]]:
    """``(field value, enclosing {...}, prose before it)`` for each match of ``pattern``, last first."""
    matches = list(pattern.finditer(reply))
    if not matches:
        return
    pairs = brace_pairs(reply)
    for match in reversed(matches[-_SALVAGE_TRIES:]):
        enclosing = [(start, end) for start, end in pairs.items() if start < match.start() and end >= match.end()]
        if not enclosing:
            continue
        start, end = max(enclosing)  # the innermost
        chunk = reply[start : end + 1]
        if chunk in seen:
            continue
        yield match.group(1).strip().strip('"'), chunk, reply[:start]


def _salvaged_analysis(chunk: str, prose: str) -> str:
    before = _strip_fences(prose)
    note = f"[verdict read from malformed JSON: {chunk.strip()}]"
    return f"{before}\n{note}" if before else note


# --------------------------------------------------------------------------------------------------
# The verdict parsers


def parse_absolute(reply: str, scale: Scale, *, quoted: Sequence[str] = ()) -> AbsoluteVerdict:
    """The last JSON object with a numeric ``score``; the score is clamped to ``scale``."""
    reply = strip_think(reply)
    seen = _Quoted(quoted)
    skipped = 0
    for obj, prose, copied in _verdict_objects(reply, _SCORE_KEYS, seen):
        raw = _number(_get(obj, _SCORE_KEYS))
        if raw is None:
            skipped += 1
            continue
        score = scale.clamp(raw)
        if copied and score > scale.low:
            continue
        return AbsoluteVerdict(
            score=score, raw_score=raw, clamped=score != raw, analysis=_analysis(obj, _SCORE_KEYS, prose)
        )
    for value, chunk, prose in _salvage(reply, _SALVAGE_SCORE, seen):
        raw = _number(value)
        if raw is None:
            continue
        score = scale.clamp(raw)
        return AbsoluteVerdict(
            score=score, raw_score=raw, clamped=score != raw, analysis=_salvaged_analysis(chunk, prose)
        )
    if skipped:
        raise UnparseableReply("the judge's JSON verdict has a score that is not a number")
    raise UnparseableReply('no JSON verdict with a "score" in the judge\'s reply')


def parse_pairwise(reply: str, *, quoted: Sequence[str] = ()) -> PairwiseVerdict:
    """The last JSON object whose ``choice`` is one of ``A++ A+ A=B B+ B++``."""
    reply = strip_think(reply)
    seen = _Quoted(quoted)
    bad: list[str] = []
    for obj, prose, copied in _verdict_objects(reply, _CHOICE_KEYS, seen):
        if copied:
            continue
        value = _get(obj, _CHOICE_KEYS)
        choice = normalize_choice(value)
        if choice is None:
            bad.append(repr(value))
            continue
        return PairwiseVerdict(choice=choice, analysis=_analysis(obj, _CHOICE_KEYS, prose))
    for value, chunk, prose in _salvage(reply, _SALVAGE_CHOICE, seen):
        choice = normalize_choice(value)
        if choice is not None:
            return PairwiseVerdict(choice=choice, analysis=_salvaged_analysis(chunk, prose))
    if bad:
        raise UnparseableReply(f"the judge's choice {bad[0]} is not one of {', '.join(CHOICES)}")
    raise UnparseableReply('no JSON verdict with a "choice" in the judge\'s reply')


_SCORE_TAG = re.compile(r"<\s*score\s*>(.*?)<\s*/\s*score\s*>", re.IGNORECASE | re.DOTALL)


def parse_math_grade(reply: str, *, quoted: Sequence[str] = ()) -> MathGrade:
    """The last ``<score>x</score>`` holding a number (``0.83``, ``5/6``, ``83%``), clamped to [0, 1]
    and rounded to two decimals."""
    reply = strip_think(reply)
    seen = _Quoted(quoted)
    tags = list(_SCORE_TAG.finditer(reply))
    for match in reversed(tags):
        raw = _number(match.group(1), fraction=True)
        if raw is None:
            continue
        score = round(min(1.0, max(0.0, raw)), 2)
        if score > 0.0 and match.group(0) in seen:
            continue
        return MathGrade(score=score, raw_score=raw, clamped=not 0.0 <= raw <= 1.0)
    if tags:
        raise UnparseableReply("the judge's <score> tag holds no number")
    raise UnparseableReply("no <score>…</score> tag in the judge's reply")


_ANSWER_TAG = re.compile(r"<\s*answer\s*>(.*?)<\s*/\s*answer\s*>", re.IGNORECASE | re.DOTALL)
_NULL_ANSWERS = frozenset({"", "null", "none", "n/a", "无", "空", "没有", "无答案", "nil"})


def parse_extraction(reply: str) -> Extraction:
    """The last ``<answer>…</answer>``; ``null`` means the judge found no answer.

    A reply without the tag is accepted only when it is a single short line (the judge answered
    bare); anything longer is unparseable rather than guessed at.
    """
    reply = strip_think(reply)
    tags = list(_ANSWER_TAG.finditer(reply))
    if tags:
        answer = _strip_fences(tags[-1].group(1))
    else:
        answer = _strip_fences(reply)
        if "\n" in answer or len(answer) > 200:
            raise UnparseableReply("no <answer>…</answer> tag in the extraction judge's reply")
    if _key(answer).strip("`'\"") in _NULL_ANSWERS:
        return Extraction(answer=None)
    return Extraction(answer=answer)
