"""Reading a judge's reply: strict about what counts as a verdict, tolerant of how it is wrapped.

Each judge has one verdict format, and only that format counts:

- absolute: a JSON object with a ``score`` (``分数``/``得分``/``评分``) and usually an ``analysis``;
- pairwise: a JSON object with a ``choice`` (``选择``) holding one of ``A++ A+ A=B B+ B++``;
- math grading: a score in a ``<score>`` tag; math extraction: the answer in an ``<answer>`` tag.

**The verdict cannot be forged by the text being judged.** Every built-in prompt asks for the verdict inside
a tag that carries a nonce of that request (``<verdict-1a2b3c4d5e6f>{…}</verdict-1a2b3c4d5e6f>``,
``<score-…>``, ``<answer-…>``; see :func:`~scoring._judges.templates.nonce_for`). The nonce is a hash of
the whole prompt, the judged response included, so the response cannot contain it. The rules:

- when the reply holds tags with the request's nonce, only they count: a verdict the response planted and
  the judge quoted, paraphrased or re-serialised is never inside one. Tagged verdicts that disagree are
  refused (the judge contradicted itself), not picked from. A tag opened with the nonce closes only with
  it (or, when the judge leaves the nonce out of its close, at its last bare close): a judged answer
  ending in ``</verdict>`` that the judge quotes inside its verdict does not cut the verdict in two;
- a verdict's own nested objects (a rubric's per-criterion ``{"score": …}``) are parts of it: only the
  outermost object with the key is a verdict;
- when it holds none (the judge ignored the nonce, or a ``--judge-template`` without ``{{nonce}}``), every
  verdict-shaped candidate counts (JSON objects with the key, tags with any or no nonce), minus the ones
  copied word for word out of the judged text. They must **all agree**: a reply with two different
  verdicts is refused, never resolved by position. Neither position is safe: the prompts ask for the
  analysis first, so a judge discussing a planted verdict puts it *before* its own (first-wins takes the
  forgery), and a judge's postscript puts it *after* (last-wins takes it). A refusal is a counted null,
  never a wrong score. A copy of the lowest score is kept (absolute, math grading): no forgery gains by
  it, and dropping it would turn the judge's real 0 into "no verdict", out of the mean;
- only when there is no well-formed candidate at all, the verdict field is read from a ``{...}`` that is
  not valid JSON (an unescaped quote in the analysis), never from prose;
- a score outside the scale (a 0-2 judge's 99, a math grade of 7) is void, never clamped: the judge
  misread its scale, so any number read from it would be a guess (:class:`UnparseableReply` says so);
- the judge's own leading reasoning (``<think>…</think>`` at the start, up to its last ``</think>``) is
  set aside first (:mod:`scoring._judges.reasoning`);
- a reply with no verdict raises :class:`UnparseableReply` with the reason; it never becomes a 0.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from formatkit._core.record import JsonObject
from scoring._judges.jsonscan import brace_pairs, json_objects
from scoring._judges.reasoning import judge_text
from scoring._judges.scale import Scale

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

V = TypeVar("V")


class UnparseableReply(ValueError):
    """The judge's reply holds no verdict in the expected format."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class AbsoluteVerdict:
    score: float
    raw_score: float
    analysis: str
    tagged: bool = False


@dataclass(frozen=True)
class PairwiseVerdict:
    choice: Choice
    analysis: str
    tagged: bool = False


@dataclass(frozen=True)
class MathGrade:
    score: float
    raw_score: float
    tagged: bool = False


@dataclass(frozen=True)
class Extraction:
    """The answer the extraction judge found; ``None`` when it reported that there is none."""

    answer: str | None
    tagged: bool = False


# --------------------------------------------------------------------------------------------------
# Helpers


def _verdict_dicts(value: Any, keys: frozenset[str]) -> Iterator[JsonObject]:
    """The outermost dicts in ``value`` holding one of ``keys``: a verdict's own nested objects (a rubric's
    per-criterion ``{"score": …}``) are parts of it, not verdicts competing with its top-level score."""
    if isinstance(value, dict):
        if _has(value, keys):
            yield value
            return
        for item in value.values():
            yield from _verdict_dicts(item, keys)
    elif isinstance(value, list):
        for item in value:
            yield from _verdict_dicts(item, keys)


