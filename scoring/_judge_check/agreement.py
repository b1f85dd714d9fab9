"""How far a judge agrees with people: raw agreement, Cohen's κ with a bootstrap interval, the confusion
matrix, and whether the judge's error grows with the answer's length.

κ compares the observed agreement with the agreement two raters with the same label frequencies would
reach by chance: ``κ = 1 − Σ w·O / Σ w·E`` over the cells of the confusion matrix (``O`` observed,
``E`` the product of the margins), ``w`` the disagreement weight of a cell. Verdicts on an ordinal
scale (0–2, 1–10) use quadratic weights (``w = (a − b)² / (max − min)²``: a near miss costs less than
a far one); categories (pairwise win/tie/loss) are unweighted (``w = 1`` off the diagonal). With these
weights κ is Cohen's (1960, 1968); with two labels and unweighted, it equals the two raters' Cohen's κ
any statistics package gives. The 95 % interval resamples the pairs (percentile bootstrap, seeded: the
same data give the same interval); so do the intervals of the length correlation and of position bias.

Position bias: of the comparisons asked in both orders, the share that flip, and toward which side (the first
position: the model's response did better shown first); lean = (toward first − toward second) / pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = ["Agreement", "Label", "Weights", "agreement", "cohen_kappa", "pearson", "position_bias"]

Label = float | str
Weights = Literal["quadratic", "none"]

#: Pairwise outcomes in the order the confusion matrix lists them.
_OUTCOMES = ("win", "tie", "loss")


@dataclass(frozen=True)
class Agreement:
    """What :func:`agreement` measured on ``n`` pairs (judge verdict, human label)."""

    n: int
    agreement: float | None
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    weights: Weights
    #: judge verdict → human label → count, each label as text (``"2"``, ``"win"``).
    confusion: dict[str, dict[str, int]]
    #: Pearson's r of (judge − human) with the answer's length in characters (None: not defined).
    length_correlation: float | None
    #: Its 95 % bootstrap interval (None: not defined).
    length_correlation_ci: tuple[float, float] | None = None


def _interval(values: Sequence[float]) -> tuple[float, float] | None:
    return None if not len(values) else (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))


def position_bias(flips: Sequence[bool], sides: Sequence[float], *, seed: int = 0, resamples: int = 1000) -> Any:
    """``flips``: each comparison's orders disagreed; ``sides``: it leaned to the first position (+1) or the second
    (−1): counts, ``flip_rate`` and ``lean`` with their bootstrap intervals, for JSON; None: no comparison."""
    n = len(flips)
    if n == 0:
        return None
    flip = np.asarray(flips, dtype=float)
    side = np.sign(np.asarray(sides, dtype=float)) * flip
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    out: dict[str, Any] = {"pairs": n, "flipped": int(flip.sum())}
    out |= {"toward_first": int((side > 0).sum()), "toward_second": int((side < 0).sum())}
    for key, values in (("flip_rate", flip), ("lean", side)):
        ci = _interval(values[draws].mean(axis=1)) if n > 1 else None
        out |= {key: round(float(values.mean()), 4), f"{key}_ci": None if ci is None else [round(v, 4) for v in ci]}
    return out


def _categories(labels: Sequence[Label]) -> list[Label]:
    values = set(labels)
    if all(isinstance(v, str) for v in values):
        known: list[Label] = [o for o in _OUTCOMES if o in values]
        return known + sorted(str(v) for v in values if v not in _OUTCOMES)
    return sorted(float(v) for v in values)


def _weights(categories: list[Label], weights: Weights) -> np.ndarray:
    k = len(categories)
    if weights == "quadratic" and k > 1:
        values = np.array([float(c) for c in categories])
        span = float(values.max() - values.min())
        return np.asarray((values[:, None] - values[None, :]) ** 2 / span**2)
    return np.asarray(1.0 - np.eye(k))


def _kappa_of(counts: np.ndarray, w: np.ndarray) -> float | None:
    """κ of a k×k count matrix (rows judge, columns human); None when chance agreement is total."""
    total = counts.sum()
    if total == 0:
        return None
    observed = counts / total
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    chance = float((w * expected).sum())
    if chance == 0:
        return None
    return 1.0 - float((w * observed).sum()) / chance


def _matrix(judge: np.ndarray, human: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(judge * k + human, minlength=k * k).reshape(k, k).astype(float)


def cohen_kappa(judge: Sequence[Label], human: Sequence[Label], weights: Weights = "none") -> float | None:
    """Cohen's κ of two raters' labels, paired by position (``weights``: ``quadratic`` for an ordinal
    scale, ``none`` for categories); None when it is not defined (fewer than two labels in all)."""
    categories = _categories([*judge, *human])
    index = {c: i for i, c in enumerate(categories)}
    a = np.array([index[_key(v)] for v in judge], dtype=np.int64)
    b = np.array([index[_key(v)] for v in human], dtype=np.int64)
    return _kappa_of(_matrix(a, b, len(categories)), _weights(categories, weights))


def _key(value: Label) -> Label:
    return value if isinstance(value, str) else float(value)


def _text(value: Label) -> str:
    if isinstance(value, str):
        return value
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; None with fewer than three pairs or when either side does not vary."""
    if len(xs) < 3:
        return None
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    dx, dy = x - x.mean(), y - y.mean()
    den = math.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    return None if den == 0 else float((dx * dy).sum()) / den


