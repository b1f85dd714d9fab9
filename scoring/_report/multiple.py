"""Every pair of models, tested as one family: paired differences whose verdicts are corrected for the
many comparisons a table of N models makes (N(N−1)/2 of them).

For each pair and each scope (a dataset both answered, and ``overall`` over the shared datasets):

- the **difference** a − b in points (0–100 scale) on the records both answered, as the paired
  differences of :mod:`scoring._report.models` give it;
- a **paired t-test** on the per-record differences. Its standard deviation is smoothed as the report's
  intervals are: half a pseudo-record at −1 and at +1 (one record in all), so 4 records on which A beat B
  every time do not yield a zero variance and certainty. ``overall`` combines the datasets with the
  weights of model a's overall (a stratified test; degrees of freedom: the records less one per dataset);
- the **Holm-adjusted p-value** within the scope's family (the pairs of models sharing that scope): a
  pair is ``distinguishable`` when it is below ``ALPHA`` (0.05), which keeps the chance of calling any
  one of the family's pairs different by accident under 5 %;
- a **corrected interval**: the t interval at level 1 − ALPHA/m (Bonferroni, m pairs in the family), so
  that all m intervals hold their true differences together at least 95 % of the time. Holm rejects at
  least what Bonferroni rejects: a distinguishable pair's interval may, rarely, touch 0;
- the **minimum detectable difference** of the pair on that scope (:mod:`scoring._report.power`): a pair
  that is not distinguishable and whose difference is below it is flagged ``set too small to tell``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypedDict

from scoring._report.aggregate import Aggregate
from scoring._report.distributions import t_quantile, t_sf
from scoring._report.intervals import Interval
from scoring._report.paired import paired_values
from scoring._report.power import ALPHA, min_detectable_difference
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
    interval: Interval | None  # Bonferroni-corrected, points
    p: float | None
    p_adjusted: float | None
    min_detectable: float | None
    family: int
    sd: float | None = None  # the smoothed paired standard deviation (0–1), per dataset

    @property
    def distinguishable(self) -> bool:
        return self.p_adjusted is not None and self.p_adjusted < ALPHA

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


def _dataset_estimate(diffs: Sequence[float]) -> _Estimate:
    n, mean, sd, se = paired_moments(diffs)
    return _Estimate(n, mean, se, max(n - 1, 1), min_detectable_difference(n, sd), sd)


def _overall_estimate(parts: Sequence[tuple[float, _Estimate]]) -> _Estimate:
    total = sum(w for w, _ in parts)
    mean = sum(w * e.mean for w, e in parts) / total
    variance = sum(((w / total) * e.se) ** 2 for w, e in parts)
    df = float(max(1, sum(e.records - 1 for _, e in parts)))
    se = math.sqrt(variance)
    mdd = None
    if df >= 1:
        mdd = round(min(200.0, 100.0 * (t_quantile(1 - ALPHA / 2, df) + t_quantile(0.8, df)) * se), 2)
    return _Estimate(sum(e.records for _, e in parts), mean, se, max(df, 1.0), mdd)


def _p_value(e: _Estimate) -> float:
    if e.se <= 0:
        return 1.0 if e.mean == 0 else 0.0
    return min(1.0, 2 * t_sf(abs(e.mean) / e.se, e.df))


def pair_tests(models: Mapping[str, Aggregate]) -> list[PairTest]:
    """Every pair of models on every shared dataset and overall, each scope a family corrected by Holm."""
    raw: list[tuple[str, str, str, _Estimate]] = []
    for (name_a, a), (name_b, b) in combinations(models.items(), 2):
        weights = a.weights()
        parts: list[tuple[float, _Estimate]] = []
        for dataset in a.datasets:
            if dataset not in b.datasets:
                continue
            diffs = paired_values(a, b, dataset)
            if not diffs:
                continue
            estimate = _dataset_estimate(diffs)
            raw.append((name_a, name_b, dataset, estimate))
            if dataset in weights:
                parts.append((weights[dataset], estimate))
        if len(parts) > 1:
            raw.append((name_a, name_b, "overall", _overall_estimate(parts)))
    families: dict[str, list[int]] = {}
    for index, (_, _, scope, _) in enumerate(raw):
        families.setdefault(scope, []).append(index)
    out: list[PairTest | None] = [None] * len(raw)
    for members in families.values():
        pvalues = [_p_value(raw[i][3]) for i in members]
        m = len(members)
        for i, p, adjusted in zip(members, pvalues, holm(pvalues), strict=True):
            name_a, name_b, scope, e = raw[i]
            difference = round(100 * e.mean, 2)
            half = 100 * t_quantile(1 - ALPHA / (2 * m), e.df) * e.se
            interval = Interval(
                round(max(-100.0, min(difference, 100 * e.mean - half)), 2),
                round(min(100.0, max(difference, 100 * e.mean + half)), 2),
                "t-bonferroni",
            )
            out[i] = PairTest(name_a, name_b, scope, e.records, difference, interval, p, adjusted, e.mdd, m, e.sd)
    return [t for t in out if t is not None]


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
