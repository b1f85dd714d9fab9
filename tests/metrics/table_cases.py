"""Named cases for the metric tables."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest


def case_maker() -> Callable[..., Any]:
    """``case(rule, *values)``: a pytest.param named ``rule-N``, N counting that rule's cases in the module."""
    ids: Counter[str] = Counter()

    def case(rule: str, *values: Any) -> Any:
        ids[rule] += 1
        return pytest.param(*values, id=f"{rule}-{ids[rule]}")

    return case
