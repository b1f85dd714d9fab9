"""The JSON the report writes, typed: the summary (``score --json``, ``report --format json``), the speed
table and the runs it lists.

``TypedDict``s over the plain dicts the ``to_dict`` methods build (nothing at run time). The published
schema of the same JSON is ``schemas/report-results.schema.json`` (:mod:`formatkit._api.results_schema`).
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from formatkit._core.record import JsonObject
from scoring._runner.provenance import RunRecord

__all__ = [
    "AggregateSummary",
    "Cell",
    "ComparisonSummary",
    "DatasetSummary",
    "Delta",
    "DifferenceSummary",
    "DimensionSummary",
    "Distribution",
    "DistributionModel",
    "IntervalSettings",
    "LatencySummary",
    "Leaderboard",
    "LeaderboardRow",
    "OverallHead",
    "PageAnswer",
    "PageData",
    "PageQuestion",
    "PageResponse",
    "PairwiseSummary",
    "Percentiles",
    "Radar",
    "RadarAxis",
    "RadarLegend",
    "RadarPolygon",
    "ReportedRun",
    "ShortText",
    "SpeedSummary",
    "Tick",
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
    human_overrides: dict[str, float | int | None]
    min_detectable_difference: float | None
    #: A judge panel's figures (:mod:`scoring._judges.panel_stats`): agreement, void rates, escalation.
    panel: JsonObject


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
    """One model's summary JSON (``score --json``): datasets, dimensions, the overall score and the totals."""

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
    ratings: dict[str, Any]
    rating_anchors: dict[str, Any]
    ratings_method: dict[str, Any]
    pairs: list[Any]
    pairs_note: str
    power: dict[str, Any]
    tiers: list[Any]
    order_disagreements: list[dict[str, Any]]


# --- the HTML report's page: what its template and its question browser read --------------------------------


class RadarAxis(TypedDict):
    label: str
    short: str
    x: float
    y: float
    lx: float
    ly: float
    anchor: str


class RadarPolygon(TypedDict):
    model: str
    colour: str
    points: str


class RadarLegend(TypedDict):
    number: int
    label: str
    scores: list[str]


class Radar(TypedDict):
    """The dimension scores as a radar (three dimensions or more)."""

    axes: list[RadarAxis]
    polygons: list[RadarPolygon]
    rings: list[str]
    centre: float
    size: float
    legend: list[RadarLegend]


class DistributionModel(TypedDict):
    model: str
    colour: str
    shares: list[float]


class Tick(TypedDict):
    share: float
    label: str


class Distribution(TypedDict):
    """Per model, the share of records in each score bin, and the y axis."""

    models: list[DistributionModel]
    bins: list[str]
    top: float
    ticks: list[Tick]


class _CellKeys(TypedDict):
    value: float | None
    text: str
    ci: str
    suffix: str


class Cell(_CellKeys, total=False):
    """A model's score in a leaderboard row; ``best`` marks the row's best; ``exact``: the score unrounded,
    what the row's differences are taken from."""

    best: bool
    exact: float | None


#: A model's difference from the first model in a row ("class": the CSS class, up or down).
Delta = TypedDict("Delta", {"text": str, "class": str, "title": str})


class _RowKeys(TypedDict):
    kind: str
    dimension: str
    dataset: str
    metric: str
    cells: list[Cell]


class LeaderboardRow(_RowKeys, total=False):
    """A dimension, dataset or overall row, with each model's difference from the first."""

    deltas: list[Delta]


class Leaderboard(TypedDict):
    models: list[str]
    rows: list[LeaderboardRow]
    delta_heads: list[str]


#: The short keys of a response's texts in the browser's data.
ShortText = Literal["c", "x", "m", "n", "e"]


class _PageResponseKeys(TypedDict):
    o: str


class PageResponse(_PageResponseKeys, total=False):
    """A response in the browser's data: outcome letter, score, and texts as string-table numbers."""

    s: float
    c: int
    x: int
    m: int
    n: int
    e: int
    v: int
    u: int


class _PageAnswerKeys(TypedDict):
    r: list[PageResponse]


class PageAnswer(_PageAnswerKeys, total=False):
    """A model's answer: its responses, its conversation prefix, and with several responses their mean."""

    h: int
    o: str
    s: float


class _PageQuestionKeys(TypedDict):
    d: int
    id: str
    q: int
    r: int


class PageQuestion(_PageQuestionKeys, total=False):
    """A question: dataset, session_id, question and reference (string-table numbers), spread, answers."""

    g: float
    a: list[PageAnswer | None]


class _PageDataKeys(TypedDict):
    models: list[str]
    strings: list[str]
    prefixes: list[list[list[int]]]
    questions: list[PageQuestion]
    left_out: int


class PageData(_PageDataKeys, total=False):
    """The question browser's data (:func:`scoring._report.render.html.page_data`); the page adds each model's
    colour."""

    colours: list[str]
