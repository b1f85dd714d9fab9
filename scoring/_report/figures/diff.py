"""How two answers differ: a diff by character for Chinese, Japanese and Korean text and by word for
Latin text (a word, a number, a run of spaces or one other character is one token).

The HTML report's cards compute the same diff in the browser (the tokens are the same regular
expression, :data:`TOKEN_PATTERN`); the workbook's flip list writes it as text with ``[-removed-]`` and
``{+added+}`` marks.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Literal

__all__ = ["TOKEN_PATTERN", "Segment", "diff_text", "marked", "tokens"]

#: One CJK character (ideographs, kana, hangul, CJK punctuation and full-width forms), a word of
#: letters or digits, a run of whitespace, or any other single character.
TOKEN_PATTERN = (
    r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"
    r"|[^\s\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\W]+"
    r"|\s+|."
)
_TOKEN = re.compile(TOKEN_PATTERN, re.S)
#: Past this many tokens on each side the diff is of the first ones only (SequenceMatcher is quadratic).
MAX_TOKENS = 4000

Op = Literal["same", "removed", "added"]
Segment = tuple[Op, str]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def diff_text(old: str, new: str) -> list[Segment]:
    """``old`` → ``new`` as segments: ``same``, ``removed`` (in old only), ``added`` (in new only)."""
    a, b = tokens(old)[:MAX_TOKENS], tokens(new)[:MAX_TOKENS]
    out: list[Segment] = []

    def push(op: Op, text: str) -> None:
        if not text:
            return
        if out and out[-1][0] == op:
            out[-1] = (op, out[-1][1] + text)
        else:
            out.append((op, text))

    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            push("same", "".join(a[i1:i2]))
            continue
        push("removed", "".join(a[i1:i2]))
        push("added", "".join(b[j1:j2]))
    return out


def marked(segments: list[Segment]) -> str:
    """Segments as one line of text: ``[-removed-]`` and ``{+added+}`` around the changes."""
    parts = []
    for op, text in segments:
        parts.append(text if op == "same" else f"[-{text}-]" if op == "removed" else f"{{+{text}+}}")
    return "".join(parts)
