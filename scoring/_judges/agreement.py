"""How far a panel's judges agree, and how several verdicts make one: Krippendorff's alpha, the panel's
aggregates (mean, median, majority).

Krippendorff's alpha (Krippendorff, *Computing Krippendorff's Alpha-Reliability*, 2011) suits a panel's
data as they come: any number of judges, items that some judges left void (an item counts when at least
two judges gave it a verdict), and a distance of the scale's kind. ``interval`` (the squared difference)
for verdicts on a scale (0-2, 1-10, a math grade 0-1), ``nominal`` (same or not) for categories (a
pairwise outcome: win, tie, loss). Alpha is 1 for perfect agreement, 0 for agreement at chance; it is
None when it cannot be told (fewer than two pairable verdicts, or every verdict the same value, where
chance agreement is already perfect).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal, TypeVar

__all__ = ["Level", "krippendorff_alpha", "majority", "mean", "median"]

#: The distance between two verdicts: ``nominal`` (categories), ``interval`` (numbers on a scale).
Level = Literal["nominal", "interval"]

V = TypeVar("V", bound=Hashable)


def _distance(level: Level, a: object, b: object) -> float:
    if level == "nominal":
        return 0.0 if a == b else 1.0
    assert isinstance(a, int | float) and isinstance(b, int | float)
    return float(a - b) ** 2


def krippendorff_alpha(units: Sequence[Sequence[object]], level: Level) -> float | None:
    """Alpha over ``units``: each unit the valid verdicts the judges gave one item (void ones left out).

    Computed from the coincidence of values: D_o, the mean distance between two verdicts of one item, over
    D_e, the mean distance between any two verdicts; alpha = 1 - D_o / D_e."""
    pairable = [list(unit) for unit in units if len(unit) >= 2]
    n = sum(len(unit) for unit in pairable)
    if n < 2:
        return None
    observed = 0.0
    for unit in pairable:
        m = len(unit)
        within = sum(_distance(level, a, b) for i, a in enumerate(unit) for j, b in enumerate(unit) if i != j)
        observed += within / (m - 1)
    observed /= n
    counts = Counter(value for unit in pairable for value in unit)
    values = list(counts)
    expected = sum(
        counts[a] * counts[b] * _distance(level, a, b) for i, a in enumerate(values) for b in values[i + 1 :]
    )
    expected = 2 * expected / (n * (n - 1))
    if expected == 0:
        return None
    return 1.0 - observed / expected


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def majority(keys: Sequence[V]) -> V | None:
    """The value most verdicts share; None when two values tie for the most (no majority)."""
    ranked = Counter(keys).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]
