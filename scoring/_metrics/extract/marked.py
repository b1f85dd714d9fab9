"""A short answer's marked form (docs/pages/scoring.md, "exact"): the text the reply commits to as its answer.

The last of these, by position, wins: an answer keyword (``#### 42``, ``The answer is``, ``Final answer:``,
``答案是``, ``答案：``, ``答案为``), a ``\\boxed{…}``, a short ``**bold**`` span that ends the reply's answer,
and, when the reply marks nothing else, a final ``= value`` ending it. The text is cut at the end of its
sentence or line and shed of ``$``/``\\(…\\)`` delimiters, so ``答案是 $\\frac{1}{2}$。`` gives
``\\frac{1}{2}``. A mark the reply withdraws (``不对，…``, ``Wait, no, …``) is none (see ``retraction``).
Nothing here decides what the text is worth: the metrics compare it (as a number, a value, or words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring._metrics.extract.retraction import after_retraction

__all__ = ["OPTION_LIST", "Marked", "marked_answer", "sentence_of"]


@dataclass(frozen=True)
class Marked:
    """The answer a reply marks, where it starts in the body, and how it was found (for the analysis)."""

    text: str
    start: int
    how: str


#: The options a marker names before its answer, as zero-shot prompts write it: "the answer (Yes or No) is",
#: "the answer (A–E) is", "the answer (arabic numerals) is", "答案（是或否）是": part of the marker, not the answer.
OPTION_LIST = (
    r"(?:[ \t]*[(（](?=[^()（）\n]{1,40}[)）])"
    r"(?:[^()（）\n]*?(?:(?i:\bor\b|\bthrough\b|\bto\b)|或|还是|/|[-–—~～]|到|至)"
    r"[^()（）\n]*?|[ \t]*(?i:arabic[ \t]+numerals?|numbers?|a[ \t]+number|numerals?|in[ \t]+words)[ \t]*)[)）])"
)
_KEYWORD = re.compile(
    r"(?:####|(?<![A-Za-z])(?:(?i:final[ \t]+answer)" + OPTION_LIST + r"?(?:[ \t]+(?i:is))?[ \t]*[:：]?"
    r"|(?i:answer" + OPTION_LIST + r"?[ \t]+(?:is|would[ \t]+be)|answer" + OPTION_LIST + r"?[ \t]*[:：]))[ \t]*[:：]?"
    r"|(?:最终)?答案" + OPTION_LIST + r"?[ \t]*[\]】]?(?:应该?)?[是为]?[ \t]*[:：]?)"
    r"[ \t]*(?:\r?\n[ \t]*)?(?=(?P<rest>[^\n]*))"  # a lookahead: a later keyword on the line is found too
)
# "错误答案是北京", "the wrong answer would be Paris": an answer named to be rejected is no mark.
_REJECTED = re.compile(r"(?:错误的?|不正确的?|错的|(?i:(?:and[ \t]+)?(?:the[ \t]+)?(?:wrong|incorrect|false)))[ \t]*\Z")
# A hedge word opening the marked answer: "The answer is probably E" commits to E (two answers after it,
# "probably A or D", are still two: the metrics refuse those).
_HEDGE_WORDS = re.compile(r"^(?i:most[ \t]+likely|probably|likely|possibly|perhaps|大概是|可能是)[ \t]*,?[ \t]*")
_BOXED = "\\boxed"
_BOLD = re.compile(r"\*\*(?P<rest>[^*\n]{1,60})\*\*")
# The reply's last line ends "… = value": "1/3 + 1/6 = 1/2", "x = \frac{1}{2}."
_FINAL_EQUALS = re.compile(r"=(?P<rest>[^=\n]{1,60})\s*\Z")
# The end of the answer's sentence: CJK terminators anywhere, ASCII ones before a space or the end ("3.5" stays).
_SENTENCE_END = re.compile(
    r"[。！？；]|[.!?;](?=\s|$|[\u3400-\u9fff])|[,，](?=\s*(?:because|since|as|so|which|因为|所以|由于))"
)
# Two values on the last line, joined: "x = 2 and x = 3", "x=1 或 x=2", "a = 1, b = 2".
_TWO_VALUES = re.compile(r"=[^=\n]*?(?:(?i:\bor\b|\band\b)|或|和|以及|[,，;；])[^=\n]*=")
_DELIMITERS = re.compile(r"^\s*(?:\$\$?|\\\(|\\\[)\s*|\s*(?:\$\$?|\\\)|\\\])\s*$")


def sentence_of(text: str) -> str:
    """``text`` up to the end of its first sentence (``"北京。因为…"`` → ``"北京"``)."""
    m = _SENTENCE_END.search(text)
    return text if m is None else text[: m.start()]


def _braced(text: str, open_at: int) -> str | None:
    """The contents of the brace group opening at ``open_at`` (nested braces kept), or None if unclosed."""
    depth = 0
    for k in range(open_at, len(text)):
        ch = text[k]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : k]
    return None


def _clean(text: str) -> str:
    text = text.replace("**", "").strip()
    previous = None
    while previous != text:
        previous = text
        text = _DELIMITERS.sub("", text).strip()
    return text.strip(" \t*_`\"'“”「」")


def marked_answer(body: str) -> Marked | None:
    """The reply's last marked answer, or None when the reply marks none (``body``: reasoning already
    dropped). An answer the reply then corrects (``答案是 3。不对，应该是 4。``) is not read: only what
    follows its last retraction is."""
    body = after_retraction(body)
    best: Marked | None = None
    last_keyword = None
    lowered = body.lower() if body.isascii() else body
    if "####" in body or "answer" in lowered or "ANSWER" in body or "Answer" in body or "答案" in body:
        # GSM8K's "#### 42" ends the reply: only what follows the last one can hold a later marker
        for m in _KEYWORD.finditer(body, max(body.rfind("####"), 0)):
            if _REJECTED.search(body, max(0, m.start() - 12), m.start()) is None:
                last_keyword = m
    if last_keyword is not None:
        rest = last_keyword.group("rest")
        later = _KEYWORD.search(body, last_keyword.end(), last_keyword.end() + len(rest))
        if later is not None:
            # "正确答案是上海，错误答案是北京": the answer ends where a rejected one is named
            rest = _REJECTED.sub("", rest[: later.start() - last_keyword.end()]).rstrip(" \t,，;；")
        text = _HEDGE_WORDS.sub("", _clean(sentence_of(rest)), count=1)
        if text:
            keyword = " ".join(body[last_keyword.start() : last_keyword.start("rest")].split())
            best = Marked(text, last_keyword.start(), f'marker "{keyword} {text[:40]}"')
    box = body.rfind(_BOXED)
    if box >= 0 and (best is None or box > best.start):
        brace = body.find("{", box)
        inner = _braced(body, brace) if brace >= 0 and not body[box + len(_BOXED) : brace].strip() else None
        if inner is not None and inner.strip():
            best = Marked(_clean(inner), box, f'"\\boxed{{{inner.strip()[:40]}}}"')
    tail = body.rstrip()
    bold = None
    if "**" in tail:
        for m in _BOLD.finditer(tail, max(0, len(tail) - 400)):
            bold = m
    if bold is not None and (best is None or bold.start() > best.start):
        text = _clean(bold.group("rest"))
        after = tail[bold.end() :].strip()
        # the bold span is the answer when little follows it on its line ("**18**." / "**北京**。")
        if text and len(after.split("\n", 1)[0]) <= 3:
            best = Marked(text, bold.start(), f'bold "**{text[:40]}**"')
    equals = _FINAL_EQUALS.search(tail, max(0, len(tail) - 80)) if best is None else None
    if equals is not None and _TWO_VALUES.search(tail, max(0, tail.rfind("\n", 0, equals.start()))) is not None:
        equals = None  # "The roots are x = 2 and x = 3.": two values, no one answer
    if equals is not None:
        text = _clean(equals.group("rest").rstrip("。.!！"))
        if text:
            best = Marked(text, equals.start(), f'final "= {text[:40]}"')
    return best
