"""Several models' results side by side: one :class:`Aggregate` per model, never merged, and the paired
difference between every two models on the records both answered."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, cast

from formatkit._core.record import RecordDict
from scoring._report.figures.aggregate import Aggregate, Aggregator
from scoring._report.figures.battles import battles_of, opponent_label, resolve_opponent
from scoring._report.figures.calibration import Calibration
from scoring._report.figures.intervals import (
    LEVEL,
    RESAMPLES,
    SEED,
    Interval,
    bootstrap_means,
    percentile_interval,
    seed_for,
)
from scoring._report.figures.multiple import PAIRS_NOTE, DatasetPower, PairTest, dataset_power, pair_tests
from scoring._report.figures.paired import paired_values
from scoring._report.figures.ratings import Ratings, rate
from scoring._report.figures.shapes import ComparisonSummary, DifferenceSummary, ReportedRun, SpeedSummary
from scoring._report.figures.tiers import Disagreement, Tier, disagreements, ranking_scope_of, tiers_of
from scoring._report.words import DEFAULT_LANG, say
from scoring._results import dataset_of, model_of

__all__ = [
    "ALL_PAIRS_UP_TO",
    "INTERVAL_NOTE",
    "PAIRWISE_NOTE",
    "Comparison",
    "Difference",
    "ModelsAggregator",
    "add_many_models",
    "compare",
    "interval_note",
]


def interval_note(lang: str = DEFAULT_LANG) -> str:
    """How the intervals are made (a note of the report; the JSON's ``intervals.note`` in English)."""
    return say("note.intervals", lang, level=f"{LEVEL:.0%}", resamples=RESAMPLES, seed=SEED)


INTERVAL_NOTE = interval_note()
PAIRWISE_NOTE = say("note.pairwise")


@dataclass(frozen=True)
class Difference:
    """``a`` minus ``b`` on the records both answered (0–100 points), with its interval."""

    a: str
    b: str
    scope: str  # a dataset's name, or "overall"
    records: int
    difference: float
    interval: Interval | None

    @property
    def significant(self) -> bool:
        """Whether the interval leaves out 0 (otherwise the gap is within noise)."""
        return self.interval is not None and (self.interval.low > 0 or self.interval.high < 0)

    def to_dict(self) -> DifferenceSummary:
        return {
            "a": self.a,
            "b": self.b,
            "scope": self.scope,
            "records": self.records,
            "difference": self.difference,
            "ci": self.interval.as_list() if self.interval else None,
            "interval": self.interval.method if self.interval else None,
            "significant": self.significant,
        }


@dataclass
class Comparison:
    """Each model's aggregate (in the order first seen) and the paired differences."""

    models: dict[str, Aggregate]
    differences: list[Difference] = field(default_factory=list)
    #: Each model's run records (``run.json``: what produced its results), when the files have them.
    runs: dict[str, list[ReportedRun]] = field(default_factory=dict)
    #: Each model's latency, time to first token and tokens per second (:mod:`scoring._report.render.runs`).
    speed: dict[str, SpeedSummary] = field(default_factory=dict)
    #: Every pair of models per scope, Bonferroni-corrected (:mod:`scoring._report.figures.multiple`).
    pairs: list[PairTest] = field(default_factory=list)
    #: Bradley–Terry ratings of the models (:mod:`scoring._report.figures.ratings`); None with fewer than two.
    ratings: Ratings | None = None
    #: Per dataset, the smallest difference it can detect (:func:`scoring._report.figures.multiple.dataset_power`).
    power: dict[str, DatasetPower] = field(default_factory=dict)
    #: The models in tiers of one rank, best first (:mod:`scoring._report.figures.tiers`).
    tiers: list[Tier] = field(default_factory=list)
    #: Neighbours in the ranking whose overall scores order them the other way.
    disagreements: list[Disagreement] = field(default_factory=list)
    #: The judges checked against people (``report --human``): their κ, and the datasets left out of the ranking.
    calibration: Calibration | None = None

    def rank_of(self) -> dict[str, int]:
        return {name: tier.rank for tier in self.tiers for name in tier.models}

    @property
    def names(self) -> list[str]:
        return list(self.models)

    def dataset_names(self) -> list[tuple[str, str]]:
        """(dimension, dataset) over every model, grouped by dimension in the order first seen."""
        order: dict[str, list[str]] = {}
        for agg in self.models.values():
            for dim in agg.dimensions.values():
                names = order.setdefault(dim.name, [])
                names += [n for n in dim.datasets if n not in names]
        return [(dim, name) for dim, names in order.items() for name in names]

    def dimension_names(self) -> list[str]:
        return list(dict.fromkeys(dim for dim, _ in self.dataset_names()))

    def to_dict(self) -> ComparisonSummary:
        """Today's keys (the first model's, named by ``model``) and ``models``, ``comparisons``, ``intervals``."""
        first = next(iter(self.models.values()), None)
        out = cast(ComparisonSummary, first.to_dict() if first else {"overall": None, "dimensions": {}, "datasets": {}})
        out["model"] = next(iter(self.models), None)
        out["models"] = {name: agg.to_dict() for name, agg in self.models.items()}
        out["comparisons"] = [d.to_dict() for d in self.differences]
        out["intervals"] = {"level": LEVEL, "resamples": RESAMPLES, "seed": SEED, "note": INTERVAL_NOTE}
        out["pairwise_note"] = PAIRWISE_NOTE
        out["runs"] = {name: list(records) for name, records in self.runs.items()}
        out["speed"] = dict(self.speed)
        self._add_many_models(out)
        self._add_calibration(out)
        return out

    def _add_calibration(self, out: ComparisonSummary) -> None:
        """``judge_calibration`` and beside each judged dataset's scores its ``judge_kappa`` (``report --human``)."""
        if self.calibration is not None:
            cast(dict[str, Any], out)["judge_calibration"] = self.calibration.to_dict()
            for datasets in [out["datasets"], *(model["datasets"] for model in out["models"].values())]:
                for name, stats in datasets.items():
                    cast(dict[str, Any], stats)["judge_kappa"] = self.calibration.dataset_dict(name)

    def _add_many_models(self, out: ComparisonSummary) -> None:
        """``ratings`` (model → rating and interval, on the logit scale), ``rating_anchors`` (the reference
        answer and other opponents rated beside the models), ``ratings_method``, ``pairs`` and each
        dataset's ``min_detectable_difference`` (in ``power`` and beside its scores)."""
        if self.ratings is not None:
            out["ratings"] = {r.name: r.to_dict() for r in self.ratings.models()}
            out["rating_anchors"] = {r.name: r.to_dict() for r in self.ratings.players if r.anchor}
            out["ratings_method"] = self.ratings.to_dict()
        if self.tiers:
            ranks = self.rank_of()
            for name, rating in out["ratings"].items():
                rating["rank"] = ranks[name]
            out["tiers"] = [tier.to_dict() for tier in self.tiers]
            out["order_disagreements"] = [
                {"above": d.above, "below": d.below, "rating_gap": d.rating_gap, "overall_gap": d.overall_gap}
                for d in self.disagreements
            ]
        out["pairs"] = [p.to_dict() for p in self.pairs]
        out["pairs_note"] = PAIRS_NOTE
        out["power"] = dict(self.power)
        for name, power in self.power.items():
            mdd = power["min_detectable_difference"]
            if name in out["datasets"]:
                out["datasets"][name]["min_detectable_difference"] = mdd
            for model in out["models"].values():
                if name in model["datasets"]:
                    model["datasets"][name]["min_detectable_difference"] = mdd


class ModelsAggregator:
    """Streams records into one :class:`Aggregator` per model (``model_of`` each record)."""

    def __init__(self, metrics: Mapping[str, str] | None = None, *, void_as_zero: bool = False) -> None:
        self.metrics = metrics
        self.void_as_zero = void_as_zero
        self.by_model: dict[str, Aggregator] = {}
        #: (model, dataset) → what its pairwise verdicts compared it with (None: not a pairwise dataset).
        self.opponents: dict[tuple[str, str], str | None] = {}
        #: results file → the model it holds (first seen), to name a ``--against`` file's model.
        self.files: dict[str, str] = {}

    def add(self, record: RecordDict, default_dataset: str = "dataset") -> str:
        """Add ``record``; return the model it was counted under."""
        model = model_of(record)
        aggregator = self.by_model.get(model)
        if aggregator is None:
            aggregator = self.by_model[model] = Aggregator(self.metrics, void_as_zero=self.void_as_zero)
        aggregator.add(record, default_dataset)
        where = (model, dataset_of(record, default_dataset))
        if where not in self.opponents:
            self.opponents[where] = opponent_label(record)
        return model

    def datasets(self) -> set[str]:
        return {name for agg in self.by_model.values() for name in agg.datasets}

    def finish(self, dimensions: Mapping[str, str] | None = None, calibration: Calibration | None = None) -> Comparison:
        """The comparison; ``calibration``: the judges' κ, an uncalibrated judge's datasets left out of the ranking."""
        models = {name: agg.finish(dimensions) for name, agg in self.by_model.items()}
        comparison = Comparison(models, compare(models), calibration=calibration)
        opponents = {key: resolve_opponent(label, self.files) for key, label in self.opponents.items() if label}
        add_many_models(comparison, opponents, calibration.excluded if calibration is not None else frozenset())
        return comparison


def _without(agg: Aggregate, excluded: frozenset[str]) -> Aggregate:
    """``agg`` without the datasets ``excluded`` (a dimension left with none dropped)."""
    datasets = {name: stats for name, stats in agg.datasets.items() if name not in excluded}
    kept = {name: [n for n in dim.datasets if n not in excluded] for name, dim in agg.dimensions.items()}
    dimensions = {name: replace(dim, datasets=kept[name]) for name, dim in agg.dimensions.items() if kept[name]}
    return replace(agg, datasets=datasets, dimensions=dimensions) if excluded else agg


def add_many_models(comparison: Comparison, opponents: Any = None, excluded: frozenset[str] = frozenset()) -> None:
    """The pair tests, the ratings and each dataset's power, for two models or more, without the datasets
    ``excluded`` (an uncalibrated judge's; ``opponents``: each (model, pairwise dataset)'s)."""
    if len(comparison.models) < 2:
        return
    ranked = {name: _without(agg, excluded) for name, agg in comparison.models.items()}
    comparison.pairs = pair_tests(ranked)
    comparison.power = dataset_power(comparison.pairs)
    comparison.ratings = rate(battles_of(ranked, opponents or {}))
    if comparison.ratings is not None:
        scope = ranking_scope_of(comparison.pairs)
        pairs = {frozenset((p.a, p.b)): p for p in comparison.pairs if p.scope == scope}
        comparison.tiers = tiers_of(comparison.ratings, pairs)
        exact = {name: agg.overall_exact for name, agg in comparison.models.items()}
        comparison.disagreements = disagreements(comparison.tiers, comparison.ratings, exact)


#: The scale of a per-record difference of two 0–1 values: its pseudo-records sit at −1 and 1.
_DIFF = (-1.0, 1.0)


#: Above this many models the paired differences (bootstrap intervals, one pass over the records per pair)
#: are each model's against the first only: the pairs table (:mod:`scoring._report.figures.multiple`) holds every
#: pair, and 79,800 bootstrapped pairs of 400 models took minutes.
ALL_PAIRS_UP_TO = 12


def compare(models: Mapping[str, Aggregate]) -> list[Difference]:
    """Paired differences for every two models (each against the first above :data:`ALL_PAIRS_UP_TO`
    models): per shared dataset, and overall over the shared datasets (weighted as model ``a``'s overall
    weighs them)."""
    out: list[Difference] = []
    pairs = combinations(models.items(), 2)
    if len(models) > ALL_PAIRS_UP_TO:
        first = next(iter(models.items()))
        pairs = ((first, other) for other in list(models.items())[1:])  # type: ignore[assignment]
    for (name_a, a), (name_b, b) in pairs:
        weights = a.weights()
        parts: list[tuple[float, list[float], str]] = []
        for dataset in a.datasets:
            if dataset not in b.datasets:
                continue
            diffs = paired_values(a, b, dataset)
            if not diffs:
                continue
            point = round(100 * sum(diffs) / len(diffs), 2)
            interval = percentile_interval(bootstrap_means(diffs, seed_for(dataset), _DIFF), point=point)
            out.append(Difference(name_a, name_b, dataset, len(diffs), point, interval))
            if dataset in weights:
                parts.append((weights[dataset], diffs, dataset))
        if len(parts) > 1:
            total_w = sum(w for w, _, _ in parts)
            point = sum(w * sum(d) / len(d) for w, d, _ in parts) / total_w
            resampled = sum(w * bootstrap_means(d, seed_for(n), _DIFF) for w, d, n in parts) / total_w
            overall = round(100 * point, 2)
            out.append(
                Difference(
                    name_a,
                    name_b,
                    "overall",
                    sum(len(d) for _, d, _ in parts),
                    overall,
                    percentile_interval(resampled, point=overall),  # type: ignore[arg-type]
                )
            )
    return out
