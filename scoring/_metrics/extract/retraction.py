"""A reply that withdraws its own answer (docs/pages/scoring.md, "exact"): ``答案是 3。不对，应该是 4。``.

What a reply says before it corrects itself is no answer: the marked answer, the first line and the
choice commitment are read only after the reply's last retraction. A retraction opens a sentence (a clause
is not enough: ``答案是B，选项A说1，不对。`` judges option A) and says the answer before it was wrong (``不对``,
``错了``, ``更正``, ``Wait, no``, ``Correction:``, ``That's wrong``); a check (``Wait, let me verify``) or a
verdict on another candidate (``选项上海不对``) is none.
"""

from __future__ import annotations

import re

__all__ = ["after_retraction"]

_RETRACTION = re.compile(
    r"(?:^|(?<=[。！？.!?\n]))[ \t*]*"
    r"(?:不对|不对不对|错了|我错了|算错了|说错了|更正|纠正|"
    r"(?i:wait,?[ \t]+no|no,?[ \t]+wait|actually,?[ \t]+no|oops|correction|scratch[ \t]+that"
    r"|i[ \t]+made[ \t]+an?[ \t]+(?:mistake|error)|i[ \t]+was[ \t]+wrong"
    r"|that(?:'s|[ \t]+is|[ \t]+was)[ \t]+(?:wrong|incorrect|not[ \t]+right)))"
    r"(?![A-Za-z\u3400-\u9fff])"
)


def after_retraction(body: str) -> str:
    """``body`` after its last retraction (what the reply says once it has corrected itself), or ``body``
    itself when it retracts nothing."""
    last = None
    for m in _RETRACTION.finditer(body):
        last = m
    return body if last is None else body[last.end() :]
