"""The records two models both answered, paired: per-record differences on one dataset, and each
question's scores by model (what the paired differences, the pair tests and the ratings read)."""

from __future__ import annotations

from collections.abc import Iterable

from scoring._report.figures.aggregate import Aggregate, DatasetStats

__all__ = ["occurrences", "paired_values", "values_by_question"]


def occurrences(keys: Iterable[int]) -> list[tuple[int, int]]:
    """Keys made unique by their occurrence (the same item twice in a file pairs in order)."""
    seen: dict[int, int] = {}
    out = []
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
        out.append((key, seen[key]))
    return out


def values_by_question(stats: DatasetStats) -> dict[tuple[int, int], float]:
    """Each scored record's 0–1 value (a pairwise dataset's win rate) by its question."""
    return dict(zip(occurrences(stats.keys), stats.dimension_values(), strict=False))


def paired_values(a: Aggregate, b: Aggregate, name: str) -> list[float]:
    """Per-record differences a − b (0–1) on the records of dataset ``name`` both scored."""
    sa, sb = a.datasets[name], b.datasets[name]
    theirs = values_by_question(sb)
    return [
        value - theirs[key]
        for key, value in zip(occurrences(sa.keys), sa.dimension_values(), strict=False)
        if key in theirs
    ]
