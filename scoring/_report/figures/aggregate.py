"""Aggregation (docs/pages/scoring.md, "Aggregation and intervals"): record → dataset → capability
dimension → overall, on 0–100.

- A record's score is the mean of its scored responses; a dataset's score is the mean over its scored
  records (``loose``); ``strict`` is the share of responses scoring 1.0 (math reports both).
- A dimension's score is the mean of its datasets' scores; ``overall`` the mean of the dimensions. A
  dataset with no dimension (no ``--dimensions`` entry, no ``meta.dimension``) is a dimension of its own,
  so without any mapping ``overall`` is the mean of the datasets.
- With several samples per record: ``pass_at_k`` (some sample scores 1.0) and ``majority`` (the most
  frequent extracted answer's score), k being the samples per record.
- Every aggregate counts records, unscorable responses and token usage, and apart from the unscorable
  responses the **void verdicts**: a judge replied, but no verdict could be read from its reply. A void
  verdict is left out of the mean, which can raise a score (a wrong answer whose verdict is void no
  longer pulls it down): it is counted and shown beside the score ("1 of 2 records scored, 1 void
  verdict"), never silently. ``void_as_zero`` (``--void-as-zero``, for leaderboards) counts each void
  verdict as the lowest score instead (0; pairwise: a loss, −1).
- A dataset of fewer than :data:`~scoring._report.figures.intervals.SMALL_N` scored records is flagged ``small``:
  its interval is wide, and one record moves its score by 100/n points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from formatkit._core.judge_entry import JudgeEntry, is_panel, judge_entry, judge_status, outcome_of
from formatkit._core.judge_entry import judge_usage as judge_usage_of
from formatkit._core.record import RecordDict, ResponseDict, reference_of, response_entries
from scoring._judges.kinds import JudgeKind, kind_of
from scoring._judges.panel_stats import PanelTally
from scoring._judges.verdicts import count_pairwise
from scoring._report.figures.intervals import (
    SMALL_N,
    Interval,
    bootstrap_means,
    is_binary,
    percentile_interval,
    seed_for,
    wilson,
)
from scoring._report.figures.shapes import AggregateSummary, DatasetSummary, DimensionSummary, OverallHead
from scoring._results import dataset_of, metric_of

__all__ = [
    "Aggregate",
    "Aggregator",
    "DatasetStats",
    "DimensionStats",
    "aggregate",
    "finish",
    "is_void",
    "record_key",
    "record_score",
]

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def record_key(record: RecordDict) -> int:
    """What identifies an item across models' results within one report: its session_id, turns and
    reference (a hash; only compared inside one process, so the salted str hash is fine)."""
    messages = record.get("messages") or []
    parts = tuple(
        (message.get("role"), message.get("content"))
        for message in messages
        if isinstance(message, dict) and message.get("role") in ("system", "user")
    )
    reference = reference_of(record)
    try:
        return hash((record.get("session_id"), parts, reference))
    except TypeError:  # an unhashable session_id or content (a list): fall back to its text
        return hash(repr((record.get("session_id"), parts, reference)))


def _win_value(response: Mapping[str, Any], score: float) -> float:
    """A pairwise verdict as a win rate: win 1, tie 0.5, loss 0 (the judge's outcome, else the score's sign)."""
    outcome = outcome_of(judge_entry(response))
    if outcome is None:
        outcome = "win" if score > 0 else "loss" if score < 0 else "tie"
    return {"win": 1.0, "tie": 0.5, "loss": 0.0}[outcome]


_responses = response_entries


def _majority(responses: list[ResponseDict], mean: float) -> float:
    """The score of the most frequent answer (first seen wins a tie), read from each response's ``answer``;
    a response whose metric found no answer votes for "no answer". The mean when no response was scored."""
    answers: list[tuple[str | None, float]] = []
    for response in responses:
        score = response.get("score")
        if isinstance(score, int | float):
            answer = response.get("answer")
            answers.append((answer if isinstance(answer, str) else None, float(score)))
    if not answers:
        return mean
    top, _ = Counter(a for a, _ in answers).most_common(1)[0]
    return next(s for a, s in answers if a == top)


def record_score(record: RecordDict) -> float | None:
    """Mean score of a record's scored responses (None when none could be scored)."""
    scores = [float(s) for r in _responses(record) if isinstance(s := r.get("score"), int | float)]
    return sum(scores) / len(scores) if scores else None


