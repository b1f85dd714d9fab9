"""``--metric auto``: pick each dataset's metric from its references, and say why."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from scoring._metrics.base import Item
from scoring._metrics.choice import choice_key
from scoring._metrics.extract.numeric import reference_number

__all__ = ["JUDGE_NEEDED", "MetricChoice", "choose_metric", "reference_kind"]

JUDGE_NEEDED = "judge-needed"

_MATHY = re.compile(r"\\[a-zA-Z]+|\^|√|π|∞|[<>≤≥]|\$|\d\s*/\s*\d|[a-z]\s*=\s*-?\d|\(\s*-?\d+\s*,\s*-?\d+\s*\)|[±∪]")


def reference_kind(item: Item) -> str:
    """``choice`` (option letters or yes/no), ``number``, ``math``, ``short`` or ``long``."""
    ref = (item.reference or "").strip()
    if not ref:
        return "missing"
    if choice_key(item) is not None:
        return "choice"
    if reference_number(ref) is not None:
        return "number"
    if _MATHY.search(ref) and len(ref) <= 300:
        return "math"
    words = len(ref.split()) if ref.isascii() else len(ref) // 2
    if len(ref) > 200 or words > 30:
        return "long"
    return "short"


@dataclass(frozen=True)
class MetricChoice:
    metric: str
    reason: str


def choose_metric(items: Iterable[Item]) -> MetricChoice:
    """The metric for a dataset: all option letters or yes/no → choice; mostly long free text → a judge is
    needed (left unscored); any LaTeX or expression → math; numbers and short answers → exact."""
    kinds = Counter(reference_kind(item) for item in items)
    total = sum(kinds.values()) - kinds["missing"]
    if total == 0:
        return MetricChoice(JUDGE_NEEDED, "no references to choose a metric from")
    shown = ", ".join(f"{n} {k}" for k, n in kinds.most_common())
    if kinds["choice"] == total:
        return MetricChoice("choice", f"all {total} references are option letters or yes/no")
    if kinds["long"] * 2 >= total:
        return MetricChoice(
            JUDGE_NEEDED,
            f"references are long free text ({shown}); rule-based metrics cannot score them — use --metric judge",
        )
    if kinds["math"]:
        return MetricChoice("math", f"references hold math expressions ({shown})")
    return MetricChoice("exact", f"references are numbers or short answers ({shown})")
