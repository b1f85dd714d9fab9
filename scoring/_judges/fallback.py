"""``--metric math --judge-fallback``: which responses the rule-based math metric left for a judge.

It reads the fields the math metric writes beside the score (never the ``analysis`` text): a response
goes to the judge when it has content and the metric gave it no score, found no answer (``answer``
null), could not settle the comparison (``settled`` false: a time limit, an unparseable answer), or only
guessed the answer from the last sentence (``guessed``) and found it wrong — an answer written in words
("three fours make a dozen") is exactly what the judge can read and the rules cannot. Responses with no
content are not sent: there is nothing to judge.
"""

from __future__ import annotations

from formatkit._core.record import ResponseDict

__all__ = ["needs_fallback"]


def needs_fallback(response: ResponseDict) -> bool:
    """True when the rule-based math metric could not settle ``response`` and the judge should."""
    if not isinstance(response.get("content"), str):
        return False
    score = response.get("score")
    if not isinstance(score, int | float):
        return True
    if response.get("answer") is None or response.get("settled") is False:
        return True
    return bool(response.get("guessed")) and score < 1.0
