"""``--metric math --judge-fallback``: which responses the rule-based math metric left unsettled.

The math metric (scoring/metrics/math) marks what it could not settle in the analysis it writes:
``"...; not settled (time limit or unparseable): a math judge can review it"`` (the same text the
aggregate counts as ``unsettled``), and ``"math: no answer found (...)"`` when extraction failed. A
response is sent to the judge when its analysis says either, or when the metric gave it no score.
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


def needs_fallback(response: dict[str, Any]) -> bool:
    """True when the rule-based math metric could not settle ``response`` and the judge should."""
    if not isinstance(response.get("content"), str):
        return False
    if response.get("score") is None:
        return True
    analysis = response.get("analysis")
    return isinstance(analysis, str) and _UNSETTLED.search(analysis) is not None
