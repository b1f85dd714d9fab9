"""Combining the two orders of a pairwise comparison into one score for the model.

Each pair is judged twice: once with the model's response as A (``model_first``) and once with it as
B (``model_second``). A verdict is worth ``A++=1, A+=0.5, A=B=0, B+=-0.5, B++=-1`` to whoever is A, so
the second order's value is negated to put it on the model's side. The combined score is the mean of
the two; the orders *disagree* when their model-side values have different signs (one says the model
won, the other says it tied or lost), which is the position bias the report shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from formatkit._core.judge_entry import both_orders, judge_status, orders_disagree, outcome_of
from scoring._judges.parse import Choice

__all__ = ["CHOICE_VALUE", "Combined", "Order", "combine", "count_pairwise", "model_side", "outcome"]

Order = Literal["model_first", "model_second"]

CHOICE_VALUE: dict[Choice, float] = {"A++": 1.0, "A+": 0.5, "A=B": 0.0, "B+": -0.5, "B++": -1.0}


def model_side(choice: Choice, order: Order) -> float:
    """The verdict's value for the model under test, whichever position it held."""
    value = CHOICE_VALUE[choice]
    return value if order == "model_first" else -value


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def outcome(value: float) -> Literal["win", "tie", "loss"]:
    if value > 0:
        return "win"
    if value < 0:
        return "loss"
    return "tie"


@dataclass(frozen=True)
class Combined:
    """Both orders' values from the model's side, their mean, and whether they disagreed."""

    first: float
    second: float
    score: float
    disagree: bool

    @property
    def outcome(self) -> Literal["win", "tie", "loss"]:
        return outcome(self.score)


def combine(model_first: Choice, model_second: Choice) -> Combined:
    """``combine("A+", "B+")`` → both orders favour the model by 0.5: score 0.5, no disagreement."""
    first = model_side(model_first, "model_first")
    second = model_side(model_second, "model_second")
    return Combined(first=first, second=second, score=(first + second) / 2, disagree=_sign(first) != _sign(second))


def count_pairwise(judge: Mapping[str, Any], counts: dict[str, int]) -> None:
    """Add one pairwise verdict (``response["judge"]`` as the pairwise judge writes it) to ``counts``:
    ``win`` / ``tie`` / ``loss``, ``both_orders`` (pairs judged in both orders), ``disagreements`` among
    those, and ``unjudged``. The report counts with it too."""
    outcome = outcome_of(judge)
    if judge_status(judge) != "scored" or outcome is None:
        counts["unjudged"] = counts.get("unjudged", 0) + 1
        return
    counts[outcome] = counts.get(outcome, 0) + 1
    if both_orders(judge):
        counts["both_orders"] = counts.get("both_orders", 0) + 1
        counts["disagreements"] = counts.get("disagreements", 0) + orders_disagree(judge)
