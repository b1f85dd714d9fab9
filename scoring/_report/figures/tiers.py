"""Ranks that claim only what the pair tests support: tiers, the questions that would separate them, and
where the leaderboard and the ranking order two models differently.

- **rank**: 1 + the number of models a corrected pair test (:mod:`scoring._report.figures.multiple`, on the
  ranking's scope) puts ahead of the model — the rule of Chatbot Arena's board. Models that no test
  separates from the same rivals share a rank; two models with identical results always do. Ranks
  skip as in a competition ranking (1, 1, 3) only where a test says so: a rank counts models shown to be
  ahead, not places. The models sharing a rank are a **tier**; within it they are listed by rating, which
  is no claim.
- **questions to separate** two adjacent tiers: their closest pair (the last of the upper tier, the first
  of the lower), and about how many more paired questions its observed gap needs for the same corrected
  test to find it 80 % of the time: ``n · ((t(1 − α/2m) + t(0.8)) · se / |gap|)² − n`` (the standard
  error shrinks as 1/√n). ``None`` where the gap is 0: no number of questions separates identical results.
- **order disagreements**: two models next to each other in the ranking (Bradley–Terry rating: every
  question of every set is one battle, so a large set weighs more) whose overall scores (the mean of the
  dimensions: each dimension weighs the same, whatever its size) order them the other way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TypedDict

from scoring._report.figures.distributions import t_quantile
from scoring._report.figures.multiple import PairTest
from scoring._report.figures.power import ALPHA, POWER
from scoring._report.figures.ratings import Ratings

__all__ = [
    "Disagreement",
    "Tier",
    "TierSummary",
    "disagreements",
    "questions_to_separate",
    "ranking_scope_of",
    "tiers_of",
]


class TierSummary(TypedDict):
    rank: int
    models: list[str]
    #: to the next tier: its closest pair and about how many more questions would separate it
    next_pair: list[str] | None
    more_questions: int | None


@dataclass(frozen=True)
class Tier:
    rank: int
    models: list[str]
    next_pair: tuple[str, str] | None = None
    more_questions: int | None = None

    def to_dict(self) -> TierSummary:
        pair = list(self.next_pair) if self.next_pair else None
        return {"rank": self.rank, "models": self.models, "next_pair": pair, "more_questions": self.more_questions}


@dataclass(frozen=True)
class Disagreement:
    """``above`` rates above ``below`` in the ranking; ``below``'s overall is higher."""

    above: str
    below: str
    rating_gap: float
    overall_gap: float  # points, below − above: > 0


def ranking_scope_of(pairs: Sequence[PairTest]) -> str | None:
    """The scope the ranking's verdicts come from: ``overall``, or the one dataset the models share."""
    scopes = {p.scope for p in pairs}
    if "overall" in scopes:
        return "overall"
    return next(iter(scopes)) if len(scopes) == 1 else None


def questions_to_separate(test: PairTest) -> int | None:
    """About how many more paired questions the pair's gap needs to be distinguishable 80 % of the time (0
    when it is already); None when the gap is 0 or the test has no standard error."""
    if test.distinguishable:
        return 0
    if test.se is None or test.se <= 0 or test.difference == 0:
        return None
    factor = t_quantile(1 - ALPHA / (2 * test.family), test.records - 1 or 1) + t_quantile(POWER, test.records - 1 or 1)
    needed = test.records * (factor * 100 * test.se / abs(test.difference)) ** 2
    return max(0, math.ceil(needed - test.records))


def tiers_of(ratings: Ratings, pairs: dict[frozenset[str], PairTest]) -> list[Tier]:
    """The models in tiers, best first (``pairs``: the ranking scope's tests by pair)."""
    models = ratings.models()
    ahead = dict.fromkeys((r.name for r in models), 0)
    for test in pairs.values():
        if test.distinguishable and test.a in ahead and test.b in ahead:
            ahead[test.b if test.difference > 0 else test.a] += 1
    order = sorted(models, key=lambda r: (ahead[r.name], -r.rating, r.name))
    groups: list[list[str]] = []
    for r in order:
        if groups and ahead[groups[-1][0]] == ahead[r.name]:
            groups[-1].append(r.name)
        else:
            groups.append([r.name])
    tiers: list[Tier] = []
    for k, group in enumerate(groups):
        rank = 1 + ahead[group[0]]
        if k + 1 == len(groups):
            tiers.append(Tier(rank, group))
            continue
        pair = (group[-1], groups[k + 1][0])
        closest = pairs.get(frozenset(pair))
        tiers.append(Tier(rank, group, pair, None if closest is None else questions_to_separate(closest)))
    return tiers


def disagreements(tiers: list[Tier], ratings: Ratings, overall: dict[str, float | None]) -> list[Disagreement]:
    """Neighbours in the ranking whose ratings and overall scores order them differently (``above``: the
    higher rated; the tiers may list either first: a corrected test on the overall can put the other ahead)."""
    rating = {r.name: r.rating for r in ratings.models()}
    order = [name for tier in tiers for name in tier.models]
    out: list[Disagreement] = []
    for first, second in pairwise(order):
        above, below = (first, second) if rating[first] >= rating[second] else (second, first)
        high, low = overall.get(above), overall.get(below)
        if high is not None and low is not None and low > high and rating[above] > rating[below]:
            out.append(Disagreement(above, below, round(rating[above] - rating[below], 4), low - high))
    return out
