"""The one table of metrics: each entry's name, help, implementation and whether ``auto`` may pick it.

The CLI's ``--metric`` choices and help, ``auto``, the scorer's dispatch, the judges and the report read
this table; no other module lists metric names. An entry names its implementation as ``"module:attribute"``,
imported on first use: the command line reads the table at start-up, and printing ``--help`` or validating a
file must not compile every extractor's patterns, load sympy or the judges.

- A rule metric's implementation is a function ``(reply, item) -> ItemScore`` (``uses_sympy``: it takes the
  sympy guard as a third argument).
- A judge metric's implementation is its :class:`~scoring._judges.kinds.JudgeKind` (prompts, verdict
  parser, scale, summary, aggregation), defined in its own module of :mod:`scoring._judges` (above this
  layer: named here, never imported here).

``auto`` picks among the entries with ``auto_for``: the kinds of reference (see
:func:`scoring._metrics.auto.reference_kind`) the metric scores; ``auto_takes`` are the further kinds it takes
over when the dataset holds any reference of its own kinds (math's units and partial credit for the numbers
of a math set).

A metric is added with one entry below (and its module); :func:`register_metric` adds one at run time (a
plugin, a test) and :func:`unregister_metric` takes it away. A user's own rule metric can also be named
``module:function`` with no entry (``--metric mypkg.metrics:contains_keyword``): the function takes the
reply text and the :class:`~scoring._metrics.base.Item` and returns an
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

from formatkit._lazy import load_ref
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
    "auto_specs",
    "implementation",
    "is_custom",
    "metric_names",
    "register_metric",
    "rule_function",
    "spec_of",
    "unregister_metric",
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
    """One metric: its name, whether rules or an LLM judge score it, what it needs, one line of help, where
    its implementation is, and which references ``auto`` gives it."""

    name: str
    kind: Kind
    summary: str
    needs_reference: bool = True
    #: The report shows strict accuracy (share of full marks) beside the mean for metrics with partial credit.
    partial_credit: bool = False
    #: ``"module:attribute"`` (imported on first use) or the object itself: a rule metric's function, a
    #: judge metric's JudgeKind. None for a custom ``module:function`` (its name says where it is).
    implementation: str | object | None = None
    #: A rule metric whose function takes the sympy guard: ``(reply, item, guard)``.
    uses_sympy: bool = False
    #: ``auto``: the kinds of reference this metric scores (empty: ``auto`` never picks it).
    auto_for: frozenset[str] = frozenset()
    #: ``auto``: further kinds it takes over in a dataset that holds any reference of its ``auto_for`` kinds.
    auto_takes: frozenset[str] = frozenset()
    #: ``auto``: why it was picked, as the summary says it.
    auto_reason: str = ""
    #: ``auto`` with a judge: the kinds of reference (as in ``auto_for``) this metric can only match word for
    #: word, so a reply it finds wrong may be a paraphrase and goes to the judge (``estimate`` counts them).
    judge_unmatched: frozenset[str] = frozenset()
    #: A rule metric: the judge metric ``--judge-fallback`` sends the responses it could not settle to.
    judge_fallback: str | None = None


METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "choice",
            "rule",
            "option letters (A-J and beyond), letter sets, yes/no",
            implementation="scoring._metrics.choice:score_choice",
            auto_for=frozenset({"choice", "yes-no"}),
            auto_reason="the reference is an option letter (or letters) or yes/no",
        ),
        MetricSpec(
            "exact",
            "rule",
            "short answers and numbers, after normalisation",
            implementation="scoring._metrics.exact:score_exact",
            auto_for=frozenset({"number", "short"}),
            auto_reason="the reference is a number or a short answer",
            judge_unmatched=frozenset({"short"}),
        ),
        MetricSpec(
            "math",
            "rule",
            "math answers with partial credit per blank (seed 003)",
            partial_credit=True,
            implementation="scoring._metrics.math.score:score_math",
            uses_sympy=True,
            auto_for=frozenset({"math"}),
            auto_takes=frozenset({"number", "short"}),
            auto_reason="the dataset's references hold math expressions",
            judge_fallback="math-judge",
        ),
        MetricSpec(
            "prefix",
            "rule",
            "the reply starts with the reference (the platform's 前缀匹配)",
            implementation="scoring._metrics.prefix:score_prefix",
        ),
        MetricSpec(
            "keywords",
            "rule",
            "the reply contains every keyword the reference lists (包含关键词匹配), share found as partial_score",
            implementation="scoring._metrics.keywords:score_keywords",
        ),
        MetricSpec(
            "judge",
            "judge",
            "an LLM judge scores free text on a scale",
            needs_reference=False,
            implementation="scoring._judges.absolute:ABSOLUTE",
        ),
        MetricSpec(
            "pairwise",
            "judge",
            "CompassBench-style comparison against a reference or another model",
            implementation="scoring._judges.pairwise:PAIRWISE",
        ),
        MetricSpec(
            "math-judge",
            "judge",
            "an LLM extracts and grades a math answer",
            partial_credit=True,
            implementation="scoring._judges.math_judge:MATH_JUDGE",
        ),
    )
}


def register_metric(spec: MetricSpec) -> MetricSpec:
    """Add ``spec`` to the table (a plugin's metric, a test's toy); a name already taken is an error."""
    if spec.name in METRICS or spec.name == AUTO or is_custom(spec.name):
        raise MetricError(f"metric {spec.name!r}: the name is taken")
    METRICS[spec.name] = spec
    _AUTO.clear()
    return spec


def unregister_metric(name: str) -> None:
    """Take ``name`` out of the table (what :func:`register_metric` added)."""
    METRICS.pop(name, None)
    _AUTO.clear()


_AUTO: list[tuple[MetricSpec, ...]] = []


def auto_specs() -> tuple[MetricSpec, ...]:
    """The entries ``auto`` may pick, in table order: the same tuple until the table changes."""
    if not _AUTO:
        _AUTO.append(tuple(spec for spec in METRICS.values() if spec.auto_for))
    return _AUTO[0]


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


_LOADED: dict[str, object] = {}


def implementation(spec: MetricSpec) -> object:
    """The entry's implementation, its module imported on first use (and the object kept)."""
    target = spec.implementation
    if not isinstance(target, str):
        return target
    found = _LOADED.get(target)
    if found is None:
        found = _LOADED[target] = load_ref(target)
    return found


def rule_function(name: str, guard: SympyGuard | None = None) -> RuleFunction:
    """The function that scores one reply with the rule metric ``name`` (``guard`` runs sympy for math)."""
    if is_custom(name) and name not in METRICS:
        return _custom(name)
    spec = spec_of(name)
    if spec.kind != "rule":
        raise MetricError(f"{spec.name} is scored by an LLM judge, not by a rule")
    function = implementation(spec)
    if not callable(function):
        raise MetricError(f"metric {spec.name}: its implementation {spec.implementation!r} is not a function")
    if spec.uses_sympy:
        return lambda reply, item: function(reply, item, guard)
    return function


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
