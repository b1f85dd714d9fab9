"""How big a difference a dataset can detect: the minimum detectable difference of a paired test.

For a paired comparison of two models on ``n`` records whose per-record differences have standard
deviation ``sd`` (0–1 scale), the two-sided paired t-test at level ``ALPHA`` detects a true difference
``delta`` with probability ``POWER`` when

    delta = (t(1 - ALPHA/2, n - 1) + t(POWER, n - 1)) * sd / sqrt(n)

(the usual closed form; with many records the t quantiles become the normal's, 1.96 + 0.84 = 2.80).
A difference smaller than this is one the set is too small to tell from noise: the report says so
instead of ranking on it. ``sd`` is the observed paired standard deviation, smoothed as the intervals
are (:func:`scoring._report.figures.multiple.paired_moments`), so a set where the two models never differ still
has a width its size justifies.
"""

from __future__ import annotations

import math

from scoring._report.figures.distributions import t_quantile

__all__ = ["ALPHA", "POWER", "SCALE", "capped", "min_detectable_difference"]

ALPHA = 0.05
POWER = 0.80
#: The largest difference there is on the 0–100 scale: a detectable difference above it is "more than the
#: scale" (no gap the set could show would be found), reported as the scale itself.
SCALE = 100.0


def capped(points: float) -> float:
    """A detectable difference in points, at most :data:`SCALE`, to 2 decimals."""
    return round(min(SCALE, points), 2)


def min_detectable_difference(n: int, sd: float, *, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """The smallest true difference (0–100 points) a paired test on ``n`` records with paired standard
    deviation ``sd`` (0–1) detects with probability ``power`` at two-sided level ``alpha``; None below
    two records."""
    if n < 2:
        return None
    df = float(n - 1)
    factor = t_quantile(1 - alpha / 2, df) + t_quantile(power, df)
    return capped(100.0 * factor * sd / math.sqrt(n))
