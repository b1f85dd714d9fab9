"""Bradley–Terry ratings of N models, with bootstrap intervals.

A rating says how likely a model is to beat another on one question: on the **logit scale** used here,
``P(i beats j) = 1 / (1 + exp(r_j − r_i))``, so a lead of 1.0 is about a 73 % chance of winning a
question, 0.1 about 52.5 %. Ratings are centred so that the models' mean is 0.

The battles come from two places, one battle per question and pair:

- **rule-scored sets**: every question two models both answered; ``a`` wins ``(1 + s_a − s_b) / 2`` of
  it (scores on 0–1): right against wrong is a win, both right or both wrong a tie (half each), partial
  credit a fraction;
- **pairwise judge verdicts** (CompassBench's five grades, judged in both orders): the model against
  what it was compared with (the reference answer, or another model's results file: that model when it
  is in the report). The combined verdict counts as the report's win rate does: a win (A++ or A+ for
  the model) 1, a tie (A=B, or orders that cancel) ½ to each side, a loss 0. The reference answer is
  rated too, as an anchor, apart from the models.

The fit is the maximum-likelihood Bradley–Terry model with ties counted as half a win (Newton's method
on the log-likelihood), plus one prior tie between every two players (half a win each way), so a model
that won every battle still has a finite rating; with hundreds of questions the prior moves ratings by
well under 0.01. The interval is the central 95 % of ``RESAMPLES`` refits on questions drawn with
replacement (a fixed seed: reproducible).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from scoring._report.figures.grid import Grid
from scoring._report.words import DEFAULT_LANG, say

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int64]
else:
    FloatArray = Any
    IntArray = Any

__all__ = [
    "PRIOR",
    "RATINGS_NOTE",
    "RESAMPLES",
    "SEED",
    "Battles",
    "Rating",
    "RatingSummary",
    "Ratings",
    "fit_bradley_terry",
    "rate",
    "ratings_note",
]

RESAMPLES = 200
SEED = 20_261_127
#: Prior ties between every two players (half a win each way, one battle in all).
PRIOR = 1.0


def ratings_note(lang: str = DEFAULT_LANG) -> str:
    """How the ratings are fitted (a note of the report; the JSON's ``ratings.note`` in English)."""
    return say("note.ratings", lang, resamples=RESAMPLES)


RATINGS_NOTE = ratings_note()


class RatingSummary(TypedDict):
    rating: float
    ci: list[float] | None
    battles: int


@dataclass(frozen=True)
class Rating:
    name: str
    rating: float
    low: float | None
    high: float | None
    battles: int
    anchor: bool  # not a model: the reference answer, or a file outside the report

    def to_dict(self) -> RatingSummary:
        ci = None if self.low is None or self.high is None else [self.low, self.high]
        return {"rating": self.rating, "ci": ci, "battles": self.battles}


@dataclass
class Ratings:
    """The players by rating, best first; ``sources`` counts the battles from each kind of set."""

    players: list[Rating]
    sources: dict[str, int]
    method: str = "bradley-terry (logit)"
    resamples: int = RESAMPLES
    seed: int = SEED

    def models(self) -> list[Rating]:
        return [p for p in self.players if not p.anchor]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scale": "logit",
            "method": self.method,
            "resamples": self.resamples,
            "seed": self.seed,
            "battles": dict(self.sources),
            "note": RATINGS_NOTE,
        }


@dataclass
class Battles:
    """Battles between named players: each row a question (its unit), two players and the share of it
    the first won (0..1)."""

    players: list[str] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)
    units: list[int] = field(default_factory=list)
    first: list[int] = field(default_factory=list)
    second: list[int] = field(default_factory=list)
    share: list[float] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)
    #: Rule-scored sets as grids (one battle per question and pair of the grid's models, a winning
    #: ``(1 + s_a − s_b) / 2``), each with its players' numbers and its questions' units.
    grids: list[tuple[IntArray, IntArray, Grid]] = field(default_factory=list)
    _ids: dict[str, int] = field(default_factory=dict, repr=False)
    _units: dict[Any, int] = field(default_factory=dict, repr=False)

    def player(self, name: str, *, anchor: bool = False) -> int:
        number = self._ids.get(name)
        if number is None:
            number = self._ids[name] = len(self.players)
            self.players.append(name)
        if anchor:
            self.anchors.add(name)
        return number

    def add(self, unit: Any, a: str, b: str, share: float, source: str, *, b_anchor: bool = False) -> None:
        number = self._units.get(unit)
        if number is None:
            number = self._units[unit] = len(self._units)
        self.units.append(number)
        self.first.append(self.player(a))
        self.second.append(self.player(b, anchor=b_anchor))
        self.share.append(min(1.0, max(0.0, share)))
        self.sources[source] = self.sources.get(source, 0) + 1

    def add_grid(self, dataset: str, grid: Grid) -> None:
        """Every battle of a rule-scored set: each question, each pair of the grid's models that scored it."""
        import numpy as np

        players = np.asarray([self.player(name) for name in grid.names], dtype=np.int64)
        units = np.asarray([self._units.setdefault(("q", dataset, k), len(self._units)) for k in grid.keys])
        self.grids.append((players, units.astype(np.int64), grid))
        pairs = grid.scored @ grid.scored.T
        self.sources["rule"] = self.sources.get("rule", 0) + int((pairs.sum() - np.trace(pairs)) / 2)

    def unit_count(self) -> int:
        return len(self._units)