def is_void(judge: JudgeEntry | None, score: Any) -> bool:
    """A void verdict: the judge replied, but no verdict could be read from its reply (and no rule score
    stands in for it, as the math judge fallback keeps)."""
    return judge_status(judge) == "unparseable" and not _is_number(score)


def _is_number(value: Any) -> bool:
    return type(value) is float or type(value) is int


def _pct(num: float, den: int) -> float | None:
    return round(100.0 * num / den, 2) if den else None


@dataclass
class DatasetStats:
    """Running totals for one dataset; :meth:`to_dict` gives the summary JSON entry."""

    name: str
    metric: str | None = None
    dimension: str | None = None
    note: str | None = None
    records: int = 0
    scored_records: int = 0
    record_score_sum: float = 0.0
    responses: int = 0
    scored_responses: int = 0
    unscorable: int = 0
    response_score_sum: float = 0.0
    full_marks: int = 0
    multi_sample_records: int = 0
    max_samples: int = 0
    pass_hits: int = 0
    majority_sum: float = 0.0
    unsettled: int = 0
    #: Responses whose judge replied without a readable verdict (see :func:`is_void`).
    void: int = 0
    #: Count a void verdict as the lowest score (0; pairwise a loss) instead of leaving it out.
    void_as_zero: bool = False
    #: Pairwise verdicts: win / tie / loss, pairs judged in both orders, and how many of those disagreed.
    pairwise: dict[str, int] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=lambda: dict.fromkeys(USAGE_KEYS, 0))
    judge_usage: dict[str, int] = field(default_factory=lambda: dict.fromkeys(USAGE_KEYS, 0))
    #: Each scored record's score (0–1, pairwise −1..1) and its win rate (pairwise only), by record key:
    #: the intervals and the paired differences between models are computed from them.
    values: list[float] = field(default_factory=list)
    win_values: list[float] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    interval: Interval | None = None
    #: Pairwise datasets: the 0–100 win rate (ties half) that enters the dimension, and its interval.
    win_interval: Interval | None = None
    #: A judge panel's figures (agreement, each judge's void rate, escalation), from its responses.
    panel: PanelTally = field(default_factory=PanelTally)
    #: Responses a person scored (``scored_by: human``, from ``score`` of a reviewed sheet), and the
    #: records holding them: their score sums and counts after and before (the machine's, in ``overridden``).
    overridden: int = 0
    override_after: list[float] = field(default_factory=lambda: [0.0, 0.0])
    override_before: list[float] = field(default_factory=lambda: [0.0, 0.0])

    def add(self, record: RecordDict) -> None:
        self.records += 1
        responses = _responses(record)
        scores: list[float] = []
        wins: list[float] = []
        usage_total = self.usage
        machine: list[float] | None = None
        for response in responses:
            usage = response.get("usage")
            if isinstance(usage, dict):
                for key, value in usage.items():
                    if key in usage_total and type(value) is int and value >= 0:  # below zero: unknown
                        usage_total[key] += value
            score = response.get("score")
            judge = judge_entry(response)
            if response.get("scored_by") == "human":
                machine = self._overridden(responses, machine)
            if judge is not None:
                kind = kind_of(judge)
                score = _judged_fraction(judge, kind, score, self.judge_usage)
                if is_panel(judge):
                    self.panel.add(judge)
                versus = kind is not None and kind.versus  # a comparison: win / tie / loss
                if is_void(judge, score):
                    self.void += 1
                    if self.void_as_zero:
                        score = kind.lowest if kind is not None else 0.0
                if versus:
                    if _is_number(score) and judge_status(judge) != "scored":
                        self.pairwise["loss"] = self.pairwise.get("loss", 0) + 1  # a void counted as a loss
                    else:
                        count_pairwise(judge, self.pairwise)
                    if _is_number(score):
                        wins.append(_win_value(response, float(score)))
            if type(score) is float or type(score) is int:
                scores.append(float(score))
                if response.get("settled") is False:
                    self.unsettled += 1
        self.responses += len(responses)
        self.unscorable += len(responses) - len(scores)
        if machine is not None:
            for sums, values in ((self.override_after, scores), (self.override_before, machine)):
                if values:
                    sums[0] += sum(values) / len(values)
                    sums[1] += 1
        if not scores:
            return
        self.scored_records += 1
        self.keys.append(record_key(record))
        self.values.append(sum(scores) / len(scores))
        if wins:
            self.win_values.append(sum(wins) / len(wins))
        if len(scores) == 1:  # the common case, kept cheap
            only = scores[0]
            self.record_score_sum += only
            self.response_score_sum += only
            self.majority_sum += only
            self.scored_responses += 1
            if only >= 1.0:
                self.full_marks += 1
                self.pass_hits += 1
            return
        mean = sum(scores) / len(scores)
        self.record_score_sum += mean
        self.scored_responses += len(scores)
        self.response_score_sum += sum(scores)
        self.full_marks += sum(1 for s in scores if s >= 1.0)
        self.pass_hits += any(s >= 1.0 for s in scores)
        if len(scores) > 1:
            self.multi_sample_records += 1
            self.max_samples = max(self.max_samples, len(scores))
            self.majority_sum += _majority(responses, mean)
        else:
            self.majority_sum += mean

    def _overridden(self, responses: list[ResponseDict], machine: list[float] | None) -> list[float]:
        """Count one response a person scored; the first time in a record, the record's scores as the
        machine gave them (0-1; a judge's mapped from its scale)."""
        self.overridden += 1
        if machine is not None:
            return machine
        out: list[float] = []
        for response in responses:
            before = response.get("overridden") if response.get("scored_by") == "human" else None
            score = before.get("score") if isinstance(before, dict) else response.get("score")
            entry = judge_entry(response)
            kind = kind_of(entry)
            if kind is not None and score is not None and entry is not None:
                score = kind.fraction(score, entry)
            if type(score) is float or type(score) is int:
                out.append(float(score))
        return out

    @property
    def score_before_people(self) -> float | None:
        """The score (0-100) with the machine's scores where a person's replaced them; None without."""
        if not self.overridden:
            return None
        total = self.record_score_sum - self.override_after[0] + self.override_before[0]
        count = self.scored_records - self.override_after[1] + self.override_before[1]
        return _pct(total, int(count))

    @property
    def score(self) -> float | None:
        return _pct(self.record_score_sum, self.scored_records)

    @property
    def small(self) -> bool:
        """Fewer than :data:`SMALL_N` scored records: the score moves by 100/n points per record."""
        return 0 < self.scored_records < SMALL_N

    @property
    def is_pairwise(self) -> bool:
        return bool(self.win_values)

    @property
    def dimension_score(self) -> float | None:
        """What enters the dimension: the score, or for pairwise the 0–100 win rate (ties count half)."""
        if self.is_pairwise:
            return _pct(sum(self.win_values), len(self.win_values))
        return self.score

    @property
    def dimension_mean(self) -> float | None:
        """:attr:`dimension_score` unrounded, so a dimension and the overall are means of exact scores
        (33.333… and 100 average to 66.67, not the 66.66 of rounded parts)."""
        if self.is_pairwise:
            return 100.0 * sum(self.win_values) / len(self.win_values) if self.win_values else None
        return 100.0 * self.record_score_sum / self.scored_records if self.scored_records else None

    def dimension_values(self) -> list[float]:
        """Per-record values on 0–1 that make :attr:`dimension_score`."""
        return self.win_values if self.is_pairwise else self.values

    def compute_intervals(self) -> None:
        """The 95 % interval of the score (Wilson for 0/1 records, else the smoothed Bayesian bootstrap over
        records; a pairwise score's values run −1..1)."""
        bounds = (-1.0, 1.0) if self.is_pairwise else (0.0, 1.0)
        self.interval = _interval(self.values, self.name, bounds, self.score)
        if self.is_pairwise:
            self.win_interval = _interval(self.win_values, self.name, point=self.dimension_score)

    def to_dict(self) -> DatasetSummary:
        out: DatasetSummary = {
            "metric": self.metric,
            "score": self.score,
            "records": self.records,
            "errors": self.unscorable,
            "scored_records": self.scored_records,
            "responses": self.responses,
            "scored_responses": self.scored_responses,
            # A pairwise "full mark" (A++ in both orders) is not an accuracy: no strict figure for it.
            "strict": None if self.pairwise else _pct(self.full_marks, self.scored_responses),
            "loose": self.score,
            "dimension": self.dimension,
            "usage": dict(self.usage),
            "void": self.void,
            "small": self.small,
        }
        if self.void_as_zero:
            out["void_as_zero"] = True
        if self.interval is not None:
            out["ci"] = self.interval.as_list()
            out["interval"] = self.interval.method
        if any(self.judge_usage.values()):
            out["judge_usage"] = dict(self.judge_usage)
        if self.overridden:
            out["human_overrides"] = {
                "responses": self.overridden,
                "score_before": self.score_before_people,
                "score_after": self.score,
            }
        if self.multi_sample_records:
            out["samples"] = self.max_samples
            out["pass_at_k"] = _pct(self.pass_hits, self.scored_records)
            out["majority"] = _pct(self.majority_sum, self.scored_records)
        if self.unsettled:
            out["unsettled"] = self.unsettled
        if self.panel:
            out["panel"] = self.panel.to_dict()
        if self.pairwise:
            both = self.pairwise.get("both_orders", 0)
            out["pairwise"] = {
                "win": self.pairwise.get("win", 0),
                "tie": self.pairwise.get("tie", 0),
                "loss": self.pairwise.get("loss", 0),
                "mean_x100": self.score,
                "pairs_both_orders": both,
                "disagreements": self.pairwise.get("disagreements", 0),
                "disagreement_rate": round(self.pairwise.get("disagreements", 0) / both, 4) if both else None,
            }
            # What enters the dimension: the 0–100 win rate (win 1, tie ½, loss 0), with its interval.
            out["win_rate"] = self.dimension_score
            out["win_rate_ci"] = self.win_interval.as_list() if self.win_interval else None
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class DimensionStats:
    name: str
    datasets: list[str]
    score: float | None
    interval: Interval | None = None
    #: the score unrounded (the mean of its datasets' exact scores): what differences are taken from
    exact: float | None = None

    def to_dict(self) -> DimensionSummary:
        out: DimensionSummary = {"score": self.score, "datasets": self.datasets}
        if self.interval is not None:
            out["ci"] = self.interval.as_list()
            out["interval"] = self.interval.method
        return out