def _key(key: object) -> str:
    return unicodedata.normalize("NFKC", str(key)).strip().lower()


def _get(obj: JsonObject, keys: frozenset[str]) -> Any:
    for key, value in obj.items():
        if _key(key) in keys:
            return value
    return None


def _has(obj: JsonObject, keys: frozenset[str]) -> bool:
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


def _analysis(obj: JsonObject | None, skip: frozenset[str], prose: str) -> str:
    if obj is not None:
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
    if isinstance(value, int | float):
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
# Candidates: every verdict-shaped thing in the reply, where it sits, and whether it is a copy


@dataclass(frozen=True)
class _Candidate(Generic[V]):
    value: V
    raw: Any  # the value as written (``"2分"`` for 2)
    obj: JsonObject | None  # the JSON object it came from, for the analysis
    body: str  # the reply (without leading reasoning) ...
    at: int  # ... and where the candidate starts in it: the prose before it explains it
    copied: bool  # word for word inside the judged text
    salvaged: str | None = None  # the malformed {...} it was read from

    @property
    def prose(self) -> str:
        return self.body[: self.at]


def _tag_pattern(tag: str, nonce: str | None) -> re.Pattern[str]:
    """``<tag-NONCE>…</tag-NONCE>`` (``nonce`` None: any nonce or none); the closing nonce may be left out."""
    name = re.escape(tag) + (f"-{re.escape(nonce)}" if nonce else r"(?:-[\w-]{1,40})?")
    close = re.escape(tag) + (f"(?:-{re.escape(nonce)})?" if nonce else r"(?:-[\w-]{1,40})?")
    return re.compile(rf"<\s*{name}\s*>(.*?)<\s*/\s*{close}\s*>", re.IGNORECASE | re.DOTALL)


def _tags(body: str, tag: str, nonce: str | None) -> list[re.Match[str]]:
    return list(_tag_pattern(tag, nonce).finditer(body))


@dataclass(frozen=True)
class _Tag:
    """One tag opened with the request's nonce: where it opens and where its content lies."""

    at: int
    start: int
    end: int


def _open_pattern(tag: str, nonce: str) -> re.Pattern[str]:
    return re.compile(rf"<\s*{re.escape(tag)}-{re.escape(nonce)}\s*>", re.IGNORECASE)


def _nonce_tags(body: str, tag: str, nonce: str) -> list[_Tag]:
    """The tags opened with the request's nonce. Such a tag closes only with that nonce
    (``</tag-NONCE>``): a bare ``</tag>`` inside it may be the judged text's, quoted by the judge (an
    answer ending in ``</verdict>``), and closing there would cut the verdict in two. A judge that leaves
    the nonce out of its closing tag gets its last bare ``</tag>`` before the next nonce tag (what it quotes
    comes before its own close; a close with another nonce is never its own); a tag never closed runs to
    the next nonce tag, or the end of the reply."""
    opens = list(_open_pattern(tag, nonce).finditer(body))
    own_close = re.compile(rf"<\s*/\s*{re.escape(tag)}-{re.escape(nonce)}\s*>", re.IGNORECASE)
    short_close = re.compile(rf"<\s*/\s*{re.escape(tag)}\s*>", re.IGNORECASE)
    found: list[_Tag] = []
    for i, opening in enumerate(opens):
        limit = opens[i + 1].start() if i + 1 < len(opens) else len(body)
        close = own_close.search(body, opening.end(), limit)
        if close is None:
            closes = list(short_close.finditer(body, opening.end(), limit))
            close = closes[-1] if closes else None
        found.append(_Tag(opening.start(), opening.end(), close.start() if close else limit))
    return found


_SALVAGE_SCORE = re.compile(
    r'"\s*(?:score|分数|得分|评分|final[ _]score|最终得分)\s*"\s*[:：]\s*("?\s*-?\d+(?:\.\d+)?\s*"?)', re.IGNORECASE
)
_SALVAGE_CHOICE = re.compile(
    r'"\s*(?:choice|选择|最终选择|final[ _]choice)\s*"\s*[:：]\s*"([^"\n]{1,24})"', re.IGNORECASE
)
_SALVAGE_TRIES = 20