def _win_matrix(
    battles: Battles, arrays: tuple[IntArray, IntArray, FloatArray, IntArray], drawn: FloatArray
) -> FloatArray:
    """W[i, j]: the battles i won against j, each question weighted by how often the resample ``drawn`` it
    (its units' counts). A grid's: ½ Σ_q w_q m_iq m_jq (1 + s_iq − s_jq), three matrix products."""
    import numpy as np

    n = len(battles.players)
    first, second, share, units = arrays
    weight = drawn[units]
    wins = np.bincount(first * n + second, weights=weight * share, minlength=n * n)
    wins += np.bincount(second * n + first, weights=weight * (1 - share), minlength=n * n)
    out: FloatArray = np.asarray(wins, dtype=np.float64).reshape(n, n)
    for players, grid_units, grid in battles.grids:
        w = drawn[grid_units]
        if grid.complete:  # every model scored every question: Σ_q w_q (1 + s_iq − s_jq) / 2 in n² steps
            a = grid.values @ w
            block = 0.5 * (w.sum() + a[:, None] - a[None, :])
            np.fill_diagonal(block, 0.0)
            out[np.ix_(players, players)] += block
            continue
        m = grid.scored.astype(np.float32)
        s = (grid.values * grid.scored).astype(np.float32)
        mw = m * w.astype(np.float32)
        # float32: counts of a few hundred questions are exact in it, and twice as fast as float64
        block = 0.5 * ((mw + s * w.astype(np.float32)) @ m.T - mw @ s.T).astype(np.float64)
        np.fill_diagonal(block, 0.0)
        out[np.ix_(players, players)] += block
    return out


#: The listed battles as arrays: first player, second player, the share the first won, the unit.
_Listed = tuple[IntArray, IntArray, FloatArray, IntArray]


def fit_bradley_terry(wins: FloatArray, prior: float = PRIOR) -> FloatArray:
    """The maximum-likelihood Bradley–Terry strengths (logit scale, centred on 0) of a win matrix
    (``wins[i, j]``: what i won against j, ties as halves), plus ``prior`` battles between every two
    players split evenly. Newton's method on the log-likelihood with the first strength held at 0."""
    fitted: FloatArray = _fit_many(wins[None, :, :], prior)[0]
    return fitted


#: Newton steps are capped to this size on the logit scale (the log-likelihood is concave: a capped step
#: still climbs, and a far start cannot overshoot into overflow).
_MAX_STEP = 2.0


def _fit_many(wins: FloatArray, prior: float = PRIOR) -> FloatArray:
    """:func:`fit_bradley_terry` for a stack of win matrices at once (shape: resamples × n × n)."""
    import numpy as np

    count, n, _ = wins.shape
    w = wins + prior / 2 * (1 - np.eye(n))[None, :, :]
    games = w + np.transpose(w, (0, 2, 1))
    won = w.sum(axis=2)
    theta = np.zeros((count, n))
    diagonal = np.arange(n)
    for _ in range(200):
        p = 1 / (1 + np.exp(theta[:, None, :] - theta[:, :, None]))  # P(i beats j)
        gradient = won - (games * p).sum(axis=2)
        hessian = games * p * (1 - p)
        hessian[:, diagonal, diagonal] -= hessian.sum(axis=2)
        step = np.zeros((count, n))
        step[:, 1:] = np.linalg.solve(hessian[:, 1:, 1:], -gradient[:, 1:, None])[:, :, 0]
        largest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(largest, 1e-300))
        theta += step
        if float(np.abs(step).max()) < 1e-10:
            break
    centred: FloatArray = theta - theta.mean(axis=1, keepdims=True)
    return centred


