"""Every pair of models, tested as one family: paired differences whose verdicts are corrected for the
many comparisons a table of N models makes (N(N−1)/2 of them).

For each pair and each scope (a dataset both answered, and ``overall`` over the shared datasets):

- the **difference** a − b in points (0–100 scale) on the records both answered, as the paired
  differences of :mod:`scoring._report.figures.models` give it;
- a **paired t-test** on the per-record differences. Its standard deviation is smoothed as the report's
  intervals are: half a pseudo-record at −1 and at +1 (one record in all), so 4 records on which A beat B
  every time do not yield a zero variance and certainty. ``overall`` combines the datasets with the
  weights of model a's overall (a stratified test; degrees of freedom: the records less one per dataset);
- a **corrected interval**: the t interval at level 1 − ALPHA/m (Bonferroni, m pairs in the scope's
  family: the pairs of models sharing that scope), so that all m intervals hold their true differences
  together at least 95 % of the time; its ends are rounded outward to 2 decimals;
- **distinguishable** exactly when that interval, as printed, leaves out 0; the **adjusted p-value** is
  Bonferroni's (m · p, at most 1), the same procedure: it is below ``ALPHA`` exactly when the exact
  interval leaves out 0. One procedure for both, so that no pair is called distinguishable while its
  interval holds 0. Holm's step-down test rejects a little more, but its compatible simultaneous intervals
  (Strassburger and Bretz) give a rejected pair only a one-sided bound at 0 — no interval a reader can use;
  :func:`holm` stays for the users who call it;
- the **minimum detectable difference** of the pair on that scope (:mod:`scoring._report.figures.power`): a pair
  that is not distinguishable and whose difference is below it is flagged ``set too small to tell``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypedDict

from scoring._report.figures.aggregate import Aggregate
from scoring._report.figures.distributions import t_quantile, t_sf, t_sf_many
from scoring._report.figures.grid import Grid, grid_of
from scoring._report.figures.intervals import Interval
from scoring._report.figures.power import ALPHA, POWER, capped, min_detectable_difference
from scoring._report.words import DEFAULT_LANG, say

__all__ = [
    "ALPHA",
    "DISTINGUISHABLE",
    "NOT_DISTINGUISHABLE",
    "PAIRS_NOTE",
    "TOO_SMALL",
    "VERDICT_WORDS",
    "DatasetPower",
    "PairSummary",
    "PairTest",
    "dataset_power",
    "holm",
    "pair_tests",
    "paired_moments",
    "pairs_note",
]

DISTINGUISHABLE = "distinguishable"
TOO_SMALL = "set too small to tell"
NOT_DISTINGUISHABLE = "not distinguishable"
#: A verdict's words (``report.cell.<key>``) in the text and Markdown reports; the JSON says the verdict as it is.
VERDICT_WORDS = {DISTINGUISHABLE: "distinguishable", TOO_SMALL: "too_small", NOT_DISTINGUISHABLE: "not_distinguishable"}


def pairs_note(lang: str = DEFAULT_LANG) -> str:
    """How the pairs are tested (a note of the report; the JSON's ``pairs_note`` in English)."""
    return say("note.pairs", lang, alpha=ALPHA)


PAIRS_NOTE = pairs_note()


class PairSummary(TypedDict):
    """One pair in the report's JSON ``pairs``."""

    a: str
    b: str
    scope: str
    records: int
    difference: float
    ci: list[float] | None
    p: float | None
    p_adjusted: float | None
    distinguishable: bool
    min_detectable_difference: float | None
    verdict: str
    family: int


@dataclass(frozen=True)
class PairTest:
    """``a`` minus ``b`` on one scope, tested within its family of ``family`` pairs."""

    a: str
    b: str
    scope: str
    records: int
    difference: float  # points, a − b
    interval: Interval | None  # Bonferroni-corrected, points, rounded outward
    p: float | None
    p_adjusted: float | None
    min_detectable: float | None
    family: int
    sd: float | None = None  # the smoothed paired standard deviation (0–1), per dataset
    se: float | None = None  # the difference's standard error (0–1)

    @property
    def distinguishable(self) -> bool:
        """Exactly when the corrected interval (as printed) leaves out 0."""
        return self.interval is not None and (self.interval.low > 0 or self.interval.high < 0)

    @property
    def verdict(self) -> str:
        if self.distinguishable:
            return DISTINGUISHABLE
        if self.min_detectable is None or abs(self.difference) < self.min_detectable:
            return TOO_SMALL
        return NOT_DISTINGUISHABLE

    def to_dict(self) -> PairSummary:
        return {
            "a": self.a,
            "b": self.b,
            "scope": self.scope,
            "records": self.records,
            "difference": self.difference,
            "ci": self.interval.as_list() if self.interval else None,
            "p": self.p,
            "p_adjusted": self.p_adjusted,
            "distinguishable": self.distinguishable,
            "min_detectable_difference": self.min_detectable,
            "verdict": self.verdict,
            "family": self.family,
        }


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest p times (m − i + 1), made monotone, at most 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def paired_moments(diffs: Sequence[float]) -> tuple[int, float, float, float]:
    """``n``, the mean, the smoothed standard deviation and the standard error of per-record differences
    (−1..1). Half a pseudo-record at −1 and at +1 enter the spread (never zero), not the mean: with the
    records' total weight W = n + 1, the variance is their weighted variance and the standard error its
    square root over W + 1, exactly the spread of the report's smoothed Bayesian bootstrap of the mean
    (for many records, the usual s / sqrt(n))."""
    n = len(diffs)
    mean = sum(diffs) / n if n else 0.0
    weight = n + 1
    smooth = sum(diffs) / weight
    squares = sum((d - smooth) ** 2 for d in diffs) + 0.5 * (-1 - smooth) ** 2 + 0.5 * (1 - smooth) ** 2
    variance = squares / weight
    return n, mean, math.sqrt(variance), math.sqrt(variance / (weight + 1))


@dataclass(frozen=True)
class _Estimate:
    records: int
    mean: float  # 0–1 scale
    se: float
    df: float
    mdd: float | None
    sd: float | None = None
    p: float = 1.0


def _overall_estimate(parts: Sequence[tuple[float, _Estimate]]) -> _Estimate:
    total = sum(w for w, _ in parts)
    mean = sum(w * e.mean for w, e in parts) / total
    variance = sum(((w / total) * e.se) ** 2 for w, e in parts)
    df = float(max(1, sum(e.records - 1 for _, e in parts)))
    se = math.sqrt(variance)
    mdd = capped(100.0 * (t_quantile(1 - ALPHA / 2, df) + t_quantile(POWER, df)) * se)
    p = 1.0 if se <= 0 and mean == 0 else 0.0 if se <= 0 else min(1.0, 2 * t_sf(abs(mean) / se, df))
    return _Estimate(sum(e.records for _, e in parts), mean, se, df, mdd, None, p)


def _dataset_estimates(grid: Grid) -> dict[tuple[int, int], _Estimate]:
    """Every pair (i < j) of the grid's models that scored a question in common: :func:`paired_moments` of
    its per-record differences and its two-sided p, computed for all pairs at once from the grid's sums."""
    import numpy as np

    sums = grid.sums()
    n = sums.count
    weight = n + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, sums.total / np.maximum(n, 1), 0.0)
        smooth = sums.total / weight
        squares = sums.squares - 2 * smooth * sums.total + n * smooth**2
        squares += 0.5 * (-1 - smooth) ** 2 + 0.5 * (1 - smooth) ** 2
        variance = squares / weight
        sd = np.sqrt(variance)
        se = np.sqrt(variance / (weight + 1))
        df = np.maximum(n - 1, 1)
        p = np.minimum(1.0, 2 * t_sf_many(np.abs(mean) / se, df))
    rows, cols = np.nonzero(np.triu(n > 0, k=1))
    out: dict[tuple[int, int], _Estimate] = {}
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        count = int(n[i, j])
        mdd = min_detectable_difference(count, float(sd[i, j]))
        spread = float(sd[i, j])
        out[i, j] = _Estimate(count, float(mean[i, j]), float(se[i, j]), float(df[i, j]), mdd, spread, float(p[i, j]))
    return out


