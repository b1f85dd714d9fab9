"""Answer extraction for multiple-choice and yes/no items (docs/pages/scoring.md, "choice").

The reply's **last explicit commitment** wins: an answer marker (``ANSWER: X``, ``the answer is (X)``,
``[正确答案]X``, ``答案是X``, ``故选X``, ``\\boxed{X}``…) or a commitment in prose (``The closest option is
(H)``, ``the correct statement is:\\nH. …``, ``正确的说法是A和C``). A commitment may name a set (``(D) and (G)``,
``A, C, and D``); one that hedges (``(E) or (J)``, ``A and/or B``, ``A或B``) is no answer. Then a reply that
is only a letter (``B``, ``(B)``, ``B<eoa>``, ``B. <option text>``); then a commitment after the letter (``C is
the correct answer``, ``making (B) the correct answer``); then a final answer that restates exactly one
option's text. A letter must be one of the item's options and stand alone as a word: ``Answer: Let's think``
gives no ``L``, ``°C`` is no ``C``, and ``Americans (B)`` holds no marker.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from scoring._metrics.extract.marked import OPTION_LIST
from scoring._metrics.extract.retraction import after_retraction
from scoring._metrics.normalize import END_TOKEN, nfkc, normalize_text, reply_body

__all__ = [
    "ChoiceExtraction",
    "extract_choice",
    "extract_yes_no",
    "option_letters",
    "option_texts",
    "parse_choice_reference",
    "parse_yes_no",
    "reference_letters",
    "restated_option",
]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# An option line in the question: "A) text", "A. text", "(A) text", "A：text", "A、text", "[A] text"; the text
# may stand on the next line ("D.\n\n$y=x$", as PDF extraction leaves it) unless that line opens an option.
_LABEL = r"(?:[\(\[（【]([A-Z])[\)\]）】]|([A-Z])[\)\.．:：、,])"
_OPTION_LINE = re.compile(
    r"^[ \t]*" + _LABEL + r"[ \t]*(?:(?:\r?\n[ \t]*){1,2}(?![ \t]*(?:[\(\[（【][A-Z][\)\]）】]|[A-Z][\)\.．:：、,])))?"
    r"(\S[^\n]*|(?=\s*\Z))",  # the last option may be a picture the text lost: "D.\n" ends the question
    re.MULTILINE,
)


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
def _option_lines(question: str) -> dict[str, str]:
    """The question's option lines (first text per letter), read once per question."""
    # reversed, so that the first line of each letter is the one kept
    found = {a or b: text for a, b, text in reversed(_OPTION_LINE.findall(nfkc(question)))}
    if _GLUED_SIGN.search(question):
        chained = _chained(nfkc(question))
        if len(chained) > len(_run_from_a(set(found))):
            return chained
    return found


# Options glued to each other, as PDF extraction leaves them: "…会增加C．给成年小鼠…", "…升高4C.在高浓度…",
# "…尚未开\n始C.经典…" (a letter right after a character that is no space and no letter, then its full stop).
# In a question that shows one, the options are read as a chain of labels A., B., C.… in order from the
# option line that opens with A, wherever each next label stands; the longer of that and the lines wins.
_GLUED_SIGN = re.compile(r"[^\sA-Za-z][B-Z][\.．、]")
_FIRST_OPTION = re.compile(r"^[ \t]*[\(（]?A[\)）\.．、:：]", re.MULTILINE)


def _chained(text: str) -> dict[str, str]:
    starts = list(_FIRST_OPTION.finditer(text))
    if not starts:
        return {}
    labels: list[tuple[str, int, int]] = [("A", starts[-1].start(), starts[-1].end())]
    for letter in LETTERS[1:]:
        m = re.compile(r"(?<![A-Za-z])" + letter + r"[\.．、]").search(text, labels[-1][2])
        if m is None:
            break
        labels.append((letter, m.start(), m.end()))
    ends = [start for _, start, _ in labels[1:]] + [len(text)]
    return {letter: " ".join(text[end:stop].split()) for (letter, _, end), stop in zip(labels, ends, strict=True)}


@functools.lru_cache(maxsize=4096)
def _question_letters(question: str) -> str:
    found = set(_option_lines(question))
    run = _run_from_a(found)
    if run:
        # one option the lines do not show ("$\\mathrm{C}$ 硫酸铝…" between B. and D.) is still an option
        gap = len(run)
        if gap + 1 < len(LETTERS) and LETTERS[gap] not in found and LETTERS[gap + 1] in found:
            run = _run_from_a(found | {LETTERS[gap]})
        if not _GLUED_SIGN.search(question):
            return run
    # glued options may also be inline ones ("A．宗教意识淡薄B．反对神灵崇拜 C．…"): the longer reading wins
    inline = _inline_letters(question)
    return inline if len(inline) > len(run) else run


def _inline_letters(question: str) -> str:
    # Inline options count only when at least three appear in order A, B, C… (not "A. Smith met B. Jones").
    inline = [a or b for a, b in _OPTION_INLINE.findall(nfkc(question))]
    expected = 0
    for letter in inline:
        if expected < len(LETTERS) and letter == LETTERS[expected]:
            expected += 1
    return LETTERS[:expected] if expected >= 3 else ""


def option_texts(question: str | None, choices: Sequence[object] | None = None) -> dict[str, str]:
    """Each option's text by letter: ``meta.choices`` when given, else the question's option lines."""
    if choices:
        return {LETTERS[i]: str(c) for i, c in enumerate(choices[:26])}
    if not question:
        return {}
    found = _option_lines(question)
    return {letter: found[letter].strip() for letter in _run_from_a(set(found))}


