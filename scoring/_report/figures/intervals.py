"""95 % confidence intervals for report scores, on the 0–100 scale.

An interval must never claim more certainty than its records give: 4 all-right records are not
``[100, 100]``, and a dimension or overall made of small datasets carries their uncertainty.

- A dataset whose records all scored 0 or 1 (choice, exact, most judges' right/wrong) gets the **Wilson**
  score interval: it stays inside 0–100 and keeps an honest width at 0 % and 100 % (4 of 4 → [51, 100]),
  where the normal approximation collapses to a point.
- Any other mean (partial credit, averages over samples, pairwise values) and every mean of several
  datasets (a dimension, overall, stratified: each dataset is drawn on its own and the draws are combined
  with the aggregate's weights) gets a **smoothed Bayesian bootstrap** (Rubin 1981) over records: each
  resample weighs the records with Dirichlet(1, …, 1) weights, plus *half a pseudo-record at each end of
  the scale* (0 and 1; −1 and 1 for pairwise values and paired differences), and the interval is the
  central 95 % of the resampled means. ``RESAMPLES`` resamples with a fixed seed per dataset: a report is
  reproducible to the digit.

Why this one. The plain percentile bootstrap resamples only the values it saw: a stratum without
variance (all right, all wrong, every record 0.5) resamples to the same mean every time and adds zero
width, so 4 all-right records looked as certain as 4,000. The two pseudo-records say "any score on the
scale was possible" with the weight of one record in all: with 0/1 records the resampled mean is then
exactly the Jeffreys posterior Beta(s + ½, n − s + ½), whose interval is close to Wilson's (4 of 4 →
[53.1, 100] against Wilson's [51.0, 100]; 400 of 400 → [99.3, 100]; 30 of 60 → [37.8, 62.3], as
Wilson), and with partial credit it is the same rule over the values seen, so a 0.83 from seed 003's
worked example is treated like any other value rather than forced to 0/1. Its influence shrinks as 1/n:
on 30 records with some variance it moves an interval's ends by 0.3–1.5 points. A t-interval with a floor would need
an arbitrary floor and leaves 0–100; Wilson alone cannot take partial credit or combine strata. An
interval always holds its point estimate (a percentile of 99.99 for an all-right stratum shows as 100).
- A paired difference (two models, the same records) resamples the records' differences the same way.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported where an interval is computed, not when the CLI starts
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
else:
    FloatArray = Any

__all__ = [
    "LEVEL",
    "PSEUDO",
    "RESAMPLES",
    "SEED",
    "SMALL_N",
    "Interval",
    "bootstrap_means",
    "is_binary",
    "percentile_interval",
    "seed_for",
    "wilson",
]

LEVEL = 0.95
RESAMPLES = 1000
SEED = 20_240_601
#: Datasets with fewer scored records than this are flagged in the report (a rule of thumb: below it the
#: interval is wide and one record moves the score by more than 3 points).
SMALL_N = 30
_Z = 1.959963984540054  # the 97.5 % quantile of the standard normal
#: Indices drawn per chunk, so a 100,000-record dataset does not allocate RESAMPLES x n at once.
_CHUNK = 2_000_000
#: Beyond this many distinct values they are rounded to 1e-4 (at most 20,001 on −1..1) before drawing.
_MAX_LEVELS = 2_000


@dataclass(frozen=True)
class Interval:
    """``low``..``high`` on 0–100, and the method that gave it (``wilson`` or ``bootstrap``)."""

    low: float
    high: float
    method: str

    def as_list(self) -> list[float]:
        return [self.low, self.high]


def is_binary(values: Sequence[float]) -> bool:
    return all(v == 0.0 or v == 1.0 for v in values)


def seed_for(name: str) -> int:
    """The bootstrap seed of a dataset: fixed, and different per dataset so strata resample independently."""
    return SEED + zlib.crc32(name.encode("utf-8", "surrogatepass"))


def wilson(successes: float, n: int) -> Interval | None:
    """Wilson score interval of ``successes`` out of ``n`` (None without data), as percentages."""
    if n <= 0:
        return None
    p = successes / n
    z2 = _Z * _Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Interval(round(100 * max(0.0, centre - half), 2), round(100 * min(1.0, centre + half), 2), "wilson")


#: The weight of the pseudo-record at each end of the scale (½ + ½: one record in all; Jeffreys for 0/1).
PSEUDO = 0.5


def bootstrap_means(values: Sequence[float], seed: int = SEED, bounds: tuple[float, float] = (0.0, 1.0)) -> FloatArray:
    """``RESAMPLES`` smoothed Bayesian-bootstrap means of ``values`` (see the module docstring): Dirichlet
    weights over the values and half a pseudo-value at each of ``bounds`` (a fixed seed: reproducible).

    Scores take few distinct values (0/1, halves, two decimals): the records sharing a value get their
    summed weight in one Gamma draw (the Dirichlet's aggregation property), so the cost grows with the
    number of distinct values, not with n; many distinct values are rounded to 1e-4 and drawn in chunks."""
    import numpy as np

    data = np.asarray(values, dtype=np.float64)
    if len(data) == 0:
        return np.full(RESAMPLES, np.nan)
    rng = np.random.default_rng(seed)
    levels, counts = np.unique(np.concatenate([data, np.asarray(bounds, dtype=np.float64)]), return_counts=True)
    if len(levels) > _MAX_LEVELS:  # values on 1e-4 steps: a mean moves by < 0.005 points, far below the noise
        levels, counts = np.unique(np.concatenate([np.round(data, 4), np.asarray(bounds)]), return_counts=True)
    shape = counts.astype(np.float64)
    for bound in set(bounds):  # each bound was added once above: it weighs PSEUDO, not 1
        shape[np.searchsorted(levels, bound)] -= 1 - PSEUDO
    out = np.empty(RESAMPLES, dtype=np.float64)
    step = max(1, _CHUNK // len(levels))
    for start in range(0, RESAMPLES, step):
        count = min(step, RESAMPLES - start)
        weights = rng.gamma(shape, size=(count, len(levels)))
        out[start : start + count] = weights @ levels / weights.sum(axis=1)
    return out


def percentile_interval(means: FloatArray, scale: float = 100.0, point: float | None = None) -> Interval | None:
    """The central 95 % of resampled ``means`` (times ``scale``), widened to hold ``point`` (on the same
    0–100 scale) when given; None when there were no data."""
    import numpy as np

    if means.size == 0 or bool(np.isnan(means).any()):
        return None
    tail = (1 - LEVEL) / 2 * 100
    low, high = (round(float(v) * scale, 2) for v in np.percentile(means, [tail, 100 - tail]))
    if point is not None:
        low, high = min(low, point), max(high, point)
    return Interval(low, high, "bootstrap")