def _outward(value: float, up: bool) -> float:
    """``value`` rounded to 2 decimals away from the interval's inside: a rounded interval holds what the
    exact one holds (the 1e-9 keeps 0.29 × 100 from flooring to 28)."""
    scaled = value * 100
    return (math.ceil(scaled - 1e-9) if up else math.floor(scaled + 1e-9)) / 100


def _test(name_a: str, name_b: str, scope: str, e: _Estimate, m: int) -> PairTest:
    """The pair's Bonferroni interval (level 1 − ALPHA/m) and adjusted p (m·p): one procedure for both."""
    difference = round(100 * e.mean, 4)
    half = 100 * t_quantile(1 - ALPHA / (2 * m), e.df) * e.se
    low = _outward(max(-100.0, min(difference, difference - half)), up=False)
    high = _outward(min(100.0, max(difference, difference + half)), up=True)
    interval = Interval(low, high, "t-bonferroni")
    adjusted = min(1.0, m * e.p)
    return PairTest(name_a, name_b, scope, e.records, difference, interval, e.p, adjusted, e.mdd, m, e.sd, e.se)


def pair_tests(models: Mapping[str, Aggregate]) -> list[PairTest]:
    """Every pair of models on every shared dataset and overall, each scope a family of m pairs corrected by
    Bonferroni (interval and verdict alike)."""
    names = list(models)
    index = {name: i for i, name in enumerate(names)}
    estimates: dict[str, dict[tuple[int, int], _Estimate]] = {}
    rows: dict[str, dict[int, int]] = {}
    datasets = dict.fromkeys(d for agg in models.values() for d in agg.datasets)
    for dataset in datasets:
        grid = grid_of(models, dataset)
        if grid is not None and len(grid.names) > 1:
            estimates[dataset] = _dataset_estimates(grid)
            rows[dataset] = {index[name]: k for k, name in enumerate(grid.names)}
    raw: list[tuple[str, str, str, _Estimate]] = []
    for (ia, name_a), (ib, name_b) in combinations(enumerate(names), 2):
        weights = models[name_a].weights()
        parts: list[tuple[float, _Estimate]] = []
        for dataset in models[name_a].datasets:
            row = rows.get(dataset, {})
            estimate = estimates[dataset].get((row[ia], row[ib])) if ia in row and ib in row else None
            if estimate is None:
                continue
            raw.append((name_a, name_b, dataset, estimate))
            if dataset in weights:
                parts.append((weights[dataset], estimate))
        if len(parts) > 1:
            raw.append((name_a, name_b, "overall", _overall_estimate(parts)))
    family = Counter(scope for _, _, scope, _ in raw)
    return [_test(a, b, scope, e, family[scope]) for a, b, scope, e in raw]