# A set of letters: "A", "A, C", "A、B、D", "CA", "(D) and (G)", "(B), (G), (J), and (F)", "D, E, and G".
_SEP = r"[ \t]*(?:,[ \t]*(?:and|&)(?=[ \t(])|,|、|，|和|与|及|以及|and(?=[ \t(])|&|/(?!or)|\+)?[ \t]*"
_LETTER_SET = r"[A-Z](?:[\)\]）】]?" + _SEP + r"[\(\[（【]?[ \t]*[A-Z])*"
# The letter may stand on the next line: "## Answer\nC", "**Answer:**\n\nB" (at most one blank line).
_OPEN = (
    r"[ \t]*(?:\r?\n[ \t]*){0,2}"
    r"(?:\*\*|__|\*)?[ \t]*(?:[\(\[（【\{]|\\\(|\$)?[ \t]*(?:\\(?:text|textbf|textrm|mathrm|mathbf|mbox)\{)?"
)
_MARKER_WORDS = (
    r"(?i:final[ \t]+answer|correct[ \t]+(?:answer|option|choice)|best[ \t]+(?:answer|option|choice)"
    r"|answer[ \t]+choice|answers?(?:" + OPTION_LIST + r"(?=[ \t]*(?:is|are|[:：])))?|ans(?:\.|(?![a-z])))"
    r"(?:\}?[ \t]*(?i:is|are|would[ \t]+be|should[ \t]+be|will[ \t]+be|could[ \t]+be|must[ \t]+be|=))?"
    r"(?:[ \t]+(?i:a[ \t]+combination[ \t]+of|both|close[ \t]+to|closest[ \t]+to|nearest[ \t]+to))?"
    r"(?i:[ \t]*(?:option|choice))?"
    r"|正确答案|最终答案|参考答案|正确(?:的)?选项|正确的(?:说法|表述|描述|答案|是|为)|(?:说法|表述|描述)正确的"
    r"|正确的(?:做法|处理|选择|结论|观点|理解)|(?:错误|不正确)的(?:说法|表述|描述|选项|是|为)|即(?:为)?选项"
    r"|正确(?:说法|表述)|答案" + OPTION_LIST + r"(?=[ \t]*[是为:：])|答案|故选|因此选|所以选|应选"
    r"|(?<![不没未别勿])选择|本题选|故答案为|答案为|(?<![不没未别勿])选"
)
_MARKER_TAIL = (
    r"[ \t]*(?:\*\*|__)?[ \t]*[\]】\}]?[ \t]*(?:是|为|应为|应该是)?[ \t]*(?:选项)?[ \t]*"
    r"(?:[:：]|->|=>|→|-(?![A-Za-z]))?"
)
# Lower-case letters only where they cannot be words: in brackets after a marker ("the answer is (c)"), or
# after a marker's colon at the end of a clause ("ANSWER: c"). "the answer is a" stays an article.
_MARKER_LOWER = (
    re.compile(
        r"(?:" + _MARKER_WORDS + r")" + _MARKER_TAIL + r"[ \t]*[\(\[（【][ \t]*(?P<letters>[a-z])[ \t]*"
        r"(?=[\)\]）】][ \t]*(?:\*\*)?[ \t]*(?:$|[\r\n.。,，;；!]))"  # "(a) 27000 Btu" is a part, not an option
    ),
    re.compile(
        r"(?:" + _MARKER_WORDS + r")[ \t]*[:：][ \t]*(?:\r?\n[ \t]*){0,2}(?P<letters>[a-z])"
        r"(?=[ \t]*(?:$|[\r\n.。,，;；!)\]]))"
    ),
)
_LOWER_BARE = re.compile(r"[\(\[（【]?[a-z][\)\]）】]?")
_MARKER = re.compile(
    r"(?:" + _MARKER_WORDS + r")" + _MARKER_TAIL + _OPEN + r"(?P<letters>" + _LETTER_SET + r")(?![A-Za-z0-9])"
)
_BOXED = re.compile(
    r"\\boxed\s*\{\s*(?:\\(?:text|textbf|textrm|mathrm|mathbf|mbox)\{)?\s*\(?(?P<letters>"
    + _LETTER_SET
    + r")\)?\s*\}?\s*\}"
)
# A commitment in prose: "The closest option is (H)", "the correct statement is:\nH. …", "The best
# interpretation is (D)", "the most likely etiologic agent is (J)", "The only remaining option is (A)".
# A bracketed letter may be followed by anything; a bare one must end its clause ("is C. If…", "is D.").
_PROSE = re.compile(
    r"(?:(?i:closest|correct|right|best|only[ \t]+remaining)(?:[ \t]+[a-z][a-z-]*){0,8}?"
    r"|(?i:most|least)[ \t]+[a-z]+(?:[ \t]+(?:[a-z][a-z-]*|[A-Z][a-z]+)(?:['’]s)?){0,14}?"
    r"|(?i:option|choice|answer|statement|proposition|one)[ \t]+(?i:that|which)(?:[ \t]+[A-Za-z][A-Za-z-]*){1,12}?"
    r"|(?i:not[ \t]+true|untrue|exception))"
    r"[ \t]*,?[ \t]*(?i:is|are|would[ \t]+be|will[ \t]+be|=)[ \t]*(?:[:：])?"
    r"[ \t]*(?:\r?\n[ \t]*){0,2}(?:(?i:option|choice)[ \t]*)?"
    r"(?:[\(\[（【][ \t]*(?P<b>" + _LETTER_SET + r")[ \t]*[\)\]）】]"
    r"|(?P<letters>" + _LETTER_SET + r")(?=[ \t]*(?:$|[\r\n.。,，;；:：!)\]]|[ \t]+-)))"
)
# "…which corresponds to option (D)." / "This corresponds to (B)": the value worked out, named as an option.
_CORRESPONDS = re.compile(
    r"(?i:corresponds?|corresponding)[ \t]+(?i:to)[ \t]+(?:(?i:the[ \t]+)?(?i:option|choice|answer)[ \t]*)?"
    r"(?:[\(\[][ \t]*(?P<b>[A-Z])[ \t]*[\)\]]|(?P<letters>[A-Z])(?=[ \t]*(?:$|[\r\n.,;:!)])))"
)
# A hedge word right before one option: "the answer is probably E", "It is most likely (C) pet." — one option
# named, the commitment the reply makes ("A or D" after it stays a hedge between two: see _HEDGE).
_HEDGED_ONE = re.compile(
    r"(?i:probably|likely|possibly|perhaps)[ \t]*,?[ \t]*[:：]?[ \t]*"
    r"(?:(?i:the[ \t]+)?(?i:option|choice|answer)[ \t]*)?"
    r"(?:[\(\[（][ \t]*(?P<b>[A-Z])[ \t]*[\)\]）]|(?P<letters>[A-Z])(?=[ \t]*(?:$|[\r\n.。,，;；:：!)\]])))"
)
_TAIL_WORDS = re.compile(r"(?i:option|choice|except|is)")
# "…about 500 million years, option (A)." / "(Option B)": an option named as the reply's last words.
_TAIL_OPTION = re.compile(
    r"(?:(?i:option|choice)|(?<!(?i:any|all)[ \t]option[ \t])(?<!(?i:every)[ \t]option[ \t])(?i:except)"
    r"|(?i:which|this|that)[ \t]+(?i:is))"
    r"[ \t]*[\(\[（【]?[ \t]*(?P<letters>[A-Z])[ \t]*[\)\]）】]?[ \t]*[\)）]?[ \t]*[.。!]?\s*\Z"
)
# "The answer is $63.33 or (C).": a value restated as its option letter — "or" here joins no two options.
_VALUE_OR = re.compile(
    r"(?i:answers?[ \t]+is)[ \t]+(?=[^\s()]*\d)[^\s()]{1,24}(?:[ \t]+[^\s(),]{1,12})?,?[ \t]+or[ \t]+"
    r"(?:(?i:option)[ \t]*)?"
    r"[\(\[]?(?P<letters>[A-Z])[\)\]]?(?=[ \t]*(?:[.。!]|$))"
)
_SPLIT_LETTERS = re.compile(r"[A-Z]")

