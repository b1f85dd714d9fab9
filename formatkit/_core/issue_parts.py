"""What the issue sink (:mod:`formatkit._core.issues`) and the issue models (:mod:`formatkit._core.issue_models`)
both use: the file formats, the codes listed first, and text any output can hold; and text a terminal can show
(:func:`escape_controls`: every name or text from a file or a server goes through it before it is printed)."""

from __future__ import annotations

import re
from typing import Any, Literal

__all__ = ["CAUSES", "Format", "escape_controls", "safe_text"]

Format = Literal["excel-single-turn", "excel-multi-turn", "jsonl-single-turn", "jsonl-multi-turn", "canonical"]

#: Codes that explain other issues of the same rows: listed before them (a repeated session_id makes rows
#: one conversation, and what the session rules then find on them follows from it).
CAUSES = frozenset({"session_not_consecutive"})

_SURROGATES = re.compile("[\ud800-\udfff]")


def safe_text(value: Any) -> Any:
    """Text that any UTF-8 output can hold: a lone surrogate (from a jsonl escape) is written as its escape."""
    if type(value) is str and not value.isascii() and _SURROGATES.search(value):
        return _SURROGATES.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    return value


_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def escape_controls(text: str) -> str:
    """Control characters (and bidi overrides, lone surrogates) as visible escapes; tabs and line breaks
    become spaces. Chinese and every other printable text are left as they are."""
    if text.isprintable():
        return text
    text = text.replace("\t", " ").replace("\r\n", " ").replace("\n", " ")
    return _CONTROLS.sub(lambda m: _escape(m.group()), text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
