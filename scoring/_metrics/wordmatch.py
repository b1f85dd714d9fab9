"""The text form ``prefix`` and ``keywords`` compare in, and where a match may end.

Width, case and punctuation are set aside as the exact metric sets them aside (NFKC, case folding,
punctuation to spaces, spaces collapsed), with what must stay to keep a word whole: a point or comma between
digits (``3.5``: ``3`` is not found in ``3.5``; a thousands separator is dropped, so ``1,000`` = ``1000``),
``+`` and ``#`` after a letter (``C++`` and ``C#`` are not ``C``) and ``%`` after a digit. English articles
are kept: a reference ``A`` (an option) is a word.

A match may not end inside a word: where the reference (or keyword) ends or starts with a letter or digit of
an alphabetic script, the reply's character beside it must not be one (``cat`` is not in ``category``,
``über`` not in ``Darüber``); Chinese and Japanese have no spaces between words, so ``北京`` starts ``北京市``."""

from __future__ import annotations

import re
import unicodedata

from scoring._metrics.normalize import nfkc

__all__ = ["found_at_word", "match_form", "starts_at_word"]

#: Characters kept inside a word, each written as a private-use character while punctuation is removed.
_KEPT = {".": "\ue000", ",": "\ue001", "+": "\ue002", "#": "\ue003", "%": "\ue004"}
_RESTORE = str.maketrans({v: k for k, v in _KEPT.items()})
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_IN_NUMBER = re.compile(r"(?<=\d)[.,](?=\d)")
_AFTER_LETTER = re.compile(r"(?<=[^\W\d_])[+#]+")
_PERCENT = re.compile(r"(?<=\d)%")
_SPACES = re.compile(r"\s+")


def _punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS" and ch not in "\ue000\ue001\ue002\ue003\ue004"


def match_form(text: str) -> str:
    """``text`` in the form both metrics compare in (see the module docstring)."""
    text = nfkc(text).casefold()
    text = _THOUSANDS.sub("", text)  # 1,000 = 1000
    text = _IN_NUMBER.sub(lambda m: _KEPT[m.group()], text)
    text = _AFTER_LETTER.sub(lambda m: "".join(_KEPT[c] for c in m.group()), text)
    text = _PERCENT.sub(_KEPT["%"], text)
    text = "".join(" " if _punct(ch) else ch for ch in text)
    return _SPACES.sub(" ", text).strip().translate(_RESTORE)


def _cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"


def _word(ch: str) -> bool:
    """A character that continues a word of an alphabetic script (digits, the kept signs too)."""
    return bool(ch) and (ch.isalnum() or ch in ".,+#%") and not _cjk(ch)


def _bounded(text: str, start: int, end: int, key: str) -> bool:
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    return not (_word(key[0]) and _word(before)) and not (_word(key[-1]) and _word(after))


def starts_at_word(reply: str, reference: str) -> bool:
    """Whether ``reply`` (in :func:`match_form`) starts with ``reference`` (in it too) and the match ends a word."""
    return bool(reference) and reply.startswith(reference) and _bounded(reply, 0, len(reference), reference)


def found_at_word(reply: str, key: str) -> bool:
    """Whether ``key`` stands in ``reply`` as whole words (both in :func:`match_form`)."""
    if not key:
        return False
    start = reply.find(key)
    while start >= 0:
        if _bounded(reply, start, start + len(key), key):
            return True
        start = reply.find(key, start + 1)
    return False