# A reply that is only its choice: "B", "(B)", "B.", "**B**", "Option B", "选B", "B. <option text>".
_BARE = re.compile(
    r"^(?:(?i:option|choice|answer)[ \t]*:?[ \t]*|选项?[ \t]*)?[\(\[（【]?(?P<letters>"
    + _LETTER_SET
    + r")[\)\]）】]?(?:[\.．:：、)][ \t]*.*|,(?=[ \t]*[\u3400-\u9fff]).*|,?[ \t]+(?=(?:A|An|The)[ \t]+[a-z]).*|[ \t]*)$"
)

# Tokens that end a model's turn or answer: "[正确答案]B<eoa>", "B</s>", "<|im_end|>". Text after the first one
# is not the reply's answer (models go on inventing questions); they never stand next to a letter as text.


# A line opening another question ("Question:", "问题：", "题目："): what follows was invented after the answer.
_NEW_QUESTION = re.compile(
    r"\n[ \t]*(?:#+[ \t]*)?(?:Question|问题|题目)[ \t]*\d*[ \t]*[:：]"
    # "Now, let's summarize all the answers:" / "let's combine all the answers" / "让我们总结以上答案": a recap of
    # the prompt's worked examples (Qwen1.5-72B-Chat does this), not this question's answer
    r"|\n[ \t]*(?:(?i:now)[ \t]*,?[ \t]*)?(?:(?i:let'?s|let[ \t]+us)[ \t]*)?"
    r"(?:(?i:summari[sz](?:e|ing)|combin(?:e|ing)|recap|list(?:ing)?|review(?:ing)?)[ \t]+"
    r"(?i:all[ \t]+)?(?i:the[ \t]+)?(?i:answers)|总结(?:所有|以上)?(?:的)?答案)"
)


@dataclass(frozen=True)
class ChoiceExtraction:
    """What was read from a reply: the letters (sorted, ``""`` when none) and how they were found.

    ``hedged`` is True when the reply's last commitment names alternatives (``A or B``): no answer.
    """

    letters: str
    how: str
    hedged: bool = False

    @property
    def found(self) -> bool:
        return bool(self.letters)


def _letters(raw: str, valid: str) -> str | None:
    if len(raw) == 1:
        return raw if raw in valid else None
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


# A set whose last letter is the article opening the option's text: "B, A whale", "答案：B A whale".
_ARTICLE_AFTER = re.compile(r"[ \t]+[a-z]")
_SET_TAIL = re.compile(r"[^A-Z]*[AI]\Z")


def _clean(text: str) -> str:
    """The reply (reasoning blocks already dropped) in NFKC, without bold markers and backticks."""
    text = nfkc(text).replace("**", "").replace("__", "")
    return text.replace("`", "") if "`" in text else text


# A reply that is only two options joined by "or": "A or B", "(E) or (J)", "A and/or C", "A或B".
_BARE_HEDGE = re.compile(
    r"[\(\[（【]?[ \t]*(?P<a>[A-Z])[ \t]*[\)\]）】]?[ \t]*,?[ \t]*(?:(?i:and/or|and[ \t]+or|or)|或者|或|还是)[ \t]*"
    r"[\(\[（【]?[ \t]*(?P<b>[A-Z])[ \t]*[\)\]）】]?[ \t]*[.。?？]?\Z"
)


def _bare(text: str, valid: str) -> ChoiceExtraction | None:
    stripped = text.strip().strip("*_`'\"").strip()
    if not stripped:
        return None
    lines = [line for line in stripped.splitlines() if line.strip()]
    if len(lines) == 1 or len(lines[0]) <= 24:
        first = lines[0].strip().rstrip("。.").strip()
        if len(lines) == 1 and _LOWER_BARE.fullmatch(first):
            first = first.upper()  # "b", "(c)": a reply that is one lower-case letter (not a part label "(i)")
        hedged = _BARE_HEDGE.match(first)
        if hedged is not None and {hedged.group("a"), hedged.group("b")} <= set(valid):
            return ChoiceExtraction("", f'the reply hedges between options: "{lines[0].strip()[:40]}"', hedged=True)
        m = _BARE.match(first)
        if m and not _article_trap(lines[0].strip(), m):
            letters = _letters(m.group("letters"), valid)
            shown = lines[0].strip()[:40]
            if letters:
                hedge = _HEDGE.match(first, m.end("letters"))
                if hedge is not None and hedge.group("letter") in valid and hedge.group("letter") not in letters:
                    return ChoiceExtraction("", f'the reply hedges between options: "{shown}"', hedged=True)
                return ChoiceExtraction(letters, f'bare reply "{shown}"')
            if re.search(r"[A-Z]{2}", m.group("letters")):
                return None  # "NOTE: …" is a word, not letters outside the options
            options = f"{valid[0]}–{valid[-1]}"
            return ChoiceExtraction("", f'bare reply "{shown}" names a letter that is not an option ({options})')
    return None


_ASCII_LOWER = str.maketrans(LETTERS, LETTERS.lower())
# Where a commitment can start; the full pattern is then tried only there, from the end of the reply back.
# ASCII keywords must start a word ("Americans (B)" holds no "ans").
_KEYWORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ans", _MARKER),
    ("correct", _MARKER),
    ("best", _MARKER),
    ("正确", _MARKER),
    ("说法", _MARKER),
    ("表述", _MARKER),
    ("描述", _MARKER),
    ("答案", _MARKER),
    ("选", _MARKER),
    ("错误的", _MARKER),
    ("不正确的", _MARKER),
    ("即", _MARKER),
    ("\\boxed", _BOXED),
    ("closest", _PROSE),
    ("right", _PROSE),
    ("most", _PROSE),
    ("only", _PROSE),
    ("least", _PROSE),
    ("option", _PROSE),
    ("choice", _PROSE),
    ("statement", _PROSE),
    ("proposition", _PROSE),
    ("correspond", _CORRESPONDS),
    ("not true", _PROSE),
    ("untrue", _PROSE),
    ("exception", _PROSE),
    ("probably", _HEDGED_ONE),
    ("likely", _HEDGED_ONE),
    ("possibly", _HEDGED_ONE),
    ("perhaps", _HEDGED_ONE),
)
# "例如[正确答案]A<eoa>" restates the prompt's example, not an answer.
_EXAMPLE = re.compile(
    r"(?:例如|比如|如：|如:|(?i:e\.g\.|for example|for instance|such as))[ \t]*[\[【(（]?[ \t]*(?:正确)?\Z"
)
_ALL_KEYWORDS = tuple(keyword for keyword, _ in _KEYWORDS)
_ASCII_KEYWORDS = tuple(keyword for keyword in _ALL_KEYWORDS if keyword.isascii())
_LONGEST = max(len(keyword) for keyword in _ALL_KEYWORDS)
# The patterns tried where each keyword starts: "correct"/"best" open a marker ("the correct answer is")
# or a prose commitment ("the correct statement is"); "ans" a marker or "answer is $63.33 or (C)".
_KEYWORD_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    keyword: (pattern, _PROSE)
    if keyword in ("correct", "best")
    else (pattern, _VALUE_OR)
    if keyword == "ans"
    else (pattern,)
    for keyword, pattern in _KEYWORDS
}