def _hessian(wins: FloatArray, theta: FloatArray, prior: float = PRIOR) -> FloatArray:
    """The inverse of minus the log-likelihood's Hessian at ``theta`` (the first strength held)."""
    import numpy as np

    n = len(theta)
    w = wins + prior / 2 * (1 - np.eye(n))
    games = w + w.T
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    h = games * p * (1 - p)
    h[np.arange(n), np.arange(n)] -= h.sum(axis=1)
    inverse: FloatArray = np.linalg.inv(-h[1:, 1:])
    return inverse


def _fit_near(wins: FloatArray, theta: FloatArray, inverse: FloatArray, prior: float = PRIOR) -> FloatArray:
    """:func:`_fit_many` for resamples of the data ``theta`` was fitted on: Newton's steps with the Hessian
    of the point fit (``inverse``, from :func:`_hessian`) instead of each resample's own. The same maximum
    (the gradient is each resample's), reached in a few more steps that cost n² instead of n³ (400 models:
    200 solves of 400 × 400 per step were most of the report's time); a stack that does not settle in 100
    steps is refitted by :func:`_fit_many`."""
    import numpy as np

    count, n, _ = wins.shape
    w = wins + prior / 2 * (1 - np.eye(n))[None, :, :]
    games = w + np.transpose(w, (0, 2, 1))
    won = w.sum(axis=2)
    current = np.repeat(theta[None, :] - theta[0], count, axis=0)
    for _ in range(100):
        # P(i beats j) = e_i / (e_i + e_j): n exponentials per resample instead of n²
        e = np.exp(current - current.max(axis=1, keepdims=True))
        p = e[:, :, None] / (e[:, :, None] + e[:, None, :])
        gradient = won - (games * p).sum(axis=2)
        step = gradient[:, 1:] @ inverse
        largest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(largest, 1e-300))
        current[:, 1:] += step
        if float(np.abs(step).max()) < 1e-7:  # ratings print to 4 decimals
            centred: FloatArray = current - current.mean(axis=1, keepdims=True)
            return centred
    return _fit_many(wins, prior)


def rate(battles: Battles, *, resamples: int = RESAMPLES, seed: int = SEED) -> Ratings | None:
    """Each player's rating with its bootstrap interval (None when there are fewer than two players)."""
    import numpy as np

    n = len(battles.players)
    if n < 2 or not (battles.share or battles.grids):
        return None
    arrays = (
        np.asarray(battles.first, dtype=np.int64),
        np.asarray(battles.second, dtype=np.int64),
        np.asarray(battles.share, dtype=np.float64),
        np.asarray(battles.units, dtype=np.int64),
    )
    models = np.asarray([name not in battles.anchors for name in battles.players])

    def centred(theta: FloatArray) -> FloatArray:
        return theta - theta[models].mean() if models.any() else theta

    count = battles.unit_count()
    point = centred(fit_bradley_terry(_win_matrix(battles, arrays, np.ones(count))))
    hessian = _hessian(_win_matrix(battles, arrays, np.ones(count)), point)
    rng = np.random.default_rng(seed)
    draws = np.empty((resamples, n))
    # Refit in chunks: a stack of n × n win matrices per resample is 1.3 MB at 400 models; Newton holds
    # several arrays of the stack's size.
    chunk = max(1, min(resamples, 2_000_000 // (n * n)))
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        stack = np.empty((size, n, n))
        for k in range(size):
            drawn = np.bincount(rng.integers(0, count, count), minlength=count).astype(np.float64)
            stack[k] = _win_matrix(battles, arrays, drawn)
        fitted = _fit_near(stack, point, hessian)
        draws[start : start + size] = fitted - fitted[:, models].mean(axis=1, keepdims=True) if models.any() else fitted
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    played = np.bincount(arrays[0], minlength=n) + np.bincount(arrays[1], minlength=n)
    for members, _, grid in battles.grids:
        pairs = grid.scored @ grid.scored.T
        played[members] += (pairs.sum(axis=1) - np.diag(pairs)).astype(np.int64)
    players = [
        Rating(
            name,
            round(float(point[i]), 4),
            round(min(float(low[i]), float(point[i])), 4),
            round(max(float(high[i]), float(point[i])), 4),
            int(played[i]),
            name in battles.anchors,
        )
        for i, name in enumerate(battles.players)
    ]
    players.sort(key=lambda r: (-r.rating, r.name))
    return Ratings(players, dict(battles.sources), resamples=resamples, seed=seed)
