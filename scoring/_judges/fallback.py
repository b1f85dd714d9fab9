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
from scoring._metrics.registry import JUDGE_NEEDED

__all__ = ["UNDECIDED", "needs_fallback", "undecided"]

#: Why ``auto`` with a judge sends a response to it (``judge.sent_because``), each read off the fields the
#: rule metric wrote beside the score, never its analysis.
UNDECIDED = {
    "judge_needed": "the reference is free text (or there is none): a judge is needed",
    "unscorable": "the rule metric could give no score",
    "unsettled": "the rule metric could not settle the comparison",
    "no_answer": "the rules found no answer to compare",
    "text_unmatched": "a short text reference the rules can only match word for word (a paraphrase is no match)",
    "guessed": "the answer was only guessed from the last sentence, and found wrong",
}


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


def undecided(response: ResponseDict) -> str | None:
    """Why the rules cannot settle ``response`` under ``auto`` (a key of :data:`UNDECIDED`), or None
    when their score stands: a number compared, a choice read, a math answer proven equal or not."""
    if not isinstance(response.get("content"), str):
        return None
    if response.get("metric") == JUDGE_NEEDED:
        return "judge_needed"
    score = response.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        return "unscorable"
    if response.get("settled") is False:
        return "unsettled"
    if score >= 1.0:
        return None
    if response.get("answer") is None:
        return "no_answer"
    if response.get("matched_by") == "normalised match":
        return "text_unmatched"
    if response.get("guessed"):
        return "guessed"
    return None