# After a commitment's letters: "or (B)" / "and/or B" / "或B" / "还是B" — the reply hedges between options.
_HEDGE = re.compile(
    r"[ \t]*[\)\]）】]?[ \t]*(?:\*\*|__)?[ \t]*,?[ \t]*(?:(?i:and/or|and[ \t]+or|or)|或者|或|还是)[ \t]*"
    r"(?:(?i:maybe|perhaps|possibly|possibly[ \t]+even)[ \t]*)?(?:(?i:option)[ \t]*)?"
    r"[\(\[（【]?[ \t]*(?P<letter>[A-Z])(?![A-Za-z0-9])"
)


_CLOSERS = frozenset(")]）】}")


# Most replies commit in their last lines: keywords are searched in growing windows from the end, so a
# commitment in the tail is found without reading the whole reply (the order, last first, is unchanged).
_WINDOWS = (80, 600, 3000)


def _candidates(body: str) -> Iterator[tuple[int, re.Pattern[str]]]:
    """Where a commitment may start, from the end of the reply back."""
    lowered = body.lower()
    if len(lowered) != len(body):  # a few non-ASCII letters change length when lowered
        lowered = body.translate(_ASCII_LOWER)
    keywords = _ASCII_KEYWORDS if body.isascii() else _ALL_KEYWORDS
    hi = len(lowered)
    for size in (*_WINDOWS, hi):
        lo = max(0, len(lowered) - size)
        if lo < hi:
            # keywords starting in [lo, hi) (str.rfind per keyword is faster than one alternation regex)
            segment = lowered[lo : hi + _LONGEST]
            found: list[tuple[int, str]] = []
            for keyword in [keyword for keyword in keywords if keyword in segment]:
                pos = lowered.rfind(keyword, lo, hi + len(keyword) - 1)
                while pos >= 0:
                    found.append((pos, keyword))
                    pos = lowered.rfind(keyword, lo, pos + len(keyword) - 1) if pos > lo else -1
            found.sort(reverse=True)
            for pos, keyword in found:
                if pos > 0 and keyword[0].isascii() and lowered[pos - 1].isascii() and lowered[pos - 1].isalpha():
                    continue  # "Americans (B)" holds no "ans"
                for pattern in _KEYWORD_PATTERNS[keyword]:
                    yield pos, pattern
            hi = lo
        if not lo:
            return


def _group(m: re.Match[str]) -> str:
    groups = m.re.groupindex
    if "b" in groups and m.group("b") is not None:
        return m.group("b")
    return m.group("letters") or ""


def _last_commitment(body: str, valid: str) -> ChoiceExtraction | None:
    """The last explicit commitment naming valid letters (a substring search finds the candidates).

    A commitment that hedges (``the answer is A or B``) is the reply's last word on the question and names
    no single choice: it ends the search with an empty extraction, rather than crediting its first
    letter or falling back to an earlier one. When only commitments naming letters outside the options
    are found, the empty extraction says so.
    """
    outside: str | None = None
    last40 = body[-40:]
    tail = _TAIL_OPTION.search(body, max(0, len(body) - 40)) if _TAIL_WORDS.search(last40) else None
    for pos, pattern in _candidates(body):
        if tail is not None and pos < tail.start():
            letters = _letters(tail.group("letters"), valid)
            if letters:
                return ChoiceExtraction(letters, f'the reply ends naming "{" ".join(tail.group(0).split())}"')
            tail = None
        m = pattern.match(body, pos)
        raw = _group(m) if m is not None else ""
        if len(raw) > 1 and _ARTICLE_AFTER.match(body, m.end() if m is not None else 0):
            raw = _SET_TAIL.sub("", raw)  # "The answer is B, A whale.": the option's text starts with "A"
        if m is None and pattern is _MARKER:
            m = _MARKER_LOWER[0].match(body, pos) or _MARKER_LOWER[1].match(body, pos)
            raw = m.group("letters").upper() if m is not None else ""
        if m is None:
            continue
        letters = _letters(raw, valid)
        if letters:
            hedge = _HEDGE.match(body, m.end())
            if hedge is not None and hedge.group("letter") in valid and hedge.group("letter") not in letters:
                shown = " ".join(body[m.start() : hedge.end()].split())[:60]
                return ChoiceExtraction("", f'the last commitment hedges between options: "{shown}"', hedged=True)
        if letters and _lists_options(body, m.end(), letters, valid):
            shown = " ".join(body[m.start() : m.start() + 60].split())[:60]
            return ChoiceExtraction("", f'the last commitment lists the options instead of choosing: "{shown}"')
        if m.group("letters") is not None and _article_trap(body, m):
            continue  # "Answer: A good question…" is English
        if letters and _EXAMPLE.search(body, max(0, pos - 16), pos) is not None:
            continue  # "例如[正确答案]A<eoa>": the prompt's example, restated
        if letters:
            end = m.end() + 1 if body[m.end() : m.end() + 1] in _CLOSERS and m.end() < len(body) else m.end()
            kind = "marker" if pattern is _MARKER or pattern is _BOXED else "commitment"
            return ChoiceExtraction(letters, f'{kind} "{" ".join(body[m.start() : end].split())[:60]}"')
        if outside is None:
            shown = " ".join(m.group(0).split())[:60]
            outside = f'marker "{shown}" names a letter that is not an option ({valid[0]}–{valid[-1]})'
    if tail is not None:
        letters = _letters(tail.group("letters"), valid)
        if letters:
            return ChoiceExtraction(letters, f'the reply ends naming "{" ".join(tail.group(0).split())}"')
    return None if outside is None else ChoiceExtraction("", outside)


_NEXT_LABEL = re.compile(r"(?<![A-Za-z])([B-Z])[\.．、]")


def _lists_options(body: str, end: int, letters: str, valid: str) -> bool:
    """After the marker's letter the line goes on through the next options' labels ("【答案】A. ①② B. ①③
    C. ②④ D. ③④"): the reply copied the option list, choosing none."""
    if len(letters) != 1:
        return False
    line = body[end : end + 200].split("\n", 1)[0]
    expected = LETTERS.index(letters) + 1
    for m in _NEXT_LABEL.finditer(line):
        if expected < len(valid) and m.group(1) == LETTERS[expected]:
            expected += 1
    return expected - LETTERS.index(letters) > 2


# A commitment after the letter: "C is the correct answer", "making (B) the correct answer", "C是正确答案",
# "选项A是正确的". Weaker than one before it (prose says "B is the correct answer only if…"), so used only
# when none of those is found.
_SUFFIX_KEYWORDS = ("the correct", "the right", "the best", "is correct answer", "正确")
_SUFFIX = re.compile(
    r"(?i:(?:the[ \t]+)?(?:correct|right|best)[ \t]+(?:answer|option|choice))"
    r"|(?i:correct[ \t]+answer)|正确(?:的)?(?:答案|选项)?"
)
_SUFFIX_LETTER = re.compile(
    r"(?:^|(?<=[^A-Za-z°]))(?:(?i:option|choice)[ \t]*|选项[ \t]*)?(?P<open>[\(\[（【])?[ \t]*(?P<letters>[A-Z])[ \t]*"
    r"(?P<close>[\)\]）】])?[ \t]*(?:选项)?[ \t]*(?P<is>(?i:is)|是|为)?[ \t]*$"
)


