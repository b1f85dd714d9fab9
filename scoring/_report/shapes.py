"""The JSON the report writes, typed: the summary (``score --json``, ``report --format json``), the speed
table and the runs it lists.

``TypedDict``s over the plain dicts the ``to_dict`` methods build (nothing at run time). The published
schema of the same JSON is ``schemas/report-results.schema.json`` (:mod:`formatkit._api.results_schema`).
"""

from __future__ import annotations

from typing import TypedDict

from scoring._runner.provenance import RunRecord

__all__ = [
    "AggregateSummary",
    "ComparisonSummary",
    "DatasetSummary",
    "DifferenceSummary",
    "DimensionSummary",
    "IntervalSettings",
    "LatencySummary",
    "OverallHead",
    "PairwiseSummary",
    "Percentiles",
    "ReportedRun",
    "SpeedSummary",
]


class PairwiseSummary(TypedDict):
    """A pairwise dataset's verdicts: win / tie / loss, the mean ×100, pairs judged in both orders."""

    win: int
    tie: int
    loss: int
    mean_x100: float | None
    pairs_both_orders: int
    disagreements: int
    disagreement_rate: float | None


class _DatasetKeys(TypedDict):
    metric: str | None
    score: float | None
    records: int
    errors: int
    scored_records: int
    responses: int
    scored_responses: int
    strict: float | None
    loose: float | None
    dimension: str | None
    usage: dict[str, int]
    void: int
    small: bool


class DatasetSummary(_DatasetKeys, total=False):
    """One dataset of the summary; the optional keys appear only when they apply."""

    void_as_zero: bool
    ci: list[float]
    interval: str
    judge_usage: dict[str, int]
    samples: int
    pass_at_k: float | None
    majority: float | None
    unsettled: int
    pairwise: PairwiseSummary
    win_rate: float | None
    win_rate_ci: list[float] | None
    note: str


class _DimensionKeys(TypedDict):
    score: float | None
    datasets: list[str]


class DimensionSummary(_DimensionKeys, total=False):
    """A dimension: the mean of its datasets (with its interval when there is one)."""

    ci: list[float]
    interval: str


class _AggregateKeys(TypedDict):
    overall: float | None
    dimensions: dict[str, DimensionSummary]
    datasets: dict[str, DatasetSummary]


class _OverallKey(TypedDict):
    overall: float | None


class OverallHead(_OverallKey, total=False):
    """The summary's first keys: the overall score and its interval (in this order, before the rest)."""

    overall_ci: list[float]
    overall_interval: str


class AggregateSummary(_AggregateKeys, total=False):
    """One model's summary JSON (DESIGN.md): datasets, dimensions, the overall score and the totals."""

    overall_ci: list[float]
    overall_interval: str
    records: int
    errors: int
    void: int
    void_as_zero: bool
    usage: dict[str, int]
    judge_usage: dict[str, int]


class DifferenceSummary(TypedDict):
    """A paired difference between two models on the records both answered."""

    a: str
    b: str
    scope: str
    records: int
    difference: float
    ci: list[float] | None
    interval: str | None
    significant: bool


class IntervalSettings(TypedDict):
    """How the intervals were computed."""

    level: float
    resamples: int
    seed: int
    note: str


class Percentiles(TypedDict):
    p50: float | None
    p95: float | None


class LatencySummary(Percentiles):
    mean: float | None


class SpeedSummary(TypedDict):
    """One model's speed, from the runner's timings."""

    timed_responses: int
    untimed_responses: int
    latency_ms: LatencySummary
    ttft_ms: Percentiles
    tokens_per_second: float | None


class ReportedRun(RunRecord, total=False):
    """A run record as the report lists it: the results file it speaks for, without its ``summary``."""

    file: str


class ComparisonSummary(AggregateSummary, total=False):
    """The report's JSON: the first model's summary as it is, then every model's, the paired differences,
    how the intervals were made, the runs and the speed."""

    model: str | None
    models: dict[str, AggregateSummary]
    comparisons: list[DifferenceSummary]
    intervals: IntervalSettings
    pairwise_note: str
    runs: dict[str, list[ReportedRun]]
    speed: dict[str, SpeedSummary]
