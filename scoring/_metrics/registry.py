"""The one table of metrics: names, kinds and what each needs.

The CLI's ``--metric`` choices and help, ``auto``, the scorer's dispatch and the report read this table;
no other module lists metric names. Rule metrics score a reply locally with a function
``(reply, item) -> ItemScore``; judge metrics are carried out by :mod:`scoring._judges` (above this
layer), so the table only names them.

A user's own rule metric is named ``module:function`` (``--metric mypkg.metrics:contains_keyword``): the
function takes the reply text and the :class:`~scoring._metrics.base.Item` and returns an
:class:`~scoring._metrics.base.ItemScore`, a number in [0, 1], a bool, or None (unscorable).
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from scoring._errors import MetricError
from scoring._metrics.base import Item, ItemScore

if TYPE_CHECKING:
    from scoring._metrics.math.sympy_guard import SympyGuard

__all__ = [
    "AUTO",
    "JUDGE_NEEDED",
    "METRICS",
    "MetricError",
    "MetricSpec",
    "RuleFunction",
    "is_custom",
    "metric_names",
    "rule_function",
    "spec_of",
]

#: A rule metric: the reply text and the item it answers → the result.
RuleFunction = Callable[[str, Item], ItemScore]

#: Not a metric: ``auto`` picks one per record.
AUTO = "auto"
#: What ``auto`` records when no rule metric can score a record (long free text, no reference).
JUDGE_NEEDED = "judge-needed"

Kind = Literal["rule", "judge"]


@dataclass(frozen=True)
class MetricSpec:
    """One metric: its name, whether rules or an LLM judge score it, what it needs, and one line of help."""

    name: str
    kind: Kind
    summary: str
    needs_reference: bool = True
    #: The report shows strict accuracy (share of full marks) beside the mean for metrics with partial credit.
    partial_credit: bool = False


METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec("choice", "rule", "option letters (A-J and beyond), letter sets, yes/no"),
        MetricSpec("exact", "rule", "short answers and numbers, after normalisation"),
        MetricSpec("math", "rule", "math answers with partial credit per blank (seed 003)", partial_credit=True),
        MetricSpec("judge", "judge", "an LLM judge scores free text on a scale", needs_reference=False),
        MetricSpec("pairwise", "judge", "CompassBench-style comparison against a reference or another model"),
        MetricSpec("math-judge", "judge", "an LLM extracts and grades a math answer", partial_credit=True),
    )
}


def metric_names(kind: Kind | None = None) -> list[str]:
    """The built-in metric names, in table order (of one kind when ``kind`` is given)."""
    return [name for name, spec in METRICS.items() if kind is None or spec.kind == kind]


def is_custom(name: str) -> bool:
    """``module:function`` names a user's rule metric."""
    return ":" in name


def spec_of(name: str) -> MetricSpec:
    """The table entry of ``name``; a custom ``module:function`` is a rule metric with no partial credit."""
    spec = METRICS.get(name)
    if spec is not None:
        return spec
    if is_custom(name):
        return MetricSpec(name, "rule", "a custom rule metric")
    known = ", ".join([AUTO, *METRICS])
    raise MetricError(f"unknown metric {name!r}: expected one of {known}, or module:function for your own")


def rule_function(name: str, guard: SympyGuard | None = None) -> RuleFunction:
    """The function that scores one reply with the rule metric ``name`` (``guard`` runs sympy for math).

    The metric modules are imported here, on first use: the table above is what the command line reads at
    start-up, and it must not compile every extractor's patterns to print ``--help`` or validate a file."""
    if name == "choice":
        from scoring._metrics.choice import score_choice

        return lambda reply, item: score_choice(reply, item)
    if name == "exact":
        from scoring._metrics.exact import score_exact

        return score_exact
    if name == "math":
        from scoring._metrics.math.score import score_math

        return lambda reply, item: score_math(reply, item, guard)
    if is_custom(name):
        return _custom(name)
    spec = spec_of(name)
    raise MetricError(f"{spec.name} is scored by an LLM judge, not by a rule")


def _import_user_module(module_name: str) -> ModuleType:
    """The user's metric module: importable as installed, or a file in the current folder (``mymetrics.py``
    beside the data, as ``python -m`` would find it; the ``formatkit`` console script does not put the current
    folder on the path). The folder is added after the installed packages, so it never shadows one of them."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name != module_name.split(".")[0] or here in sys.path or "" in sys.path:
            raise
        sys.path.append(here)  # kept: the module may import its neighbours when it is called
        importlib.invalidate_caches()
        return importlib.import_module(module_name)


def _custom(name: str) -> RuleFunction:
    module_name, _, attribute = name.partition(":")
    try:
        module = _import_user_module(module_name)
    except Exception as exc:  # any import failure is the user's module, not ours: say which and why
        where = ""
        if isinstance(exc, ModuleNotFoundError) and exc.name == module_name.split(".")[0]:
            where = f"; looked in the installed packages and in the current folder {os.getcwd()}"
        raise MetricError(
            f"--metric {name}: cannot import {module_name!r} ({type(exc).__name__}: {exc}{where})"
        ) from exc
    function = getattr(module, attribute, None)
    if not callable(function):
        raise MetricError(f"--metric {name}: {module_name!r} has no function {attribute!r}")

    def score(reply: str, item: Item) -> ItemScore:
        return _as_item_score(name, function(reply, item))

    return score


def _as_item_score(name: str, value: object) -> ItemScore:
    """A custom metric's return value as an ItemScore: ItemScore as is, a number in [0, 1] or a bool as the
    score, None as unscorable. Anything else is the metric's bug, reported on the response, never a crash."""
    if isinstance(value, ItemScore):
        return value
    if value is None:
        return ItemScore(None, f"{name}: unscorable (the metric returned None)")
    if isinstance(value, bool):
        return ItemScore(float(value), f"{name}: {'right' if value else 'wrong'}")
    if isinstance(value, int | float) and math.isfinite(value) and 0.0 <= value <= 1.0:
        return ItemScore(float(value), f"{name}: score {float(value):.2f}")
    return ItemScore(None, f"{name}: unscorable (the metric returned {value!r}; expected a number in [0, 1])")