# "选项A：乙、丙是正确答案" / "选项C“可以先审查…”是正确的答案": the option's text quoted between letter and verdict.
_SUFFIX_ZH_SPAN = re.compile(
    r"选项[ \t]*(?P<open>)(?P<letters>[A-Z])(?P<close>)[ \t]*(?:[:：][^。；;\n\"]{1,30}|\"[^\"\n]{1,80}\")"
    r"[ \t]*(?P<is>是|为)\Z"
)


def _suffix_commitment(body: str, valid: str) -> ChoiceExtraction | None:
    lowered = body.lower() if body.isascii() else body.translate(_ASCII_LOWER)
    best: tuple[int, str, str] | None = None
    for keyword in _SUFFIX_KEYWORDS:
        pos = lowered.rfind(keyword)
        while pos >= 0 and (best is None or pos > best[0]):
            found = _suffix_at(body, pos, valid)
            if found is not None:
                best = (pos, *found)
                break
            pos = lowered.rfind(keyword, 0, pos)
    return None if best is None else ChoiceExtraction(best[1], best[2])


def _suffix_at(body: str, pos: int, valid: str) -> tuple[str, str] | None:
    tail = _SUFFIX.match(body, pos)
    if tail is None:
        return None
    head = _SUFFIX_LETTER.search(body[max(0, pos - 16) : pos])
    if head is None and tail.group(0).startswith("正确"):
        head = _SUFFIX_ZH_SPAN.search(body, max(0, pos - 100), pos)
    if head is None or not (head.group("is") or (head.group("open") and head.group("close"))):
        return None  # "B the correct answer" is no sentence; "(B) the correct answer" and "B is…" are
    if tail.group(0).startswith("正确") and not head.group("is"):
        return None
    letters = _letters(head.group("letters"), valid)
    if not letters:
        return None
    shown = " ".join((head.group(0) + body[pos : tail.end()]).split())
    return letters, f'marker "{shown[:60]}"'


# The final answer as text: after the last "answer is"/"答案是" to the end of its sentence, or a one-line reply.
_ANSWER_TEXT = re.compile(
    r"(?:(?i:answer)(?:[ \t]+(?i:is|would[ \t]+be))?|答案(?:是|为)?)[ \t]*[:：]?[ \t]*(?P<text>[^\n]{1,200})"
)


def _answer_text(body: str) -> str | None:
    """What follows the reply's last "answer (is)" / "答案(是)" on its line (found by a substring search)."""
    lowered = body.lower() if body.isascii() else body.translate(_ASCII_LOWER)
    pos = max(lowered.rfind("answer"), lowered.rfind("答案"))
    while pos >= 0:
        m = _ANSWER_TEXT.match(body, pos)
        if m is not None:
            return m.group("text")
        pos = max(lowered.rfind("answer", 0, pos), lowered.rfind("答案", 0, pos))
    return None


def restated_option(text: str, valid: str, options: Mapping[str, str]) -> ChoiceExtraction | None:
    """The option whose text the reply's final answer restates (``The answer is [1, 2].`` with option A
    ``[1, 2]``), when exactly one option has that text; None otherwise."""
    body = _clean(reply_body(text)[0])
    answer = _answer_text(body)
    candidates = [answer] if answer is not None else []
    lines = body.strip().splitlines()
    if len(lines) == 1 and len(lines[0]) <= 200:
        candidates.append(lines[0])  # a reply that is only the answer
    haystack: str | None = None
    for candidate in candidates:
        shown = candidate.strip().rstrip("。.!").strip()
        key = normalize_text(shown)
        if not key:
            continue
        # an option normalising to the same text holds every one of its words: most replies stop here
        if haystack is None:
            haystack = nfkc(" ".join(options.values())).casefold()
        if any(word not in haystack for word in key.split()):
            continue
        same = [
            letter
            for letter, option in options.items()
            if letter in valid and len(option) <= 2 * len(shown) + 8 and normalize_text(option) == key
        ]
        if len(same) == 1:
            return ChoiceExtraction(same[0], f'the final answer restates option {same[0]}\'s text "{shown[:40]}"')
    if answer is not None:
        valued = _value_option(answer, valid, options)
        if valued is not None:
            return valued
    return _letter_with_its_text(body, valid, options)


# Numbers in an answer: "\frac{1}{3}", "1/3", "0.25", "-2".
_ANSWER_NUMBER = re.compile(
    r"\\d?frac\{(-?\d+)\}\{(\d+)\}|(-?\d+(?:\.\d+)?)[ \t]*/[ \t]*(\d+)(?![\d.])|(-?\d+(?:\.\d+)?)"
)
# An option that is only numbers: "24", "[0.333, 0.25]", "$1,200", "-0.5%".
_NUMERIC_OPTION = re.compile(r"[\s\d.,\-+\[\]()$%]*\d[\s\d.,\-+\[\]()$%]*")
_OPTION_NUMBER = re.compile(r"-?\d+(?:\.(\d+))?")


def _answer_numbers(text: str) -> list[float]:
    out: list[float] = []
    for m in _ANSWER_NUMBER.finditer(text.replace(",", "")):
        if m.group(1) is not None:
            out.append(int(m.group(1)) / int(m.group(2)) if int(m.group(2)) else float("nan"))
        elif m.group(3) is not None:
            out.append(float(m.group(3)) / float(m.group(4)) if float(m.group(4)) else float("nan"))
        else:
            out.append(float(m.group(5)))
    return out


def _value_option(answer: str, valid: str, options: Mapping[str, str]) -> ChoiceExtraction | None:
    """``The answer is ⌈190/8⌉ = 24.`` with option G ``24``; ``The answer is $[1/3, 1/4]$.`` with option I
    ``[0.333, 0.25]``: the final answer's value (after its last ``=``) is exactly one numeric option's, at
    the precision the option is written to (a whole number must be equal)."""
    text = sentence_of_answer(answer).rsplit("=", 1)[-1]
    if len(text) > 80:
        return None
    values = _answer_numbers(text)
    if not values or len(values) > 4:
        return None
    hits: list[str] = []
    for letter, option in options.items():
        if letter not in valid or not _NUMERIC_OPTION.fullmatch(option.replace(",", "")):
            continue
        written = list(_OPTION_NUMBER.finditer(option.replace(",", "")))
        if len(written) != len(values):
            continue
        same = True
        for value, m in zip(values, written, strict=True):
            decimals = len(m.group(1) or "")
            target = float(m.group(0))
            tolerance = 0.5 * 10.0**-decimals if decimals >= 2 else 1e-9 * max(1.0, abs(target))
            same = same and abs(value - target) <= tolerance + 1e-12
        if same:
            hits.append(letter)
    if len(hits) != 1:
        return None
    return ChoiceExtraction(hits[0], f"the final answer's value is option {hits[0]}'s \"{options[hits[0]][:40]}\"")