@dataclass
class Aggregate:
    """Datasets, dimensions and the overall score; :meth:`to_dict` is the summary JSON of ``score --json``."""

    datasets: dict[str, DatasetStats]
    dimensions: dict[str, DimensionStats]
    overall: float | None
    overall_interval: Interval | None = None
    #: The overall before rounding: differences between models are taken on it (issue 40: a Δ of rounded
    #: scores said 35.16 where the paired difference said 35.17).
    overall_exact: float | None = None

    @property
    def usage(self) -> dict[str, int]:
        """The model's token usage over every dataset."""
        return _sum_usage(stats.usage for stats in self.datasets.values())

    @property
    def judge_usage(self) -> dict[str, int]:
        """The judges' token usage, counted apart from the model's."""
        return _sum_usage(stats.judge_usage for stats in self.datasets.values())

    @property
    def void(self) -> int:
        """Void verdicts over every dataset."""
        return sum(stats.void for stats in self.datasets.values())

    @property
    def void_as_zero(self) -> bool:
        return any(stats.void_as_zero for stats in self.datasets.values())

    def weights(self) -> dict[str, float]:
        """Each dataset's weight in ``overall`` (a mean of dimension means of dataset means)."""
        out: dict[str, float] = {}
        dims = [d for d in self.dimensions.values() if d.score is not None]
        for dim in dims:
            names = [n for n in dim.datasets if self.datasets[n].dimension_score is not None]
            for name in names:
                out[name] = 1.0 / (len(dims) * len(names))
        return out

    def to_dict(self) -> AggregateSummary:
        head: OverallHead = {"overall": self.overall}
        if self.overall_interval is not None:
            head["overall_ci"] = self.overall_interval.as_list()
            head["overall_interval"] = self.overall_interval.method
        return {
            **head,
            "dimensions": {name: dim.to_dict() for name, dim in self.dimensions.items()},
            "datasets": {name: stats.to_dict() for name, stats in self.datasets.items()},
            "records": sum(s.records for s in self.datasets.values()),
            "errors": sum(s.unscorable for s in self.datasets.values()),
            "void": self.void,
            "void_as_zero": self.void_as_zero,
            "usage": self.usage,
            "judge_usage": self.judge_usage,
        }


