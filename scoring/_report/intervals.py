"""95 % confidence intervals for report scores, on the 0–100 scale.

- A mean of 0/1 scores (choice, exact, most judges' right/wrong) gets the **Wilson** score interval: it
  stays inside 0–100 and behaves at 0 % and 100 %, where the normal approximation collapses.
- Any other mean (partial credit, averages over samples, pairwise values, a mean of dataset means) gets a
  **percentile bootstrap** over records: ``RESAMPLES`` resamples with a fixed seed, so a report is
  reproducible to the digit. Records are resampled inside each dataset (stratified), so a dimension's or
  the overall interval carries every dataset's own uncertainty.
- A paired difference (two models, the same records) resamples the records' differences.
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
#: Up to this many distinct values a resample is drawn as multinomial counts over them.
_MAX_LEVELS = 1000


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


def bootstrap_means(values: Sequence[float], seed: int = SEED) -> FloatArray:
    """``RESAMPLES`` means of ``values`` resampled with replacement (a fixed seed: reproducible).

    Scores take few distinct values (0/1, halves, two decimals), so a resample is drawn as multinomial
    counts over those values — the same distribution as drawing n indices, at a cost that does not grow
    with n; many distinct values fall back to drawing indices, in chunks."""
    import numpy as np

    data = np.asarray(values, dtype=np.float64)
    n = len(data)
    if n == 0:
        return np.full(RESAMPLES, np.nan)
    rng = np.random.default_rng(seed)
    levels, counts = np.unique(data, return_counts=True)
    if len(levels) <= _MAX_LEVELS:
        draws = rng.multinomial(n, counts / n, size=RESAMPLES)
        return np.asarray(draws @ levels / n, dtype=np.float64)
    out = np.empty(RESAMPLES, dtype=np.float64)
    step = max(1, _CHUNK // n)
    for start in range(0, RESAMPLES, step):
        count = min(step, RESAMPLES - start)
        out[start : start + count] = data[rng.integers(0, n, size=(count, n))].mean(axis=1)
    return out


def percentile_interval(means: FloatArray, scale: float = 100.0) -> Interval | None:
    """The central 95 % of bootstrap ``means`` (times ``scale``); None when there were no data."""
    import numpy as np

    if means.size == 0 or bool(np.isnan(means).any()):
        return None
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(round(float(low) * scale, 2), round(float(high) * scale, 2), "bootstrap")
