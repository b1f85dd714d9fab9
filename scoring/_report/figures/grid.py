"""One dataset's scores as a grid: models × questions, with which cells were scored. The pair tests and the
ratings read every pair of models at once from it by matrix products (a table of 400 models has 79,800
pairs: one pass per pair over the records was 181 s and 2.1 GB when issue 40 was filed)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scoring._report.figures.aggregate import Aggregate
from scoring._report.figures.paired import values_by_question

if TYPE_CHECKING:
    import numpy.typing as npt

    FloatArray = npt.NDArray[Any]
else:
    FloatArray = Any

__all__ = ["Grid", "PairSums", "grid_of"]


@dataclass(frozen=True)
class Grid:
    """``values[i, q]``: model ``names[i]``'s 0–1 value on question ``keys[q]`` (0 where ``scored`` is 0)."""

    names: list[str]
    keys: list[tuple[int, int]]
    values: FloatArray
    scored: FloatArray  # 1.0 where the model scored the question, else 0.0
    complete: bool = False  # every model scored every question

    def sums(self, weights: FloatArray | None = None) -> PairSums:
        """Per pair (i, j), over the questions both scored (each weighted by ``weights``): their count, the
        sum of the differences i − j and the sum of their squares."""
        m, s = self.scored, self.values * self.scored
        mw, sw = (m, s) if weights is None else (m * weights, s * weights)
        count = mw @ m.T
        cross = sw @ m.T  # Σ s_i over the questions both scored
        squares = (sw * self.values) @ m.T
        return PairSums(count, cross - cross.T, squares + squares.T - 2 * (sw @ s.T))


@dataclass(frozen=True)
class PairSums:
    count: FloatArray
    total: FloatArray  # Σ (v_i − v_j)
    squares: FloatArray  # Σ (v_i − v_j)²


def grid_of(models: Mapping[str, Aggregate], dataset: str, *, pairwise: bool | None = None) -> Grid | None:
    """The grid of ``dataset`` over the models that have it (only its pairwise or rule-scored results when
    ``pairwise`` says which); None when fewer than one model has it."""
    import numpy as np

    columns: dict[tuple[int, int], int] = {}
    rows: list[tuple[str, dict[tuple[int, int], float]]] = []
    for name, agg in models.items():
        stats = agg.datasets.get(dataset)
        if stats is None or (pairwise is not None and stats.is_pairwise != pairwise):
            continue
        values = values_by_question(stats)
        for key in values:
            columns.setdefault(key, len(columns))
        rows.append((name, values))
    if not rows:
        return None
    grid = np.zeros((len(rows), len(columns)))
    scored = np.zeros((len(rows), len(columns)))
    for i, (_, values) in enumerate(rows):
        where = np.fromiter((columns[k] for k in values), dtype=np.int64, count=len(values))
        grid[i, where] = np.fromiter(values.values(), dtype=np.float64, count=len(values))
        scored[i, where] = 1.0
    complete = bool(scored.all())
    return Grid([name for name, _ in rows], list(columns), grid, scored, complete)
