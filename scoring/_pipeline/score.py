"""Scoring canonical records: fill ``score`` and ``analysis`` in every response, count per dataset.

The API works on plain dicts (``formatkit._api.validate.iter_dicts``) and streams: :class:`Scorer` scores one
record at a time; :func:`score_records` is the one-call form. ``metric="auto"`` needs every reference of
a dataset first (:func:`choose_metrics`), then scores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring._metrics.auto import JUDGE_NEEDED, MetricChoice, choose_metric
from scoring._metrics.base import Item, ItemScore, item_from_record
from scoring._metrics.choice import score_choice
from scoring._metrics.exact import score_exact
from scoring._metrics.math.score import score_math
from scoring._metrics.math.sympy_guard import SympyGuard, default_guard
from scoring._report.aggregate import Aggregate, DatasetStats, dataset_of, finish

__all__ = [
    "RESULT_FIELDS",
    "RULE_METRICS",
    "ScoreOutcome",
    "Scorer",
    "choose_metrics",
    "score_records",
    "score_response",
    "write_result",
]

RULE_METRICS = ("choice", "exact", "math")


def score_response(content: str | None, item: Item, metric: str, guard: SympyGuard | None = None) -> ItemScore:
    """One response with one rule-based metric (``content`` None: the response has no reply to score)."""
    if content is None:
        return ItemScore(None, "unscorable: the response has no content")
    if metric == "choice":
        return score_choice(content, item)
    if metric == "exact":
        return score_exact(content, item)
    if metric == "math":
        return score_math(content, item, guard)
    raise ValueError(f"unknown rule-based metric {metric!r}; expected one of {', '.join(RULE_METRICS)}")


#: The fields a scorer writes into a response; cleared before a new result is written.
RESULT_FIELDS = ("score", "analysis", "metric", "answer", "settled", "unsettled_reason", "guessed")


def write_result(response: dict[str, Any], result: ItemScore, metric: str) -> None:
    """Write ``result`` into ``response`` as data: ``score``, ``analysis`` (for people), and the fields
    programs read — ``metric``, ``answer`` (None when nothing was extracted), ``settled`` and, only when
    they apply, ``unsettled_reason`` and ``guessed``."""
    for key in RESULT_FIELDS:
        response.pop(key, None)
    response["score"] = result.score
    response["analysis"] = result.analysis
    response["metric"] = metric
    response["answer"] = result.extracted or None
    response["settled"] = result.settled
    if not result.settled:
        response["unsettled_reason"] = result.unsettled_reason or "not settled"
    if result.guessed:
        response["guessed"] = True


def choose_metrics(
    records: Iterable[Mapping[str, Any]], *, default_dataset: str = "dataset"
) -> dict[str, MetricChoice]:
    """``--metric auto``: each dataset's metric and the reason, read from its references."""
    items: dict[str, list[Item]] = {}
    for record in records:
        items.setdefault(dataset_of(record, default_dataset), []).append(item_from_record(dict(record)))
    return {name: choose_metric(group) for name, group in items.items()}


@dataclass
class Scorer:
    """Scores records one at a time and keeps the per-dataset totals.

    ``metrics`` maps a dataset to its metric (``choice``/``exact``/``math`` or ``judge-needed``);
    ``metric`` is used for datasets not in the map. ``guard`` runs sympy (None: the process-wide one;
    pass ``use_sympy=False`` to settle only what the fast paths can).
    """

    metric: str = "exact"
    metrics: Mapping[str, MetricChoice] = field(default_factory=dict)
    default_dataset: str = "dataset"
    guard: SympyGuard | None = None
    use_sympy: bool = True
    stats: dict[str, DatasetStats] = field(default_factory=dict)
    on_unsettled: Callable[[dict[str, Any], int], None] | None = None

    def _guard(self) -> SympyGuard | None:
        if not self.use_sympy:
            return None
        if self.guard is None:
            self.guard = default_guard()
        return self.guard

    def metric_for(self, dataset: str) -> MetricChoice:
        choice = self.metrics.get(dataset)
        return choice if choice is not None else MetricChoice(self.metric, "chosen with --metric")

    def score_record(self, record: dict[str, Any]) -> dict[str, Any]:
        """Fill ``score``/``analysis`` of every response of the record (in place) and count it."""
        name = dataset_of(record, self.default_dataset)
        choice = self.metric_for(name)
        stats = self.stats.get(name)
        if stats is None:
            stats = self.stats[name] = DatasetStats(name, metric=choice.metric, note=choice.reason)
            meta = record.get("meta")
            if isinstance(meta, dict) and isinstance(meta.get("dimension"), str):
                stats.dimension = meta["dimension"]
        item = item_from_record(record)
        target = record["messages"][-1]
        responses = target.get("responses") or []
        for index, response in enumerate(responses):
            result = self._score_one(response, item, choice)
            write_result(response, result, choice.metric)
            if not result.settled and self.on_unsettled is not None:
                self.on_unsettled(record, index)
        stats.add(record)
        return record

    def _score_one(self, response: dict[str, Any], item: Item, choice: MetricChoice) -> ItemScore:
        content = response.get("content")
        if choice.metric == JUDGE_NEEDED:
            return ItemScore(None, f"unscorable without a judge: {choice.reason}")
        if content is None:
            error = response.get("error")
            reason = f"inference failed: {error}" if error else "the response has no content (not inferred yet)"
            return ItemScore(None, f"unscorable: {reason}")
        guard = self._guard() if choice.metric == "math" else None
        return score_response(str(content), item, choice.metric, guard)

    def result(self, dimensions: Mapping[str, str] | None = None) -> Aggregate:
        return finish(self.stats, dimensions)


@dataclass
class ScoreOutcome:
    records: list[dict[str, Any]]
    aggregate: Aggregate
    metrics: dict[str, MetricChoice]

    def summary(self) -> dict[str, Any]:
        """The summary JSON of DESIGN.md (``score --json``)."""
        return self.aggregate.to_dict()


def score_records(
    records: Iterable[dict[str, Any]],
    *,
    metric: str = "auto",
    default_dataset: str = "dataset",
    guard: SympyGuard | None = None,
    use_sympy: bool = True,
) -> ScoreOutcome:
    """Score canonical records (plain dicts, changed in place) with ``auto``/``choice``/``exact``/``math``."""
    if metric not in (*RULE_METRICS, "auto"):
        raise ValueError(f"unknown metric {metric!r}; expected auto, choice, exact or math")
    items = list(records)
    chosen = choose_metrics(items, default_dataset=default_dataset) if metric == "auto" else {}
    scorer = Scorer(metric=metric, metrics=chosen, default_dataset=default_dataset, guard=guard, use_sympy=use_sympy)
    for record in items:
        scorer.score_record(record)
    used = chosen or {name: MetricChoice(metric, "chosen with --metric") for name in scorer.stats}
    return ScoreOutcome(items, scorer.result(), used)