def sentence_of_answer(answer: str) -> str:
    """The final answer up to the end of its sentence (a decimal point is no sentence end)."""
    m = re.search(r"[。！？]|[.!?](?=\s|$)", answer)
    return (answer if m is None else answer[: m.start()]).replace("$", "").strip()


_LETTER_THEN_TEXT = re.compile(r"(?<![A-Za-z])\(?[A-Z][.):：][ \t]*\S")


def _letter_with_its_text(body: str, valid: str, options: Mapping[str, str]) -> ChoiceExtraction | None:
    """``…during the J. resolution stage.``: a letter written with its own option's text names that option,
    when exactly one option is written so (a reply that lists several options commits to none of them)."""
    if _LETTER_THEN_TEXT.search(body) is None:
        return None
    folded = " ".join(body.split()).casefold()
    named: list[str] = []
    openings = Counter(" ".join(option.split()).casefold()[:24] for option in options.values())
    for letter, option in options.items():
        text = " ".join(option.split()).casefold()[:24]
        if letter not in valid or len(text) < 2 or openings[text] > 1:
            continue  # an opening several options share names none of them
        low = letter.lower()
        for form in (f"{low}. {text}", f"({low}) {text}", f"{low}) {text}", f"{low}: {text}"):
            pos = folded.find(form)
            while pos > 0 and (folded[pos - 1].isalnum() or _rejected_before(folded, pos)):
                pos = folded.find(form, pos + 1)
            if pos == 0 or (pos > 0 and not _rejected_before(folded, pos)):
                named.append(letter)
                break
    if len(named) != 1:
        return None
    return ChoiceExtraction(named[0], f"the reply names option {named[0]} with its text")


def _rejected_before(folded: str, pos: int) -> bool:
    """The sentence holding ``pos`` rejects what it names there: "…would not identify as (A) Democrat"."""
    start = max(folded.rfind(". ", 0, pos), folded.rfind("。", 0, pos), folded.rfind("\n", 0, pos), pos - 40) + 1
    return _NEGATED.search(folded, max(start, 0), pos) is not None


# A negation close before an option named with its text ("would not identify as (A) …", "rather than (B) …").
_NEGATED = re.compile(
    r"(?i)\b(?:not|never|rather[ \t]+than|instead[ \t]+of|unlike|except|neither|nor|cannot|can't|isn't|doesn't"
    r"|aren't|wouldn't|won't)\b|不|排除|而非"
)


