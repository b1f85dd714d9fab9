"""``--metric math --judge-fallback``: which responses the rule-based math metric left unsettled.

Until the math metric publishes its own "unsure" signal, a response is unsettled when the metric gave
it no score, or when its analysis says that no answer was found (the extraction failed, so the rule
could not compare anything). Responses with no content are not sent: there is nothing to judge.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["needs_fallback"]

_NOT_FOUND = re.compile(
    r"not\s+found|no\s+(?:final\s+)?answer|unextract|未找到|没有找到|无法提取|找不到", re.IGNORECASE
)


def needs_fallback(response: dict[str, Any]) -> bool:
    """True when the rule-based math metric could not settle ``response`` and the judge should."""
    if not isinstance(response.get("content"), str):
        return False
    if response.get("score") is None:
        return True
    analysis = response.get("analysis")
    return isinstance(analysis, str) and _NOT_FOUND.search(analysis) is not None