def _salvage(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[str, str, int]]:
    """``(field value, enclosing {...}, its start)`` for each match of ``pattern`` inside a ``{...}``."""
    matches = list(pattern.finditer(text))[-_SALVAGE_TRIES:]
    if not matches:
        return
    pairs = brace_pairs(text)
    for match in matches:
        enclosing = [(start, end) for start, end in pairs.items() if start < match.start() and end >= match.end()]
        if enclosing:
            start, end = max(enclosing)  # the innermost
            yield match.group(1).strip().strip('"'), text[start : end + 1], start


@dataclass(frozen=True)
class _Kind(Generic[V]):
    """How one judge's verdict is read: its tag, its JSON keys, and how a raw value becomes a verdict."""

    tag: str
    keys: frozenset[str] | None  # None: the verdict is the tag's bare content (math grading, extraction)
    read: Callable[[Any], V | None]  # raw value → verdict, None when it is not one
    salvage: re.Pattern[str] | None
    what: str  # "score", "choice": for messages
    lowest: Callable[[V], bool] = lambda _: False  # a copy of this value is kept (no forgery gains by it)
    #: The valid range, for a number outside it (``"the 0-2 scale"``): said void, never clamped.
    scale: str | None = None
    number: Callable[[Any], float | None] | None = None

    def rejected(self, raw: Any) -> str:
        """Why ``raw`` is no verdict: off the scale (void, never clamped), or not a valid value at all."""
        number = self.number(raw) if self.number is not None else None
        shown = repr(raw.strip()[:40]) if isinstance(raw, str) else repr(raw)
        if number is not None and self.scale is not None:
            return f"{self.what} {shown} is off {self.scale}: an off-scale verdict is void, never clamped"
        return f"{self.what} {shown} is not a valid {self.what}"


def _from_text(
    kind: _Kind[V], body: str, span: tuple[int, int], tag_at: int | None, quoted: _Quoted, bad: list[str]
) -> list[_Candidate[V]]:
    """The well-formed candidates in ``body[span]``: JSON objects with the key (or, for bare kinds, the
    text itself). ``tag_at``: the text is a tag's content and the prose before the tag explains it."""
    found: list[_Candidate[V]] = []
    text = body[span[0] : span[1]]
    if kind.keys is None:
        raw: Any = text
        value = kind.read(raw)
        if value is None:
            bad.append(kind.rejected(text))
        else:
            found.append(_Candidate(value, raw, None, body, tag_at if tag_at is not None else span[0], text in quoted))
        return found
    for start, end, parsed in json_objects(text):
        copied = text[start:end] in quoted
        for obj in _verdict_dicts(parsed, kind.keys):
            raw = _get(obj, kind.keys)
            value = kind.read(raw)
            if value is None:
                bad.append(kind.rejected(raw))
                continue
            at = tag_at if tag_at is not None else span[0] + start
            found.append(_Candidate(value, raw, obj, body, at, copied))
    return found


def _salvaged(
    kind: _Kind[V], body: str, span: tuple[int, int], tag_at: int | None, quoted: _Quoted
) -> list[_Candidate[V]]:
    if kind.salvage is None:
        return []
    found: list[_Candidate[V]] = []
    for raw, chunk, start in _salvage(body[span[0] : span[1]], kind.salvage):
        value = kind.read(raw)
        if value is not None:
            at = tag_at if tag_at is not None else span[0] + start
            found.append(_Candidate(value, raw, None, body, at, chunk in quoted, salvaged=chunk))
    return found


def _decide(kind: _Kind[V], found: list[_Candidate[V]], where: str) -> _Candidate[V]:
    """The one verdict the candidates agree on (the last of them, for its analysis); several different
    verdicts are refused."""
    values: list[V] = []
    for candidate in found:
        if candidate.value not in values:
            values.append(candidate.value)
    if len(values) > 1:
        shown = ", ".join(str(v) for v in values[:4])
        raise UnparseableReply(
            f"the judge's reply holds {len(values)} different {kind.what}s {where} ({shown}): refused"
        )
    return found[-1]