# A sentence that rejects what it names: "(A) Democrat is unlikely", "rather than Green", "B is incorrect".
_REJECT = re.compile(
    r"(?i)\b(?:not|incorrect|wrong|false|invalid|unlikely|less[ \t]+likely|eliminat\w*|rul(?:e|es|ed)[ \t]+out"
    r"|rather[ \t]+than|instead[ \t]+of|unlike|except|neither|nor|cannot|can't|isn't|doesn't|aren't|wouldn't"
    r"|however|but|although|while|whereas|if|unless)\b|不|错误|排除"
)
# What dismisses an option named at a reply's start: "(B) Republican is not right, since…".
_DISMISSED = re.compile(
    r"(?i)\b(?:not|incorrect|wrong|false|invalid|unlikely|eliminat\w*|rul(?:e|es|ed)[ \t]+out|isn't|can't|cannot)\b"
)
# A sentence that concludes: "Therefore, …", "the answer …", "… would most likely identify as …".
_CUE = re.compile(
    r"(?i)\b(?:therefore|thus|hence|so|in[ \t]+conclusion|overall|answer|correct|best|most[ \t]+likely"
    r"|would[ \t]+be|identify[ \t]+as|choose|select)\b|因此|所以|故|答案|综上|正确"
)
_ENDS_SENTENCE = re.compile(r"[.!?。！？][ \t*_\"'”)\]]*\Z")
_WORDY = re.compile(r"[^\W\d_]{3}")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?。！？])[ \t]+(?=[A-Z(\[（【\u3400-\u9fff])|\n+")
_CUE_WORDS = (
    "therefore",
    "thus",
    "hence",
    "so",
    "conclusion",
    "overall",
    "answer",
    "correct",
    "best",
    "likely",
    "would be",
    "identify",
    "choose",
    "select",
    "因此",
    "所以",
    "故",
    "答案",
    "综上",
    "正确",
)
_SENTENCE_ENDS = (". ", "! ", "? ", ".\n", "!\n", "?\n", "\n", "。", "！", "？")


def _last_sentence(text: str) -> str:
    """The last sentence of ``text`` (a few string searches from its end, no regex over the paragraph)."""
    body = text.rstrip()
    head = body[:-1]
    cut = max(head.rfind(end) + len(end) for end in _SENTENCE_ENDS)
    return body[max(cut, 0) :].strip()


_OPTION_LINE_START = re.compile(r"^[ \t]*(?:\(?[A-Z][.)：:]|\([A-Z]\))[ \t]*\S", re.MULTILINE)


def _option_named(folded: str, letter: str, text: str) -> bool:
    """``folded`` (case-folded, spaces collapsed) writes ``letter`` with the start of its own option text."""
    low = letter.lower()
    for form in (f"({low}) {text}", f"({low}). {text}", f"({low}): {text}", f"{low}. {text}", f"{low}) {text}"):
        pos = folded.find(form)
        while pos > 0 and folded[pos - 1].isalnum():
            pos = folded.find(form, pos + 1)
        if pos >= 0:
            return True
    return False


def _concluding_option(body: str, valid: str, options: Mapping[str, str]) -> ChoiceExtraction | None:
    """An option the reply's conclusion names without an answer marker (docs/pages/scoring.md, "choice"):

    - written as a letter with its own text in the last paragraph, in a sentence that does not reject it
      ("…would most likely identify as (B) Republican.", "…is (I). The separation of powers…"), when that
      paragraph names exactly one option so and is not itself a list of options;
    - named by its text alone in a concluding final sentence ("Therefore, the voter is a Republican."),
      when exactly one option's text stands there and the sentence rejects nothing.
    """
    tail = body.rstrip()[-2000:]
    cut = max(tail.rfind("\n\n"), tail.rfind("\n \n"), tail.rfind("\n\t\n"))
    last = tail[cut + 1 :].strip() if cut >= 0 else tail.strip()
    if not last:
        return None
    final = _last_sentence(last)
    lowered = final.lower()
    concludes = (
        _ENDS_SENTENCE.search(final) is not None
        and any(word in lowered for word in _CUE_WORDS)
        and _CUE.search(final) is not None
    )
    texts = {
        letter: " ".join(option.split()).casefold()
        for letter, option in options.items()
        if letter in valid and len(option.strip()) >= 2
    }
    # options whose text the last paragraph holds: only those are looked for written with their letter
    folded_last = " ".join(last.split()).casefold()
    # an opening shared by several options ("Net National Product (NNP) is $1,650…" in all ten) names none:
    # "(a) Net national product (NNP) is equal to…" is a part of the working, not option A
    openings = Counter(text[:24] for text in texts.values())
    marked = {letter for letter, text in texts.items() if text[:24] in folded_last and openings[text[:24]] == 1}
    if not marked and not concludes:
        return None
    sentences = [s for s in _SENTENCE_BREAK.split(last) if s.strip()] if marked else [final]
    if marked and len(_OPTION_LINE_START.findall(last)) < 2:
        named: set[str] = set()
        for sentence in sentences:
            folded = " ".join(sentence.split()).casefold()
            hits = {letter for letter in marked if _option_named(folded, letter, texts[letter][:24])}
            if hits and _REJECT.search(sentence) is None:
                named |= hits
            elif hits and len(sentences) > 1 and sentence is sentences[-1]:
                return None  # the conclusion rejects an option it names: nothing to credit
        if len(named) == 1:
            (letter,) = named
            return ChoiceExtraction(letter, f"the conclusion names option {letter} with its text")
    if not concludes or _REJECT.search(final) is not None:
        return None  # a reply cut off mid-sentence, or a conclusion that rejects, names no answer
    folded = " " + " ".join(re.sub(r"[^\w\s'-]", " ", final).split()).casefold() + " "
    # only options written in words: a number or a formula ("0.1", "$2\pi$") turns up in any working
    found = [letter for letter, text in texts.items() if _WORDY.search(text) and f" {_words(text)} " in folded]
    # "Republican" inside the hit "Republican Party" is one option named, not two
    found = [h for h in found if not any(h != o and _words(texts[h]) in _words(texts[o]) for o in found)]
    if len(found) != 1:
        return None
    return ChoiceExtraction(found[0], f'the conclusion names option {found[0]}\'s text "{options[found[0]][:40]}"')


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s'-]", " ", text).split())


def _extract(body: str, valid: str, options: Mapping[str, str] | None) -> ChoiceExtraction | None:
    found = _last_commitment(body, valid)
    if found is not None and (found.found or found.hedged):
        return found
    bare = _bare(body, valid)
    short_bare = bare is not None and len(body.strip().split("\n", 1)[0].strip()) <= 24
    if bare is not None and (bare.found or bare.hedged or found is None) and (short_bare or not options):
        return bare
    if options:
        concluding = _concluding_option(body, valid, options)
        if concluding is not None:
            return concluding
    if bare is not None and (bare.found or bare.hedged or found is None):
        if bare.found and _DISMISSED.search(body.strip().split("\n", 1)[0]) is not None:
            return None  # "(B) Republican is not right here…": an option named to be rejected
        return bare
    suffix = _suffix_commitment(body, valid)
    if suffix is not None:
        return suffix
    if options:
        restated = restated_option(body, valid, options)
        if restated is not None:
            return restated
    return _after_negation(body, valid) or found


# A marker that rules a letter out ("The answer is not A", "答案不是A") commits to nothing itself; the reply's
# answer is the letter it then affirms: "…so it is C", "it must be (C)", "答案不是A，而是C".
_NEGATED_MARKER = re.compile(
    r"(?i:answer)[ \t]+(?i:is[ \t]+not|isn't|is[ \t]+n't)[ \t]+[\(\[]?[A-Z][\)\]]?(?![A-Za-z0-9])"
    r"|答案(?:不是|并非|不为|不应是)[ \t]*[\(（【]?[A-Z](?![A-Za-z0-9])"
)
_AFFIRMED = re.compile(
    r"(?:\b(?i:it|this|that)(?:'s|[ \t]+(?:is|must[ \t]+be|should[ \t]+be|has[ \t]+to[ \t]+be))"
    r"|而是|应该是|应是|应为|应选|(?<=[，,；;])[ \t]*是)"
    r"[ \t]*(?:(?i:option)[ \t]*)?[\(\[（【]?[ \t]*(?P<letters>[A-Z])[ \t]*[\)\]）】]?(?![A-Za-z0-9])"
)


def _after_negation(body: str, valid: str) -> ChoiceExtraction | None:
    """The letter affirmed after the reply's last negated marker (the last one there), when it is an option."""
    negated = list(_NEGATED_MARKER.finditer(body))
    if not negated:
        return None
    last = negated[-1]
    affirmed = None
    for m in _AFFIRMED.finditer(body, last.end()):
        if m.group("letters") in valid and not _article_trap(body, m):
            affirmed = m
    if affirmed is None:
        return None
    shown = " ".join(body[last.start() : affirmed.end()].split())
    if len(shown) > 60:
        shown = f"{shown[:28]} … {shown[-28:]}"
    return ChoiceExtraction(affirmed.group("letters"), f'the letter affirmed after a negated marker "{shown}"')


def extract_choice(
    text: str | None, valid: str = LETTERS[:10], options: Mapping[str, str] | None = None
) -> ChoiceExtraction:
    """The chosen letter(s) in a reply, or an empty extraction saying why nothing was read.

    ``options`` (letter → option text) lets a reply that restates one option's text be matched to it.

    >>> extract_choice("Let me think... B looks wrong. ANSWER: C", "ABCD").letters
    'C'
    >>> extract_choice("Answer: Let's think step by step.", "ABCD").found
    False
    """
    if not text:
        return ChoiceExtraction("", "empty reply")
    raw, cut = reply_body(text)
    body = _clean(raw)
    if "<" in body and END_TOKEN.search(body) is not None:
        field = _answer_field(body, valid, options)
        if field is not None:
            return field
        # An answer closed by an end token ("[正确答案]B<eoa>") is final: what follows it is not read.
        for segment in END_TOKEN.split(body):
            found = _extract(segment, valid, options) if segment.strip() else None
            if found is not None and (found.found or found.hedged):
                return found
        body = END_TOKEN.sub("\n", body)
    if "Question" in body or "问题" in body or "题目" in body or "answers" in body or "总结" in body:
        # "…option (D).\nQuestion:\n…": the model went on to invent the next question; its answer is the first.
        parts = _NEW_QUESTION.split(body)
        if len(parts) > 1 and parts[0].strip():
            found = _extract(parts[0], valid, options)
            if found is not None and (found.found or found.hedged):
                return found
    tail = after_retraction(body)
    if tail is not body:
        # "答案是B。不对，应该是C。": the reply corrected itself; only the correction is its answer
        found = _extract(tail, valid, options) or _bare(_CORRECTED.sub("", tail), valid)
        if found is not None and (found.found or found.hedged):
            return found
        head = _extract(body[: len(body) - len(tail)], valid, options)
        if head is not None and head.found:
            return ChoiceExtraction("", f"the reply withdraws its answer «{head.letters}» and names no other")
    found = _extract(body, valid, options)
    if found is not None:
        return found
    if cut:
        return ChoiceExtraction("", _CUT_OFF)
    return ChoiceExtraction("", "no answer marker or commitment, and the reply is not a bare letter")


# An explanation closed by <eoe> ("【解析】…<eoe>\n【答案】AC<eoa>", GAOKAO-Bench's format) is reasoning that
# weighs each option ("选项A是正确的"); the answer field that opens the text after it is the reply's answer.
_EXPLANATION_END = re.compile(r"<eoe>", re.IGNORECASE)
_FIELD_MARKER = re.compile(r"\s*(?:【答案】|\[答案\]|答案[ \t]*[:：]|(?i:answer)[ \t]*[:：])")


def _answer_field(body: str, valid: str, options: Mapping[str, str] | None) -> ChoiceExtraction | None:
    """The answer field opening the text after the last explanation closed by ``<eoe>``; an empty extraction
    when that field names no option ("【答案】无正确答案"); None when there is no such field."""
    ends = list(_EXPLANATION_END.finditer(body))
    if not ends:
        return None
    field = END_TOKEN.split(body[ends[-1].end() :], maxsplit=1)[0]
    if _FIELD_MARKER.match(field) is None:
        return None  # "[正确答案]B<eoe>\n例题：答案是C": what follows is no answer field
    found = _extract(field, valid, options)
    if found is not None and (found.found or found.hedged):
        return found
    shown = " ".join(field.split())[:60]
    return ChoiceExtraction("", f'the answer field after the explanation names no option: "{shown}"')


# What opens a correction: "，应该是C。", ", it's C.", ": the answer is (D)."
_CORRECTED = re.compile(
    r"^[\s,，:：。.!！]*"
    r"(?:(?:应该|应当)?(?:是|为|选)|(?i:it(?:'s|[ \t]+is|[ \t]+should[ \t]+be)|should[ \t]+be))?[ \t]*"
)

_CUT_OFF = "the reply ends inside its <think> reasoning (never closed), so it gives no final answer"


@functools.lru_cache(maxsize=4096)
def parse_choice_reference(reference: str, valid: str = LETTERS) -> str | None:
    """A reference that names options: ``B``, ``(B)``, ``AB``, ``A,C`` → sorted letters; else None."""
    letters = reference_letters(reference)
    if letters is None or any(letter not in valid for letter in letters):
        return None
    return letters


_REF_SET = r"[A-Z](?:[ \t]*(?:,|、|，|和|与|及|and|&|/|\+)?[ \t]*[A-Z])*"


@functools.lru_cache(maxsize=4096)
def reference_letters(reference: str) -> str | None:
    """The letters a reference names, whatever the options (``K`` → ``K``); None when it names no letters."""
    ref = nfkc(reference).strip().strip("()（）[]").strip().rstrip(".")
    if not ref or len(ref) > 40:
        return None
    m = re.fullmatch(r"(?:答案[:：]?|answer[:：]?)?\s*(" + _REF_SET + r")", ref, re.IGNORECASE)
    if not m or (not m.group(1).replace(" ", "").isupper() and len(m.group(1)) > 1):
        return None
    raw = m.group(1)
    if raw.isupper() and re.fullmatch(r"[A-Z]+", raw) and len(raw) > 1 and len(set(raw)) != len(raw):
        return None
    return _letters(raw.upper() if len(raw) == 1 else raw, LETTERS)


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
    r"(?:(?i:(?:final[ \t]+)?answer)" + OPTION_LIST + r"[ \t]*(?:(?i:is)|[:：])[ \t]*[:：]?\s*"
    r"|答案" + OPTION_LIST + r"[ \t]*[是为]?[ \t]*[:：]?\s*"
    r"|(?i:final[ \t]+answer|the[ \t]+answer[ \t]+is|answer)(?!" + OPTION_LIST + r")[ \t]*[:：]?"
    r"|答案(?!" + OPTION_LIST + r")[是为]?[:：]?|所以|因此|故|结论[是为]?[:：]?)"
    r"[ \t]*,?[ \t]*(?:\*\*)?[ \t]*[\(\[（]?[ \t]*(?P<not>(?i:not)[ \t]+)?"
    r"(?:(?i:most[ \t]+likely|probably|likely)[ \t]*,?[ \t]*)?[\"“]?"  # "most likely Yes.": one value, committed
    r"(?P<word>[^\s\)\]）,，。.!！;；*\"”]{1,8})"
)
# The marker that names its options ("Therefore, the answer (Yes or No) is …") is the reply's final word: what
# follows it decides, and a word that is neither yes nor no there ("Unknown.", "It depends", "both Yes and
# No") is no answer, whatever the reasoning said before it.
_YN_OPTION_MARKER = re.compile(
    r"(?:(?i:(?:final[ \t]+)?answer)" + OPTION_LIST + r"[ \t]*(?:(?i:is)|[:：])"
    r"|答案" + OPTION_LIST + r"[ \t]*[是为:：])"
)


# A reply that opens with its verdict in a word: "不可以。", "不，…", "不能。" (no); "可以。" (yes) — the word alone
# in its clause, so "可以考虑…" is no yes.
_ZH_OPENING = re.compile(
    r"(?P<no>不可以|不能|不行|不会|无法|不)(?=[ \t]*[。！？，,.!]|$)|(?P<yes>可以|能|会|行)(?=[ \t]*[。！？.!]|$)"
)
# The first sentence's predicate judges what was asked: "这个推理是错误的。", "这个逻辑不正确，因为…" (no);
# "这个说法是正确的。" (yes). Only at the end of the reply's first clause, before any reasoning.
_ZH_VERDICT = re.compile(
    r"^[^。！？，,\n]{0,30}?(?:(?P<no>是错误的|是错的|不正确|不对|不成立|是无效的|是不正确的)"
    r"|(?P<yes>是正确的|是对的|正确|成立|是成立的))(?=[ \t]*(?:[。！？，,.!]|$))"
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
    opening = _ZH_OPENING.match(s)
    if opening is not None:
        return "no" if opening.group("no") else "yes"
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
            if value is not None and "not" in m.groupdict() and m.group("not"):
                value = "no" if value == "yes" else "yes"  # "the answer is not yes": no
            if value is not None and (found is None or m.start() > found[0]):
                found = (m.start(), value, m.group(0).strip())
    final = max(_YN_OPTION_MARKER.finditer(body), key=lambda m: m.start(), default=None)
    if final is not None and (found is None or found[0] < final.start()):
        said = " ".join(body[final.start() : final.end() + 40].split())
        return ChoiceExtraction("", f'the final marker names neither yes nor no: "{said[:70]}"')
    if found is not None:
        return ChoiceExtraction(found[1], f'marker "{" ".join(found[2].split())[:60]}"')
    lines = [line for line in body.strip().splitlines() if line.strip()]
    value = parse_yes_no(lines[0][:20]) if lines else None
    if value is not None:
        return ChoiceExtraction(value, "reply starts with it")
    verdict = _ZH_VERDICT.search(lines[0]) if lines else None
    if verdict is not None:
        value = "no" if verdict.group("no") else "yes"
        return ChoiceExtraction(value, f'the first sentence judges: "{verdict.group(0).strip("。！？，,")}"')
    value = parse_yes_no(lines[-1][:20]) if lines else None
    if value is not None:
        return ChoiceExtraction(value, "last line starts with it")
    return ChoiceExtraction("", _CUT_OFF if cut else "no yes/no word at the start, end or after an answer marker")
