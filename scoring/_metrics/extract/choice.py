"""Answer extraction for multiple-choice and yes/no items (SCORING.md, "choice").

Order: the **last** explicit answer marker (``ANSWER: X``, ``the answer is (X)``, ``答案是X``, ``故选X``,
``\\boxed{X}``…); then a reply that is only a letter (``B``, ``(B)``, ``Option B``, ``B. <option text>``);
then nothing. A letter must be one of the item's options and must stand alone: ``Answer: Let's think``
does not give ``L``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scoring._metrics.normalize import nfkc, reply_body

__all__ = [
    "ChoiceExtraction",
    "extract_choice",
    "extract_yes_no",
    "option_letters",
    "parse_choice_reference",
    "parse_yes_no",
]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# An option line in the question: "A) text", "A. text", "(A) text", "A：text", "A、text", "[A] text".
_OPTION_LINE = re.compile(r"^[ \t]*(?:[\(\[（【]([A-Z])[\)\]）】]|([A-Z])[\)\.．:：、,])[ \t]*\S", re.MULTILINE)


def option_letters(question: str | None, choices: Sequence[str] | None = None) -> str:
    """The valid letters of an item: from ``meta.choices`` when given, else the option lines of the question.

    Only a run starting at ``A`` counts (``A B C D``), so a stray ``I.`` heading does not add letters.
    Returns ``""`` when the item shows no options.
    """
    if choices:
        return LETTERS[: min(len(choices), 26)]
    return _question_letters(question) if question else ""


# Options written on one line, as exam papers do: "A. 1  B. 2  C. 3  D. 4" / "A．甲 B．乙".
_OPTION_INLINE = re.compile(r"(?:^|(?<=[\s(（)）]))(?:[\(（]([A-Z])[\)）]|([A-Z])[\.．:：、])[ \t]*\S", re.MULTILINE)


def _run_from_a(found: set[str]) -> str:
    run = ""
    for letter in LETTERS:
        if letter not in found:
            break
        run += letter
    return run if len(run) >= 2 else ""


@functools.lru_cache(maxsize=4096)
def _question_letters(question: str) -> str:
    text = nfkc(question)
    run = _run_from_a({a or b for a, b in _OPTION_LINE.findall(text)})
    if run:
        return run
    # Inline options count only when at least three appear in order A, B, C… (not "A. Smith met B. Jones").
    inline = [a or b for a, b in _OPTION_INLINE.findall(text)]
    expected = 0
    for letter in inline:
        if expected < len(LETTERS) and letter == LETTERS[expected]:
            expected += 1
    return LETTERS[:expected] if expected >= 3 else ""


_LETTER_SET = r"[A-Z](?:[ \t]*(?:,|、|，|和|与|及|and|&|/|\+)?[ \t]*[A-Z])*"
# The letter may stand on the next line: "## Answer\nC", "**Answer:**\n\nB" (at most one blank line).
_OPEN = (
    r"[ \t]*(?:\r?\n[ \t]*){0,2}"
    r"(?:\*\*|__|\*)?[ \t]*(?:[\(\[（【\{]|\\\(|\$)?[ \t]*(?:\\(?:text|textbf|textrm|mathrm|mathbf|mbox)\{)?"
)
_MARKER_WORDS = (
    r"(?i:final[ \t]+answer|correct[ \t]+(?:answer|option|choice)|best[ \t]+(?:answer|option|choice)"
    r"|answer[ \t]+choice|answer|ans(?:\.|(?![a-z])))"
    r"(?:[ \t]*(?i:is|would[ \t]+be|should[ \t]+be|will[ \t]+be|=))?(?i:[ \t]*(?:option|choice))?"
    r"|正确答案|最终答案|参考答案|正确(?:的)?选项|答案|故选|因此选|所以选|应选|选择|本题选|故答案为|答案为|选"
)
_MARKER_HEAD = (
    r"(?:" + _MARKER_WORDS + r")[ \t]*(?:是|为|应为|应该是)?[ \t]*(?:选项)?[ \t]*(?:[:：]|->|=>|→|-(?![A-Za-z]))?[ \t]*"
)
# Lower-case letters only where they cannot be words: in brackets after a marker ("the answer is (c)"), or
# after a marker's colon at the end of a clause ("ANSWER: c"). "the answer is a" stays an article.
_MARKER_LOWER = (
    re.compile(_MARKER_HEAD + r"[\(\[（【][ \t]*(?P<letters>[a-z])[ \t]*(?=[\)\]）】])"),
    re.compile(
        r"(?:" + _MARKER_WORDS + r")[ \t]*[:：][ \t]*(?:\r?\n[ \t]*){0,2}(?P<letters>[a-z])"
        r"(?=[ \t]*(?:$|[\r\n.。,，;；!)\]]))"
    ),
)
_LOWER_BARE = re.compile(r"[\(\[（【]?[a-z][\)\]）】]?")
_MARKER = re.compile(
    r"(?:" + _MARKER_WORDS + r")[ \t]*(?:\*\*|__)?[ \t]*(?:是|为|应为|应该是)?[ \t]*(?:选项)?[ \t]*"
    r"(?:[:：]|->|=>|→|-(?![A-Za-z]))?" + _OPEN + r"(?P<letters>" + _LETTER_SET + r")(?![A-Za-z0-9])"
)
_BOXED = re.compile(
    r"\\boxed\s*\{\s*(?:\\(?:text|textbf|textrm|mathrm|mathbf|mbox)\{)?\s*\(?(?P<letters>"
    + _LETTER_SET
    + r")\)?\s*\}?\s*\}"
)
_SPLIT_LETTERS = re.compile(r"[A-Z]")

# A reply that is only its choice: "B", "(B)", "B.", "**B**", "Option B", "选B", "B. <option text>".
_BARE = re.compile(
    r"^(?:(?i:option|choice|answer)[ \t]*:?[ \t]*|选项?[ \t]*)?[\(\[（【]?(?P<letters>"
    + _LETTER_SET
    + r")[\)\]）】]?(?:[\.．:：、)][ \t]*.*|[ \t]*)$"
)


@dataclass(frozen=True)
class ChoiceExtraction:
    """What was read from a reply: the letters (sorted, ``""`` when none) and how they were found."""

    letters: str
    how: str

    @property
    def found(self) -> bool:
        return bool(self.letters)


def _letters(raw: str, valid: str) -> str | None:
    letters = _SPLIT_LETTERS.findall(raw)
    if not letters or any(letter not in valid for letter in letters):
        return None
    return "".join(sorted(set(letters)))


# After a lone A or I, these words continue a sentence about the letter: "The answer is A because…".
_LETTER_FOLLOWERS = re.compile(r"[ \t]+(?:because|since|as|which|due|given|hence|so|therefore)\b")


def _article_trap(text: str, match: re.Match[str]) -> bool:
    """``Answer: A good choice…`` / ``答案 I think``: a lone A or I followed by a lower-case word is English
    (but ``The answer is A because…`` names the letter)."""
    letters = match.group("letters")
    if letters not in ("A", "I"):
        return False
    end = match.end()
    if not re.match(r"[ \t]+[a-z]", text[end : end + 3]):
        return False
    return _LETTER_FOLLOWERS.match(text, end) is None


def _clean(text: str) -> str:
    """The reply (reasoning blocks already dropped) in NFKC, without bold markers."""
    return nfkc(text).replace("**", "").replace("__", "")


def _bare(text: str, valid: str) -> ChoiceExtraction | None:
    stripped = text.strip().strip("*_`'\"").strip()
    if not stripped:
        return None
    lines = [line for line in stripped.splitlines() if line.strip()]
    if len(lines) == 1 or len(lines[0]) <= 24:
        first = lines[0].strip().rstrip("。.").strip()
        if _LOWER_BARE.fullmatch(first):
            first = first.upper()  # "b", "(c)": a reply that is one lower-case letter
        m = _BARE.match(first)
        if m and not _article_trap(lines[0].strip(), m):
            letters = _letters(m.group("letters"), valid)
            shown = lines[0].strip()[:40]
            if letters:
                return ChoiceExtraction(letters, f'bare reply "{shown}"')
            if re.search(r"[A-Z]{2}", m.group("letters")):
                return None  # "NOTE: …" is a word, not letters outside the options
            options = f"{valid[0]}–{valid[-1]}"
            return ChoiceExtraction("", f'bare reply "{shown}" names a letter that is not an option ({options})')
    return None


_ASCII_LOWER = str.maketrans(LETTERS, LETTERS.lower())
# Where a marker can start; the full pattern is then tried only there, from the end of the reply back.
_KEYWORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("answer", _MARKER),
    ("ans", _MARKER),
    ("correct", _MARKER),
    ("正确", _MARKER),
    ("best", _MARKER),
    ("答案", _MARKER),
    ("选", _MARKER),
    ("\\boxed", _BOXED),
)


# After a marker's letter: "or (B)" / "或B" / "还是B" — the reply hedges between options.
_HEDGE = re.compile(
    r"[ \t]*[\)\]）】]?[ \t]*(?:\*\*|__)?[ \t]*(?:(?i:or)|或者|或|还是)[ \t]*"
    r"(?:(?i:maybe|perhaps|possibly|possibly[ \t]+even)[ \t]*)?(?:(?i:option)[ \t]*)?"
    r"[\(\[（【]?[ \t]*(?P<letter>[A-Z])(?![A-Za-z0-9])"
)


_CLOSERS = frozenset(")]）】}")


def _last_marker(body: str, valid: str) -> ChoiceExtraction | None:
    """The last explicit answer marker naming valid letters (a substring search finds the candidates).

    A marker that hedges (``the answer is A or B``) is the reply's last word on the question and names
    no single choice: it ends the search with an empty extraction, rather than crediting its first
    letter or falling back to an earlier marker. When only markers naming letters outside the options
    are found, the empty extraction says so.
    """
    lowered = body.lower()
    if len(lowered) != len(body):  # a few non-ASCII letters change length when lowered
        lowered = body.translate(_ASCII_LOWER)
    candidates: list[tuple[int, re.Pattern[str]]] = []
    seen: set[int] = set()
    for keyword, pattern in _KEYWORDS:
        pos = lowered.find(keyword)
        while pos >= 0:
            if pos not in seen:  # "answer" also starts with "ans": one candidate per place
                seen.add(pos)
                candidates.append((pos, pattern))
            pos = lowered.find(keyword, pos + 1)
    candidates.sort(key=lambda c: c[0], reverse=True)
    outside: str | None = None
    for pos, pattern in candidates:
        m = pattern.match(body, pos)
        raw = m.group("letters") if m is not None else ""
        if m is None and pattern is _MARKER:
            m = _MARKER_LOWER[0].match(body, pos) or _MARKER_LOWER[1].match(body, pos)
            raw = m.group("letters").upper() if m is not None else ""
        if m is None or _article_trap(body, m):
            continue
        letters = _letters(raw, valid)
        if letters:
            hedge = _HEDGE.match(body, m.end())
            if hedge is not None and hedge.group("letter") in valid and hedge.group("letter") not in letters:
                shown = body[m.start() : hedge.end()].strip()[:60]
                return ChoiceExtraction("", f'the last marker hedges between options: "{shown}"')
            end = m.end() + 1 if body[m.end() : m.end() + 1] in _CLOSERS and m.end() < len(body) else m.end()
            return ChoiceExtraction(letters, f'marker "{" ".join(body[m.start() : end].split())[:60]}"')
        if outside is None:
            shown = m.group(0).strip()[:60]
            outside = f'marker "{shown}" names a letter that is not an option ({valid[0]}–{valid[-1]})'
    return None if outside is None else ChoiceExtraction("", outside)


# A marker after the letter: "C is the correct answer", "(B) is the best option", "C是正确答案". Weaker than a
# marker before it (prose says "B is the correct answer only if…"), so used only when none of those is found.
_SUFFIX_KEYWORDS = ("is the correct", "is the right", "is the best", "is correct answer", "是正确", "为正确")
_SUFFIX = re.compile(
    r"(?i:is[ \t]+(?:the[ \t]+)?(?:correct|right|best)[ \t]+(?:answer|option|choice))"
    r"|[是为]正确(?:的)?(?:答案|选项)"
)
_SUFFIX_LETTER = re.compile(
    r"(?:^|(?<=[^A-Za-z]))(?:(?i:option|choice)[ \t]*|选项[ \t]*)?[\(\[（【]?[ \t]*(?P<letters>[A-Z])[ \t]*[\)\]）】]?"
    r"[ \t]*(?:\*\*|__)?[ \t]*$"
)


def _suffix_marker(body: str, valid: str) -> ChoiceExtraction | None:
    lowered = body.lower() if body.isascii() else body.translate(_ASCII_LOWER)
    best: tuple[int, str, str] | None = None
    for keyword in _SUFFIX_KEYWORDS:
        pos = lowered.rfind(keyword)
        if pos < 0 or (best is not None and pos < best[0]):
            continue
        tail = _SUFFIX.match(body, pos)
        if tail is None:
            continue
        head = _SUFFIX_LETTER.search(body[max(0, pos - 16) : pos])
        letters = _letters(head.group("letters"), valid) if head else None
        if head is not None and letters:
            shown = " ".join((head.group(0) + body[pos : tail.end()]).split())
            best = (pos, letters, f'marker "{shown[:60]}"')
    return None if best is None else ChoiceExtraction(best[1], best[2])


def extract_choice(text: str | None, valid: str = LETTERS[:10]) -> ChoiceExtraction:
    """The chosen letter(s) in a reply, or an empty extraction saying nothing was found.

    >>> extract_choice("Let me think... B looks wrong. ANSWER: C", "ABCD").letters
    'C'
    >>> extract_choice("Answer: Let's think step by step.", "ABCD").found
    False
    """
    if not text:
        return ChoiceExtraction("", "empty reply")
    raw, cut = reply_body(text)
    body = _clean(raw)
    found = _last_marker(body, valid)
    if found is not None and (found.found or found.how.startswith("the last marker hedges")):
        return found
    bare = _bare(body, valid)
    if bare is not None and (bare.found or found is None):
        return bare
    suffix = _suffix_marker(body, valid)
    if suffix is not None:
        return suffix
    if found is not None:
        return found
    if cut:
        return ChoiceExtraction("", _CUT_OFF)
    return ChoiceExtraction("", "no answer marker and the reply is not a bare letter")


_CUT_OFF = "the reply ends inside its <think> reasoning (never closed), so it gives no final answer"


@functools.lru_cache(maxsize=4096)
def parse_choice_reference(reference: str, valid: str = LETTERS) -> str | None:
    """A reference that names options: ``B``, ``(B)``, ``AB``, ``A,C`` → sorted letters; else None."""
    ref = nfkc(reference).strip().strip("()（）[]").strip().rstrip(".")
    if not ref or len(ref) > 40:
        return None
    m = re.fullmatch(r"(?:答案[:：]?|answer[:：]?)?\s*(" + _LETTER_SET + r")", ref, re.IGNORECASE)
    if not m or (not m.group(1).replace(" ", "").isupper() and len(m.group(1)) > 1):
        return None
    raw = m.group(1)
    if raw.isupper() and re.fullmatch(r"[A-Z]+", raw) and len(raw) > 1 and len(set(raw)) != len(raw):
        return None
    return _letters(raw.upper() if len(raw) == 1 else raw, valid)


# Yes/no. Longest forms first so 不是 wins over 是 and 不正确 over 正确.
_YES_NO_WORDS: tuple[tuple[str, str], ...] = (
    ("不正确", "no"),
    ("不对", "no"),
    ("不是", "no"),
    ("错误", "no"),
    ("正确", "yes"),
    ("是的", "yes"),
    ("否", "no"),
    ("错", "no"),
    ("对", "yes"),
    ("是", "yes"),
)
_YES_NO_EN = re.compile(r"\b(yes|no|true|false|correct|incorrect)\b", re.IGNORECASE)
_EN_MAP = {"yes": "yes", "true": "yes", "correct": "yes", "no": "no", "false": "no", "incorrect": "no"}
_YN_MARKER = re.compile(
    r"(?:(?i:final[ \t]+answer|the[ \t]+answer[ \t]+is|answer)[ \t]*[:：]?"
    r"|答案[是为]?[:：]?|所以|因此|故|结论[是为]?[:：]?)"
    r"[ \t]*,?[ \t]*(?:\*\*)?[ \t]*[\(\[（]?[ \t]*(?P<word>[^\s\)\]）,，。.!！;；*]{1,8})"
)


def parse_yes_no(text: str) -> str | None:
    """``yes``/``no`` for a short answer word in English or Chinese (是/否/对/错/正确/错误, true/false)."""
    s = nfkc(text).strip().strip("*_`'\"()[]（）【】").strip().rstrip("。.!！").strip()
    if not s:
        return None
    low = s.casefold()
    if low in _EN_MAP:
        return _EN_MAP[low]
    m = _YES_NO_EN.match(low)
    if m and (len(low) == len(m.group(0)) or not low[len(m.group(0))].isalnum()):
        return _EN_MAP[m.group(1)]
    for word, value in _YES_NO_WORDS:
        if s.startswith(word):
            return value
    return None


# "…, so yes." / "Therefore, no." — an English connective counts only when the word ends its clause
# ("so no matter what" is not an answer).
_YN_CONNECTIVE = re.compile(
    r"\b(?i:therefore|thus|hence|so)[ \t]*,?[ \t]*(?P<word>(?i:yes|no|true|false))(?=[ \t]*(?:[.!,;:)]|$))",
    re.MULTILINE,
)


def extract_yes_no(text: str | None) -> ChoiceExtraction:
    """``yes``/``no`` from a reply: the last answer marker, else the reply's first word, else its last line."""
    if not text:
        return ChoiceExtraction("", "empty reply")
    raw, cut = reply_body(text)
    body = nfkc(raw).replace("**", "").replace("__", "")
    found: tuple[int, str, str] | None = None
    for pattern in (_YN_MARKER, _YN_CONNECTIVE):
        for m in pattern.finditer(body):
            value = parse_yes_no(m.group("word"))
            if value is not None and (found is None or m.start() > found[0]):
                found = (m.start(), value, m.group(0).strip())
    if found is not None:
        return ChoiceExtraction(found[1], f'marker "{found[2][:60]}"')
    lines = [line for line in body.strip().splitlines() if line.strip()]
    value = parse_yes_no(lines[0][:20]) if lines else None
    if value is not None:
        return ChoiceExtraction(value, "reply starts with it")
    value = parse_yes_no(lines[-1][:20]) if lines else None
    if value is not None:
        return ChoiceExtraction(value, "last line starts with it")
    return ChoiceExtraction("", _CUT_OFF if cut else "no yes/no word at the start, end or after an answer marker")


def join_letters(letters: Iterable[str]) -> str:
    return "".join(sorted(set(letters)))