def _read(kind: _Kind[V], reply: str, nonce: str | None, quoted: Sequence[str]) -> tuple[_Candidate[V], bool]:
    """The judge's verdict in ``reply`` and whether it came from a tag with the request's nonce."""
    text = judge_text(reply)
    if text.cut_off:
        raise UnparseableReply("the judge's reasoning (<think>) never closed, so no verdict follows it")
    body = text.body
    seen = _Quoted(quoted)
    bad: list[str] = []
    if nonce:
        tagged = _nonce_tags(body, kind.tag, nonce)
        if tagged:
            found: list[_Candidate[V]] = []
            for tag in tagged:
                span, at, inner = (tag.start, tag.end), tag.at, body[tag.start : tag.end]
                within = _from_text(kind, body, span, at, _Quoted(()), bad)
                if not within and kind.keys is not None:
                    within = _salvaged(kind, body, span, at, _Quoted(()))
                    if not within:  # a bare value inside the tag: <verdict-…>2</verdict-…>
                        value = kind.read(inner.strip())
                        if value is not None:
                            within = [_Candidate(value, inner.strip(), None, body, at, False)]
                        elif inner.strip() and not json_objects(inner):
                            bad.append(kind.rejected(inner))
                found += within
            if found:
                return _decide(kind, found, f"in its <{kind.tag}-{nonce}> tags"), True
            shown = f" ({bad[0]})" if bad else ""
            raise UnparseableReply(f"the judge's <{kind.tag}-{nonce}> tag holds no valid {kind.what}{shown}")
    found = _untagged(kind, body, seen, bad)
    kept = [c for c in found if not c.copied or kind.lowest(c.value)]
    if kept:
        return _decide(kind, kept, "outside a nonce tag"), False
    if found:
        raise UnparseableReply(f"the only {kind.what} in the judge's reply is a copy of the text being judged")
    if kind.keys is not None:
        salvaged = [
            c for c in _salvaged(kind, body, (0, len(body)), None, seen) if not c.copied or kind.lowest(c.value)
        ]
        if salvaged:
            return _decide(kind, salvaged, "in malformed JSON"), False
    if bad:
        raise UnparseableReply(f"the judge's {bad[0]}")
    raise UnparseableReply(_missing(kind))


def _untagged(kind: _Kind[V], body: str, seen: _Quoted, bad: list[str]) -> list[_Candidate[V]]:
    """Candidates outside a nonce tag: tags with any or no nonce, and (JSON kinds) objects with the key."""
    found: list[_Candidate[V]] = []
    for match in _tags(body, kind.tag, None):
        inner = match.group(1)
        if kind.keys is None:
            value = kind.read(inner)
            if value is None:
                bad.append(kind.rejected(inner))
                continue
            found.append(_Candidate(value, inner, None, body, match.start(), match.group(0) in seen))
        elif not json_objects(inner):  # a bare value in the tag; objects are found below
            value = kind.read(inner.strip())
            if value is not None:
                found.append(_Candidate(value, inner.strip(), None, body, match.start(), match.group(0) in seen))
    if kind.keys is not None:
        found += _from_text(kind, body, (0, len(body)), None, seen, bad)
    return found


def _missing(kind: _Kind[Any]) -> str:
    if kind.keys is None:
        return f"no <{kind.tag}>…</{kind.tag}> tag in the judge's reply"
    return f'no verdict tag or JSON verdict with a "{kind.what}" in the judge\'s reply'


# --------------------------------------------------------------------------------------------------
# The verdict parsers


def _absolute_kind(scale: Scale) -> _Kind[float]:
    def read(raw: Any) -> float | None:
        number = _number(raw)
        return number if number is not None and scale.low <= number <= scale.high else None

    return _Kind(
        "verdict", _SCORE_KEYS, read, _SALVAGE_SCORE, "score", lambda v: v <= scale.low, f"the {scale} scale", _number
    )