def _sum_usage(parts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    total = dict.fromkeys(USAGE_KEYS, 0)
    for part in parts:
        for key, value in part.items():
            total[key] += value
    return total


def _judged_fraction(judge: JudgeEntry, kind: JudgeKind | None, score: Any, judge_usage: dict[str, int]) -> Any:
    """Count a judged response's judge tokens, and map a score on a judge's scale (2.0 on 0-2) to the
    0-1 fraction every dataset score is made of (the judge kind's ``fraction``). Other scores pass
    unchanged: a pairwise verdict is already -1..1, a math judge's 0..1."""
    usage = judge_usage_of(judge)
    if usage is not None:
        for key in USAGE_KEYS:
            value = usage.get(key)
            if type(value) is int:
                judge_usage[key] += value
    return score if kind is None else kind.fraction(score, judge)


def _interval(
    values: list[float], name: str, bounds: tuple[float, float] = (0.0, 1.0), point: float | None = None
) -> Interval | None:
    """Wilson for 0/1 values on a 0–1 scale, else the smoothed Bayesian bootstrap over them (seeded by the
    dataset's name), holding ``point`` (the score, 0–100). Pairwise values run −1..1: a record's 0 is a tie
    there, not a wrong answer, so Wilson's proportion does not apply."""
    if not values:
        return None
    if bounds == (0.0, 1.0) and is_binary(values):
        return wilson(sum(values), len(values))
    return percentile_interval(bootstrap_means(values, seed_for(name), bounds), point=point)


def combined_interval(parts: list[tuple[float, list[float], str]], point: float | None = None) -> Interval | None:
    """The interval of ``sum(weight * mean(values))`` over datasets: one dataset keeps its own interval;
    several are resampled inside each dataset (stratified) and combined resample by resample. Every
    stratum keeps its own uncertainty, an all-right one too (see :mod:`scoring._report.figures.intervals`)."""
    parts = [p for p in parts if p[1]]
    if not parts:
        return None
    if len(parts) == 1:
        return _interval(parts[0][1], parts[0][2], point=point)
    weight, values, name = parts[0]
    total = weight * bootstrap_means(values, seed_for(name))
    for weight, values, name in parts[1:]:
        total = total + weight * bootstrap_means(values, seed_for(name))
    return percentile_interval(total / sum(w for w, _, _ in parts), point=point)


def finish(datasets: dict[str, DatasetStats], dimensions: Mapping[str, str] | None = None) -> Aggregate:
    """Group finished dataset totals into dimensions and the overall score, each with its 95 % interval.

    A pairwise dataset enters its dimension as its 0–100 win rate (win 1, tie ½, loss 0), never as its
    −100..100 mean."""
    groups: dict[str, list[str]] = {}
    for name, stats in datasets.items():
        dim = (dimensions or {}).get(name) or stats.dimension or name
        stats.dimension = dim
        groups.setdefault(dim, []).append(name)
        stats.compute_intervals()
    dims: dict[str, DimensionStats] = {}
    means: dict[str, float | None] = {}  # unrounded, for the overall
    for dim, names in groups.items():
        scored = [datasets[n] for n in names if datasets[n].dimension_score is not None]
        scores = [s.dimension_mean for s in scored if s.dimension_mean is not None]
        exact = sum(scores) / len(scores) if scores else None
        means[dim] = exact
        score = round(exact, 2) if exact is not None else None
        interval = combined_interval([(1.0, s.dimension_values(), s.name) for s in scored], score)
        dims[dim] = DimensionStats(dim, names, score, interval, exact)
    dim_scores = [m for m in means.values() if m is not None]
    overall = round(sum(dim_scores) / len(dim_scores), 2) if dim_scores else None
    agg = Aggregate(datasets, dims, overall, overall_exact=sum(dim_scores) / len(dim_scores) if dim_scores else None)
    parts = [(w, datasets[n].dimension_values(), n) for n, w in agg.weights().items()]
    agg.overall_interval = combined_interval(parts, overall)
    return agg


class Aggregator:
    """Adds scored records one at a time (streaming), from one or several files; :meth:`finish` groups them.

    A record's dataset is ``meta.dataset``, else the ``default_dataset`` given with it (the file's name).
    The metric is the one named in ``metrics``, else read off the responses' analysis.
    """

    def __init__(self, metrics: Mapping[str, str] | None = None, *, void_as_zero: bool = False) -> None:
        self.metrics = dict(metrics or {})
        self.void_as_zero = void_as_zero
        self.datasets: dict[str, DatasetStats] = {}

    def add(self, record: RecordDict, default_dataset: str = "dataset") -> None:
        name = dataset_of(record, default_dataset)
        stats = self.datasets.get(name)
        if stats is None:
            stats = self.datasets[name] = DatasetStats(
                name, metric=self.metrics.get(name), void_as_zero=self.void_as_zero
            )
        if stats.dimension is None:
            meta = record.get("meta")
            if isinstance(meta, dict) and isinstance(meta.get("dimension"), str):
                stats.dimension = meta["dimension"]
        if name not in self.metrics:
            metric = metric_of(record)
            if stats.metric is None:
                stats.metric = metric
            elif metric is not None and metric != stats.metric:
                stats.metric = "mixed"  # auto scored its records with different metrics
        stats.add(record)

    def finish(self, dimensions: Mapping[str, str] | None = None) -> Aggregate:
        return finish(self.datasets, dimensions)


def aggregate(
    records: Iterable[RecordDict],
    *,
    default_dataset: str = "dataset",
    dimensions: Mapping[str, str] | None = None,
    metrics: Mapping[str, str] | None = None,
    void_as_zero: bool = False,
) -> Aggregate:
    """Aggregate scored canonical records (plain dicts) into datasets, dimensions and overall
    (``void_as_zero``: a void judge verdict counts as the lowest score instead of being left out)."""
    aggregator = Aggregator(metrics, void_as_zero=void_as_zero)
    for record in records:
        aggregator.add(record, default_dataset)
    return aggregator.finish(dimensions)
