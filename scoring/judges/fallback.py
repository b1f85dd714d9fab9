"""``--metric math --judge-fallback``: which responses the rule-based math metric left unsettled.

The math metric (scoring/metrics/math) marks what it could not settle in the analysis it writes:
``"...; not settled (time limit or unparseable): a math judge can review it"`` (the same text the
aggregate counts as ``unsettled``), and ``"math: no answer found (...)"`` when extraction failed. A
response is sent to the judge when its analysis says either, when the metric gave it no score, or when
the rule only guessed the answer from the last sentence (``via last sentence``) and found it wrong: an
answer written in words ("three fours make a dozen") is exactly what the judge can read and the rules
cannot.
Responses with no content are not sent: there is nothing to judge.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["needs_fallback"]

#: "math: no answer found (...)" / "math (choice rule): no answer found (...)" at the start of the analysis,
#: or "; not settled (time limit or unparseable)" anywhere after it (not inside the quoted answer).
_UNSETTLED = re.compile(
    r"^math(?: \(choice rule\))?: no answer found|; not settled \(|\bnot settled\b[^«»]*$", re.IGNORECASE
)

#: The rule took the last sentence as the answer (no boxed answer, no answer keyword).
_GUESSED = re.compile(r"^math: extracted «[^»]*» via last sentence;")


def needs_fallback(response: dict[str, Any]) -> bool:
    """True when the rule-based math metric could not settle ``response`` and the judge should."""
    if not isinstance(response.get("content"), str):
        return False
    if response.get("score") is None:
        return True
    analysis = response.get("analysis")
    if not isinstance(analysis, str):
        return False
    if _UNSETTLED.search(analysis) is not None:
        return True
    score = response.get("score")
    return _GUESSED.search(analysis) is not None and isinstance(score, (int, float)) and score < 1.0