def parse_absolute(
    reply: str, scale: Scale, *, nonce: str | None = None, quoted: Sequence[str] = ()
) -> AbsoluteVerdict:
    """The judge's ``score`` (in its nonce tag, else the one all its JSON verdicts agree on), on ``scale``:
    a score off it is no verdict (:class:`UnparseableReply`), never clamped."""
    candidate, tagged = _read(_absolute_kind(scale), reply, nonce, quoted)
    raw = _number(candidate.raw)
    assert raw is not None
    if candidate.salvaged is not None:
        analysis = _salvaged_analysis(candidate.salvaged, candidate.prose)
    else:
        analysis = _analysis(candidate.obj, _SCORE_KEYS, candidate.prose)
    return AbsoluteVerdict(score=candidate.value, raw_score=raw, analysis=analysis, tagged=tagged)


_PAIRWISE: _Kind[Choice] = _Kind("verdict", _CHOICE_KEYS, normalize_choice, _SALVAGE_CHOICE, "choice")


def parse_pairwise(reply: str, *, nonce: str | None = None, quoted: Sequence[str] = ()) -> PairwiseVerdict:
    """The judge's ``choice`` (one of ``A++ A+ A=B B+ B++``): in its nonce tag, else the one all its JSON
    verdicts agree on. A copy of the judged text never counts (its value depends on the order)."""
    candidate, tagged = _read(_PAIRWISE, reply, nonce, quoted)
    if candidate.salvaged is not None:
        analysis = _salvaged_analysis(candidate.salvaged, candidate.prose)
    else:
        analysis = _analysis(candidate.obj, _CHOICE_KEYS, candidate.prose)
    return PairwiseVerdict(choice=candidate.value, analysis=analysis, tagged=tagged)


def _grade_number(raw: Any) -> float | None:
    return _number(raw, fraction=True)


def _grade(raw: Any) -> float | None:
    number = _grade_number(raw)
    return None if number is None or not 0.0 <= number <= 1.0 else round(number, 2)


_MATH_GRADE: _Kind[float] = _Kind(
    "score", None, _grade, None, "score", lambda v: v <= 0.0, "the 0-1 scale", _grade_number
)


def parse_math_grade(reply: str, *, nonce: str | None = None, quoted: Sequence[str] = ()) -> MathGrade:
    """The grade in ``<score-NONCE>x</score-NONCE>`` (else the one all ``<score>`` tags agree on): ``0.83``,
    ``5/6``, ``83%``, rounded to two decimals; a grade off [0, 1] (a ``7``) is no verdict, never clamped."""
    candidate, tagged = _read(_MATH_GRADE, reply, nonce, quoted)
    raw = _number(candidate.raw, fraction=True)
    assert raw is not None
    return MathGrade(score=candidate.value, raw_score=raw, tagged=tagged)


_NULL_ANSWERS = frozenset({"", "null", "none", "n/a", "无", "空", "没有", "无答案", "nil"})
_NO_ANSWER = "\x00no answer"


def _answer(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    answer = _strip_fences(raw)
    return _NO_ANSWER if _key(answer).strip("`'\"") in _NULL_ANSWERS else answer


_EXTRACTION: _Kind[str] = _Kind("answer", None, _answer, None, "answer")


def parse_extraction(reply: str, *, nonce: str | None = None) -> Extraction:
    """The answer in ``<answer-NONCE>…</answer-NONCE>`` (else the one all ``<answer>`` tags agree on);
    ``null`` means the judge found no answer.

    A reply without any tag is accepted only when it is a single short line (the judge answered bare);
    anything longer is unparseable rather than guessed at.
    """
    try:
        candidate, tagged = _read(_EXTRACTION, reply, nonce, ())
    except UnparseableReply as exc:
        body = _strip_fences(judge_text(reply).body)
        if exc.reason != _missing(_EXTRACTION) or "\n" in body or len(body) > 200:
            raise
        value = _answer(body)
        assert value is not None
        candidate, tagged = _Candidate(value, body, None, body, 0, False), False
    return Extraction(answer=None if candidate.value == _NO_ANSWER else candidate.value, tagged=tagged)


def _salvaged_analysis(chunk: str, prose: str) -> str:
    before = _strip_fences(prose)
    note = f"[verdict read from malformed JSON: {chunk.strip()}]"
    return f"{before}\n{note}" if before else note
