"""The report as one self-contained HTML page: works offline (no CDN, no external file), everything escaped.

jinja2 renders ``templates/report.html.j2`` with autoescaping on; the charts are SVG drawn by the
template from geometry computed here (bars with their 95 % intervals, a radar of the dimensions, score
distributions), so the page needs no plotting library and stays a few hundred kilobytes. The per-sample
browser lists every record with its question, reference, responses, scores, analyses and judge
verdicts; a small inline script filters it by model, dataset, outcome and text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring._report.aggregate import DatasetStats
from scoring._report.intervals import Interval
from scoring._report.leaderboard import comparison_tables, notes
from scoring._report.models import Comparison

__all__ = ["MAX_SAMPLES", "Sample", "SampleCollector", "render_html"]

#: Records shown in the browser; beyond this the page says how many were left out.
MAX_SAMPLES = 20_000
PALETTE = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e"]
OUTCOMES = ("right", "partial", "wrong", "unscorable")


@dataclass
class Sample:
    """One record as the browser shows it."""

    model: str
    dataset: str
    session_id: str
    outcome: str
    history: list[tuple[str, str]]
    question: str
    reference: str
    responses: list[dict[str, Any]]


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _fraction(response: Mapping[str, Any]) -> float | None:
    score = response.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        return None
    judge = response.get("judge")
    if isinstance(judge, dict) and judge.get("metric") == "judge":
        scale = str(judge.get("scale", "0-1")).split("-")
        try:
            low, high = float(scale[0]), float(scale[-1])
            return (float(score) - low) / (high - low) if high > low else None
        except ValueError:
            return None
    return float(score)


def _outcome(responses: list[dict[str, Any]]) -> str:
    values = [v for v in (_fraction(r) for r in responses) if v is not None]
    if not values:
        return "unscorable"
    mean = sum(values) / len(values)
    return "right" if mean >= 1.0 else "wrong" if mean <= 0.0 else "partial"


def _verdicts(judge: Any) -> list[str]:
    """The judge's verdicts as short lines: each order's choice for pairwise, the status and reason."""
    if not isinstance(judge, dict):
        return []
    lines = []
    for key in ("metric", "model", "status", "outcome", "choice", "scale", "disagree"):
        if key in judge and judge[key] is not None:
            lines.append(f"{key}: {judge[key]}")
    orders = judge.get("orders")
    if isinstance(orders, list):
        for order in orders:
            if isinstance(order, dict):
                lines.append(
                    "order " + ", ".join(f"{k}={v}" for k, v in order.items() if k in ("order", "choice", "value"))
                )
    return lines


def sample_of(record: Mapping[str, Any], model: str, dataset: str) -> Sample:
    messages = [m for m in record.get("messages") or [] if isinstance(m, dict)]
    target = messages[-1] if messages else {}
    history: list[tuple[str, str]] = []
    question = ""
    for message in messages[:-1]:
        history.append((_text(message.get("role")), _text(message.get("content"))))
    if history and history[-1][0] == "user":
        question = history.pop()[1]
    responses = []
    for response in target.get("responses") or []:
        if not isinstance(response, dict):
            continue
        responses.append(
            {
                "content": _text(response.get("content")),
                "score": response.get("score"),
                "metric": _text(response.get("metric")),
                "answer": _text(response.get("answer")),
                "analysis": _text(response.get("analysis")),
                "error": _text(response.get("error")),
                "settled": response.get("settled"),
                "verdicts": _verdicts(response.get("judge")),
                "outcome": _outcome([response]),
            }
        )
    return Sample(
        model,
        dataset,
        _text(record.get("session_id")),
        _outcome([r for r in target.get("responses") or [] if isinstance(r, dict)]),
        history,
        question,
        _text(target.get("reference_response")),
        responses,
    )


@dataclass
class SampleCollector:
    """Keeps up to :data:`MAX_SAMPLES` records for the browser and counts the rest."""

    samples: list[Sample] = field(default_factory=list)
    left_out: int = 0

    def add(self, record: Mapping[str, Any], model: str, dataset: str) -> None:
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append(sample_of(record, model, dataset))
        else:
            self.left_out += 1


# --- chart geometry (the template draws it) -------------------------------------------------------------


@dataclass
class Bar:
    label: str
    model: str
    colour: str
    y: float
    width: float
    value: str
    low: float | None
    high: float | None


def _bars(
    groups: list[tuple[str, list[tuple[str, float | None, Interval | None]]]], models: list[str], plot: float
) -> tuple[list[dict[str, Any]], float]:
    """Horizontal grouped bars on 0–100: one group per label, one bar per model; returns groups and height."""
    colour = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}
    out = []
    y = 10.0
    for label, values in groups:
        bars = []
        top = y
        for model, score, interval in values:
            if score is not None:
                bars.append(
                    Bar(
                        label,
                        model,
                        colour[model],
                        y,
                        max(0.0, min(100.0, score)) * plot / 100,
                        f"{score:.1f}",
                        None if interval is None else max(0.0, interval.low) * plot / 100,
                        None if interval is None else min(100.0, interval.high) * plot / 100,
                    )
                )
            y += 16
        out.append({"label": label, "y": top, "mid": (top + y) / 2, "bars": bars})
        y += 12
    return out, y + 20


def _radar(comp: Comparison, dims: list[str]) -> dict[str, Any] | None:
    """A radar of the dimension scores (three dimensions or more), one polygon per model."""
    if len(dims) < 3:
        return None
    radius, centre = 120.0, 170.0
    axes: list[dict[str, Any]] = []
    angles = [-math.pi / 2 + 2 * math.pi * i / len(dims) for i in range(len(dims))]
    for angle, dim in zip(angles, dims, strict=True):
        axes.append(
            {
                "label": dim,
                "x": centre + radius * math.cos(angle),
                "y": centre + radius * math.sin(angle),
                "lx": centre + (radius + 18) * math.cos(angle),
                "ly": centre + (radius + 18) * math.sin(angle),
                "anchor": "middle" if abs(math.cos(angle)) < 0.3 else ("start" if math.cos(angle) > 0 else "end"),
            }
        )
    polygons = []
    for i, (model, agg) in enumerate(comp.models.items()):
        points = []
        for angle, dim in zip(angles, dims, strict=True):
            d = agg.dimensions.get(dim)
            r = radius * (d.score or 0.0) / 100 if d else 0.0
            points.append(f"{centre + r * math.cos(angle):.1f},{centre + r * math.sin(angle):.1f}")
        polygons.append({"model": model, "colour": PALETTE[i % len(PALETTE)], "points": " ".join(points)})
    rings = [
        " ".join(f"{centre + radius * f * math.cos(a):.1f},{centre + radius * f * math.sin(a):.1f}" for a in angles)
        for f in (0.25, 0.5, 0.75, 1.0)
    ]
    return {"axes": axes, "polygons": polygons, "rings": rings, "centre": centre, "size": 2 * centre}


def _distribution(comp: Comparison) -> dict[str, Any]:
    """Per model, the share of records in each score bin (0, 0.1, …, 1; pairwise as its win rate)."""
    models = []
    for i, (model, agg) in enumerate(comp.models.items()):
        counts = [0] * 11
        for stats in agg.datasets.values():
            for value in stats.dimension_values():
                counts[max(0, min(10, round(value * 10)))] += 1
        total = sum(counts) or 1
        models.append({"model": model, "colour": PALETTE[i % len(PALETTE)], "shares": [c / total for c in counts]})
    return {"models": models, "bins": [f"{b / 10:.1f}" for b in range(11)]}


def _dataset_value(stats: DatasetStats | None) -> tuple[float | None, Interval | None]:
    if stats is None:
        return None, None
    if stats.is_pairwise:
        return stats.dimension_score, stats.win_interval
    return stats.score, stats.interval


def render_html(comp: Comparison, collector: SampleCollector | None = None, *, title: str = "Evaluation report") -> str:
    """The whole page as one string."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("scoring", "_report/templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    models = comp.names
    plot = 340.0
    dataset_groups = [
        (dataset, [(m, *_dataset_value(comp.models[m].datasets.get(dataset))) for m in models])
        for _, dataset in comp.dataset_names()
    ]
    dims = comp.dimension_names()
    dimension_groups = [
        (
            dim,
            [
                (m, d.score if d else None, d.interval if d else None)
                for m in models
                for d in [comp.models[m].dimensions.get(dim)]
            ],
        )
        for dim in dims
    ]
    dataset_bars, dataset_height = _bars(dataset_groups, models, plot)
    dimension_bars, dimension_height = _bars(dimension_groups, models, plot)
    samples = collector.samples if collector else []
    context = {
        "title": title,
        "models": [{"name": m, "colour": PALETTE[i % len(PALETTE)]} for i, m in enumerate(models)],
        "overall": [
            {"name": m, "score": a.overall, "interval": a.overall_interval, "void": a.void_note()}
            for m, a in comp.models.items()
        ],
        "tables": comparison_tables(comp),
        "notes": notes(comp),
        "plot": plot,
        "dataset_bars": dataset_bars,
        "dataset_height": dataset_height,
        "dimension_bars": dimension_bars,
        "dimension_height": dimension_height,
        "radar": _radar(comp, dims),
        "distribution": _distribution(comp),
        "samples": samples,
        "left_out": collector.left_out if collector else 0,
        "datasets": sorted({s.dataset for s in samples}),
        "outcomes": OUTCOMES,
    }
    return env.get_template("report.html.j2").render(**context)


def collect(records: Iterable[tuple[Mapping[str, Any], str, str]]) -> SampleCollector:
    collector = SampleCollector()
    for record, model, dataset in records:
        collector.add(record, model, dataset)
    return collector
