"""Scoring canonical records: every response gets its result as data, every dataset its totals.

:class:`Scorer` scores one record at a time (streaming) with a metric from the registry
(:mod:`scoring._metrics.registry`): a built-in rule metric, a user's ``module:function``, or ``auto``,
which picks each record's metric from its reference. :func:`score_records` is the one-call form for
records in memory; :func:`score_file` is the ``formatkit score`` command as a library call (file in, file
out, judges and the math judge fallback included).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from formatkit._core.judge_entry import judge_entry, stale_verdict_of
from formatkit._core.record import SCORE_FIELDS, RecordDict, ResponseDict, target_responses
from scoring._errors import MetricError
from scoring._metrics.auto import AutoTally, MetricChoice
from scoring._metrics.base import Item, ItemScore, item_from_record
from scoring._metrics.math.sympy_guard import SympyGuard, default_guard
from scoring._metrics.registry import AUTO, JUDGE_NEEDED, RuleFunction, metric_names, rule_function, spec_of
from scoring._pipeline.review import kept
from scoring._report.figures.aggregate import Aggregate, DatasetStats, finish
from scoring._report.figures.shapes import AggregateSummary
from scoring._results import dataset_of

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

RULE_METRICS = tuple(metric_names("rule"))

#: Why a response edited after judging has no score when no judge is given to judge it again (its
#: ``stale_verdict`` holds the verdict given on the other text).
STALE_REASON = (
    "stale verdict: the judge's verdict was given on another text (edited after judging); "
    "give judge options to judge it again"
)

#: The fields a scorer writes into a response; cleared before a new result is written.
RESULT_FIELDS = SCORE_FIELDS


def write_result(response: ResponseDict, result: ItemScore, metric: str) -> None:
    """Write ``result`` into ``response`` as data: ``score``, ``analysis`` (for people), and the fields
    programs read — ``metric``, ``answer`` (None when nothing was extracted), ``settled`` and, only when
    they apply, ``unsettled_reason``, ``guessed`` and ``matched_by`` (the rule that decided an exact score)."""
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
    if result.matched_by is not None:
        response["matched_by"] = result.matched_by
    if result.partial is not None:
        response["partial_score"] = result.partial


def score_response(content: str | None, item: Item, metric: str, guard: SympyGuard | None = None) -> ItemScore:
    """One response with one rule metric (``content`` None: the response has no reply to score)."""
    if content is None:
        return ItemScore(None, "unscorable: the response has no content")
    return rule_function(metric, guard)(content, item)


def choose_metrics(records: Iterable[RecordDict], *, default_dataset: str = "dataset") -> dict[str, MetricChoice]:
    """What ``--metric auto`` chooses, summed up per dataset (it chooses per record)."""
    scorer = Scorer(default_dataset=default_dataset)
    scorer.prepare(records)
    return {name: tally.summary() for name, tally in scorer.tallies.items()}


@dataclass
class Scorer:
    """Scores records one at a time and keeps the per-dataset totals.

    ``metric`` is a rule metric of the registry, a custom ``module:function``, or ``auto`` (each record's
    metric chosen from its reference and its dataset's; a record of free text is left unscored, "a judge is
    needed"): call :meth:`prepare` with the records first, or every record is judged on its own reference.
    ``guard`` runs sympy for math (None: the process-wide one; ``use_sympy=False`` settles only what the
    fast paths can). ``declared`` (dataset -> rule metric) overrides ``auto``'s choice for the datasets it names.
    """

    metric: str = AUTO
    default_dataset: str = "dataset"
    guard: SympyGuard | None = None
    use_sympy: bool = True
    stats: dict[str, DatasetStats] = field(default_factory=dict)
    tallies: dict[str, AutoTally] = field(default_factory=dict)
    declared: dict[str, str] = field(default_factory=dict)
    _functions: dict[str, RuleFunction] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.metric != AUTO:
            spec = spec_of(self.metric)  # an unknown name fails here, before any record is read
            self._function(spec.name)  # a custom metric is imported now: its errors come first too
        for name in self.declared.values():
            if spec_of(name).kind != "rule":
                raise MetricError(f"--dataset-metric takes a rule metric, not the judge metric {name!r}")
            self._function(name)

    def _function(self, metric: str) -> RuleFunction:
        function = self._functions.get(metric)
        if function is None:
            guard = self._guard() if spec_of(metric).uses_sympy else None
            function = self._functions[metric] = rule_function(metric, guard)
        return function

    def _guard(self) -> SympyGuard | None:
        if not self.use_sympy:
            return None
        if self.guard is None:
            self.guard = default_guard()
        return self.guard

    def prepare(self, records: Iterable[RecordDict]) -> None:
        """``auto``'s first pass: count the kinds of every dataset's references (a no-op for other metrics)."""
        if self.metric != AUTO:
            return
        for record in records:
            name = dataset_of(record, self.default_dataset)
            self.tallies.setdefault(name, AutoTally()).add(item_from_record(record))

    def _declared(self, dataset: str) -> MetricChoice | None:
        metric = self.declared.get(dataset) if self.metric == AUTO else None
        return None if metric is None else MetricChoice(metric, f"declared for the dataset ({dataset}={metric})")

    def _choice(self, dataset: str, item: Item) -> MetricChoice:
        if self.metric != AUTO:
            return MetricChoice(self.metric, "chosen with --metric")
        declared = self._declared(dataset)
        if declared is not None:
            return declared
        tally = self.tallies.get(dataset)
        if tally is None:
            tally = self.tallies[dataset] = AutoTally()
            tally.add(item)
        elif not tally.kinds:
            tally.add(item)
        return tally.choose(item)

    def metric_for(self, record: RecordDict) -> MetricChoice:
        """The metric the record gets (``auto``: from its reference and its dataset's, after :meth:`prepare`)."""
        return self._choice(dataset_of(record, self.default_dataset), item_from_record(record))

    def score_record(self, record: RecordDict) -> RecordDict:
        """Fill the result fields of every response of the record (in place) and count it."""
        name = dataset_of(record, self.default_dataset)
        item = item_from_record(record)
        choice = self._choice(name, item)
        stats = self.stats.get(name)
        if stats is None:
            stats = self.stats[name] = DatasetStats(name, metric=self.metric, note="chosen with --metric")
            meta = record.get("meta")
            if isinstance(meta, dict) and isinstance(meta.get("dimension"), str):
                stats.dimension = meta["dimension"]
        for response in target_responses(record):
            if kept(response):  # a reviewed sheet's unedited (or a person's) score stands
                continue
            write_result(response, self._score_one(response, item, choice), choice.metric)
            if response.get("score") is None and stale_verdict_of(response) is not None and not judge_entry(response):
                response["settled"] = False  # the judge's verdict was on another text: no judge score stays
                response["unsettled_reason"] = STALE_REASON
        stats.add(record)
        return record

    def _score_one(self, response: ResponseDict, item: Item, choice: MetricChoice) -> ItemScore:
        if choice.metric == JUDGE_NEEDED:
            return ItemScore(None, f"unscorable without a judge: {choice.reason}")
        content = response.get("content")
        if content is None:
            error = response.get("error")
            reason = f"inference failed: {error}" if error else "the response has no content (not inferred yet)"
            return ItemScore(None, f"unscorable: {reason}")
        return self._function(choice.metric)(str(content), item)

    @property
    def metrics(self) -> dict[str, MetricChoice]:
        """Each dataset's metric and why (``auto``: the summary of its per-record choices)."""
        return {
            name: self._declared(name)
            or (
                self.tallies[name].summary()
                if name in self.tallies
                else MetricChoice(self.metric, "chosen with --metric")
            )
            for name in self.stats
        }

    def result(self, dimensions: Mapping[str, str] | None = None) -> Aggregate:
        for name, choice in self.metrics.items():
            self.stats[name].metric, self.stats[name].note = choice.metric, choice.reason
        return finish(self.stats, dimensions)


@dataclass
class ScoreOutcome:
    records: list[RecordDict]
    aggregate: Aggregate
    metrics: dict[str, MetricChoice]

    def summary(self) -> AggregateSummary:
        """The summary JSON of ``score --json``."""
        return self.aggregate.to_dict()


def score_records(
    records: Iterable[RecordDict],
    *,
    metric: str = AUTO,
    default_dataset: str = "dataset",
    guard: SympyGuard | None = None,
    use_sympy: bool = True,
) -> ScoreOutcome:
    """Score canonical records (plain dicts, changed in place) with ``auto``, a rule metric or ``module:function``."""
    scorer = Scorer(metric=metric, default_dataset=default_dataset, guard=guard, use_sympy=use_sympy)
    items = list(records)
    scorer.prepare(items)
    for record in items:
        scorer.score_record(record)
    aggregate = scorer.result()
    return ScoreOutcome(items, aggregate, scorer.metrics)