class DatasetPower(TypedDict):
    """What one dataset can tell apart: its paired records, the pooled paired standard deviation over
    its pairs of models, the smallest difference it detects (points) and its pairs too close to tell."""

    records: int
    paired_sd: float
    min_detectable_difference: float | None
    pairs: int
    too_small: int
    largest_difference: float


def dataset_power(tests: Sequence[PairTest]) -> dict[str, DatasetPower]:
    """Per dataset: ``min_detectable_difference`` from its typical n (the median over its pairs) and the
    root-mean-square of its pairs' paired standard deviations."""
    by_dataset: dict[str, list[PairTest]] = {}
    for test in tests:
        if test.scope != "overall" and test.sd is not None:
            by_dataset.setdefault(test.scope, []).append(test)
    out: dict[str, DatasetPower] = {}
    for name, members in by_dataset.items():
        counts = sorted(t.records for t in members)
        n = counts[len(counts) // 2]
        sd = math.sqrt(sum((t.sd or 0.0) ** 2 for t in members) / len(members))
        out[name] = {
            "records": n,
            "paired_sd": round(sd, 4),
            "min_detectable_difference": min_detectable_difference(n, sd),
            "pairs": len(members),
            "too_small": sum(t.verdict == TOO_SMALL for t in members),
            "largest_difference": max(abs(t.difference) for t in members),
        }
    return out
