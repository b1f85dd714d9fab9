"""What the issue sink (:mod:`formatkit._core.issues`) and the issue models (:mod:`formatkit._core.issue_models`)
both use: the file formats, the codes listed first, and text any output can hold."""

from __future__ import annotations

import re
from typing import Any, Literal

__all__ = ["CAUSES", "Format", "safe_text"]

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