def _signed(value: Label) -> float:
    """A verdict as a number for the difference judge − human: pairwise win 1, tie 0, loss −1."""
    if isinstance(value, str):
        return {"win": 1.0, "tie": 0.0, "loss": -1.0}.get(value, 0.0)
    return float(value)


def agreement(
    judge: Sequence[Label],
    human: Sequence[Label],
    lengths: Sequence[int] | None = None,
    *,
    weights: Weights,
    seed: int = 0,
    resamples: int = 1000,
) -> Agreement:
    """Agreement of ``judge``'s verdicts with ``human``'s labels (paired by position), the interval of κ
    from ``resamples`` bootstrap resamples seeded with ``seed``, and the correlation of (judge − human)
    with ``lengths`` (each answer's length) when given."""
    n = len(judge)
    categories = _categories([*judge, *human])
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    a = np.array([index[_key(v)] for v in judge], dtype=np.int64)
    b = np.array([index[_key(v)] for v in human], dtype=np.int64)
    w = _weights(categories, weights)
    kappa = _kappa_of(_matrix(a, b, k), w) if n else None
    interval = None
    if kappa is not None and n > 1:
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, n, size=(resamples, n))
        cells = a[draws] * k + b[draws]
        values = []
        for row in cells:
            value = _kappa_of(np.bincount(row, minlength=k * k).reshape(k, k).astype(float), w)
            if value is not None:
                values.append(value)
        interval = _interval(values)
    counts = _matrix(a, b, k)
    confusion = {
        _text(categories[i]): {_text(categories[j]): int(counts[i, j]) for j in range(k) if counts[i, j]}
        for i in range(k)
        if counts[i].any()
    }
    correlation = correlation_ci = None
    if lengths is not None:
        errors = [_signed(x) - _signed(y) for x, y in zip(judge, human, strict=True)]
        correlation = pearson(errors, lengths)
        correlation_ci = None if correlation is None else _correlation_interval(errors, lengths, seed, resamples)
    return Agreement(
        n=n,
        agreement=sum(x == y for x, y in zip(a, b, strict=True)) / n if n else None,
        kappa=kappa,
        kappa_ci=interval,
        weights=weights,
        confusion=confusion,
        length_correlation=correlation,
        length_correlation_ci=correlation_ci,
    )


def _correlation_interval(xs: Sequence[float], ys: Sequence[int], seed: int, resamples: int) -> Any:
    """The 95 % bootstrap interval of Pearson's r of ``xs`` and ``ys`` (a resample not varying: left out)."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    draws = np.random.default_rng(seed).integers(0, len(x), size=(resamples, len(x)))
    dx = x[draws] - x[draws].mean(axis=1, keepdims=True)
    dy = y[draws] - y[draws].mean(axis=1, keepdims=True)
    den = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    return _interval(list((dx * dy).sum(axis=1)[den > 0] / den[den > 0]))
