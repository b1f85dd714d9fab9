"""Text normalisation shared by the metrics: Unicode, case, punctuation, articles, whitespace, numbers."""

from __future__ import annotations

import math
import re
import unicodedata

__all__ = [
    "DATE_OR_RANGE",
    "END_TOKEN",
    "answer_form",
    "nfkc",
    "normalize_text",
    "parse_number",
    "repair_mojibake",
    "reply_body",
    "strip_think",
]

#: Tokens that end a model's turn, answer or explanation ("【答案】B<eoa>", "…<eoe>", "B</s>", "<|im_end|>").
END_TOKEN = re.compile(r"<(?:eoa|eoe|eoh|eom|eos|eod|/s|\|im_end\||\|endoftext\||\|eot_id\||\|end\|)>", re.IGNORECASE)
#: A date or a range written with digits ("1879-03-14", "1990-2000", "2023/01/05"): words, not arithmetic.
DATE_OR_RANGE = re.compile(r"\d+(?:\s*[-–.]\s*\d+)+|\d+(?:/\d+){2,}")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_SPACES = re.compile(r"\s+")
_THINK_CLOSE = re.compile(r"</think\s*>", re.IGNORECASE)
_THINK_BLOCK = re.compile(r"<think\s*>.*?</think\s*>", re.IGNORECASE | re.DOTALL)

# Unicode signs NFKC leaves alone but people (and models) use for ASCII ones.
_SIGNS = str.maketrans(
    {
        "−": "-",
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
        "×": "*",
        "·": "*",
        "÷": "/",
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "。": ".",
        "，": ",",
        "、": ",",
        "；": ";",
        "：": ":",
        "（": "(",
        "）": ")",
    }
)


_SIGN_RE = re.compile("[" + re.escape("".join(chr(c) for c in _SIGNS)) + "]")
_SIGN_MAP = {chr(k): str(v) for k, v in _SIGNS.items()}


def nfkc(text: str) -> str:
    """NFKC (full-width → half-width) plus the sign characters NFKC keeps (−, ×, ÷, curly quotes, 。)."""
    if text.isascii():
        return text
    return _SIGN_RE.sub(lambda m: _SIGN_MAP[m.group(0)], unicodedata.normalize("NFKC", text))


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


_PUNCT_CACHE: dict[str, bool] = {}


# ASCII punctuation and symbols (Unicode categories P and S) become spaces in one C-level pass.
_ASCII_PUNCT = str.maketrans({chr(c): " " for c in range(128) if unicodedata.category(chr(c))[0] in "PS"})


def _strip_punct(text: str) -> str:
    text = text.translate(_ASCII_PUNCT)
    if text.isascii():
        return text
    out: list[str] = []
    for ch in text:
        flag = _PUNCT_CACHE.get(ch)
        if flag is None:
            flag = _PUNCT_CACHE[ch] = _is_punct(ch)
        out.append(" " if flag else ch)
    return "".join(out)


def normalize_text(text: str) -> str:
    """Exact-match normal form: NFKC, case-fold, punctuation (ASCII and CJK) and English articles removed,
    whitespace collapsed. ``"The  Eiffel Tower!"`` → ``"eiffel tower"``; ``"北京。"`` → ``"北京"``.

    Articles are never the whole answer: ``"A"`` → ``"a"`` and ``"an"`` → ``"an"`` (an option letter, a word).
    """
    text = nfkc(text).casefold()
    text = _strip_punct(text)
    stripped = _ARTICLES.sub(" ", text)
    return _SPACES.sub(" ", stripped if stripped.strip() else text).strip()


def answer_form(text: str) -> str:
    """What an answer is compared as: :func:`normalize_text`, except that an answer made only of symbols keeps
    them (``") ] }"`` → ``")]}"``, spaces dropped, a closing full stop too): normalisation never empties a
    non-empty answer, so a bracket completion is not equal to every reply that has no words."""
    form = normalize_text(text)
    if form or not text.strip():
        return form
    symbols = "".join(nfkc(text).split())
    trimmed = symbols.rstrip(".")
    return trimmed or symbols


#: What UTF-8 read as Windows-1252 leaves: "Â\xa0" for a no-break space, "â€“" for an en dash, "Ã©" for é.
_MOJIBAKE = re.compile("Â[\xa0-\xbf]|â€[\x80-\xbf\u0152-\u2122]|Ã[\x80-\xbf]")


def repair_mojibake(text: str) -> str:
    """``text`` with UTF-8 that was read as Windows-1252 decoded again (``2.45Â\xa0billion`` → ``2.45 billion``,
    ``10â€“12 years`` → ``10–12 years``), as a grader reads it; unchanged when it shows no such sequence or
    does not decode."""
    if _MOJIBAKE.search(text) is None:
        return text
    try:
        return text.encode("cp1252").decode("utf-8")
    except UnicodeError:
        return text


def strip_think(text: str) -> str:
    """The reply without its reasoning: ``<think>…</think>`` blocks removed; text after a lone ``</think>``."""
    if "think" not in text:
        return text
    text = _THINK_BLOCK.sub(" ", text)
    parts = _THINK_CLOSE.split(text)
    return parts[-1]


_THINK_OPEN = re.compile(r"<think\s*>", re.IGNORECASE)


def reply_body(text: str) -> tuple[str, bool]:
    """The part of a reply that can hold its final answer, and whether reasoning was cut off.

    ``<think>…</think>`` blocks are dropped (their answers are drafts); a ``<think>`` that never closes
    means the reply ended mid-reasoning (a token limit), so nothing after it is a final answer: the body
    is what precedes it and the flag is True.
    """
    body = strip_think(text)
    if "think" not in body:
        return body, False
    m = _THINK_OPEN.search(body)
    if m is None:
        return body, False
    return body[: m.start()], True


_NUMBER = re.compile(
    r"""^[-+]?(?:
        \d{1,3}(?:,\d{3})+(?:\.\d+)?   # 1,000 or 1,000.5
      | \d{1,3}(?:[ ]\d{3})+(?:\.\d+)? # 1 000 (NFKC makes thin and no-break spaces plain)
      | \d+\.?\d*(?:[eE][-+]?\d+)?     # 1000, 1000., 1e3
      | \.\d+(?:[eE][-+]?\d+)?         # .5
    )$""",
    re.VERBOSE,
)
_FRACTION = re.compile(r"^([-+]?\d+)\s*/\s*(\d+)$")
# A mixed number: "1 1/2", "1又1/2" (a whole part, then a proper fraction).
_MIXED = re.compile(r"^([-+]?)(\d+)(?:[ \t]+|又)(\d+)\s*/\s*(\d+)$")


def parse_number(text: str) -> float | None:
    """A plain number (``1,000``, ``-3.5``, ``1e3``, ``3/4``, ``1 1/2``) as a float, or None.

    Currency signs, a trailing period and surrounding spaces are ignored: ``$18.`` → 18.
    """
    s = nfkc(text).strip().rstrip(".").strip()
    s = s.replace("$", "").replace("¥", "").replace("￥", "").replace("€", "").replace("£", "").strip()
    if not s:
        return None
    if _NUMBER.match(s):
        try:
            value = float(s.replace(",", "").replace(" ", ""))
        except ValueError:
            return None
        return value if math.isfinite(value) else None
    m = _FRACTION.match(s)
    if m and int(m.group(2)) != 0:
        return int(m.group(1)) / int(m.group(2))
    m = _MIXED.match(s)
    if m and 0 < int(m.group(3)) < int(m.group(4)):
        whole = int(m.group(2)) + int(m.group(3)) / int(m.group(4))
        return -whole if m.group(1) == "-" else whole
    return None
