"""The report as one self-contained HTML page: works offline (no CDN, no external file), everything escaped.

jinja2 renders ``templates/report.html.j2`` with autoescaping on; the charts are SVG drawn by the
template from geometry computed here (bars with their 95 % intervals, a radar of the dimensions with
numbered axes and a legend, score distributions with axis values), so the page needs no plotting
library. The leaderboard marks each row's best model and shows every model's difference from the first.

The question browser compares the models side by side: one card per question (its conversation once,
the reference, then each model's answer with its score and extracted answer), filtered by dataset, by
each model's outcome ("A right, B wrong"), by agreement and by text, disagreements first. Its data is
one JSON block (every distinct text once: see :mod:`scoring._report.figures.questions`) that a small inline
script renders a page of cards at a time, as the reader scrolls; text goes in through ``textContent``,
never as markup.
"""

from __future__ import annotations

import base64
import gzip
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

import orjson

from formatkit._core.record import RecordDict
from scoring._report.figures.aggregate import DatasetStats
from scoring._report.figures.intervals import Interval
from scoring._report.figures.models import Comparison
from scoring._report.figures.questions import (
    MAX_SAMPLES,
    OUTCOMES,
    Answer,
    Question,
    Sample,
    SampleCollector,
    SampleText,
)
from scoring._report.figures.shapes import (
    Cell,
    Delta,
    Distribution,
    DistributionModel,
    Leaderboard,
    LeaderboardRow,
    PageAnswer,
    PageData,
    PageQuestion,
    PageResponse,
    Radar,
    RadarAxis,
    RadarLegend,
    RadarPolygon,
    ShortText,
    Tick,
)
from scoring._report.render.leaderboard import comparison_tables, flags, notes
from scoring._report.render.summary import void_note

__all__ = ["MAX_SAMPLES", "SampleCollector", "page_data", "render_html", "short_labels"]

PALETTE = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e"]
_SEPARATOR = re.compile(r"[_\-/. :·]")


# --- labels -----------------------------------------------------------------------------------------------


def _middle(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters in the middle (the end of a name tells names apart)."""
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def short_labels(names: list[str], width: int) -> list[str]:
    """Short, distinct labels: a prefix every name shares (up to a separator) is dropped, the rest is cut
    in the middle to ``width``; names that would still read alike keep their full text cut the same way."""
    prefix = ""
    if len(names) > 1:
        common = names[0]
        for name in names[1:]:
            while not name.startswith(common):
                common = common[:-1]
        cut = max((m.end() for m in _SEPARATOR.finditer(common)), default=0)
        if all(len(name) > cut for name in names):
            prefix = common[:cut]
    labels = [_middle(name[len(prefix) :], width) for name in names]
    if len(set(labels)) < len(labels):
        labels = [_middle(name, width) for name in names]
    return labels


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


class BarGroup(TypedDict):
    """One label's bars (a dataset or a dimension), one per model, from height ``y``."""

    label: str
    short: str
    y: float
    mid: float
    bars: list[Bar]


def _bars(
    groups: list[tuple[str, list[tuple[str, float | None, Interval | None]]]], models: list[str], plot: float
) -> tuple[list[BarGroup], float]:
    """Horizontal grouped bars on 0–100: one group per label, one bar per model; returns groups and height."""
    colour = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}
    shorts = short_labels([label for label, _ in groups], 28)
    out: list[BarGroup] = []
    y = 10.0
    for (label, values), short in zip(groups, shorts, strict=True):
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
        out.append({"label": label, "short": short, "y": top, "mid": (top + y) / 2, "bars": bars})
        y += 12
    return out, y + 20


def _radar(comp: Comparison, dims: list[str]) -> Radar | None:
    """A radar of the dimension scores (three dimensions or more), one polygon per model; each axis is
    numbered and named short, and a legend gives the full names and every model's score."""
    if len(dims) < 3:
        return None
    radius, centre = 120.0, 170.0
    axes: list[RadarAxis] = []
    angles = [-math.pi / 2 + 2 * math.pi * i / len(dims) for i in range(len(dims))]
    shorts = short_labels(dims, 16)
    for number, (angle, dim, short) in enumerate(zip(angles, dims, shorts, strict=True), 1):
        axes.append(
            {
                "label": dim,
                "short": f"{number} {short}",
                "x": centre + radius * math.cos(angle),
                "y": centre + radius * math.sin(angle),
                "lx": centre + (radius + 14) * math.cos(angle),
                "ly": centre + (radius + 14) * math.sin(angle),
                "anchor": "middle" if abs(math.cos(angle)) < 0.3 else ("start" if math.cos(angle) > 0 else "end"),
            }
        )
    polygons: list[RadarPolygon] = []
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
    legend: list[RadarLegend] = [
        {
            "number": number,
            "label": dim,
            "scores": [_num(d.score if d else None) for agg in comp.models.values() for d in [agg.dimensions.get(dim)]],
        }
        for number, dim in enumerate(dims, 1)
    ]
    return {"axes": axes, "polygons": polygons, "rings": rings, "centre": centre, "size": 2 * centre, "legend": legend}


def _distribution(comp: Comparison) -> Distribution:
    """Per model, the share of records in each score bin (0, 0.1, …, 1; pairwise as its win rate), and
    the y axis: its top (a round share above the highest bar) and ticks."""
    models: list[DistributionModel] = []
    highest = 0.0
    for i, (model, agg) in enumerate(comp.models.items()):
        counts = [0] * 11
        for stats in agg.datasets.values():
            for value in stats.dimension_values():
                counts[max(0, min(10, round(value * 10)))] += 1
        total = sum(counts) or 1
        shares = [c / total for c in counts]
        highest = max(highest, *shares)
        models.append({"model": model, "colour": PALETTE[i % len(PALETTE)], "shares": shares})
    top = next((t for t in (0.1, 0.2, 0.25, 0.4, 0.5, 0.6, 0.8, 1.0) if highest <= t), 1.0)
    ticks: list[Tick] = [{"share": top * k / 4, "label": f"{top * k / 4 * 100:.0f} %"} for k in range(5)]
    return {"models": models, "bins": [f"{b / 10:.1f}" for b in range(11)], "top": top, "ticks": ticks}


def _dataset_value(stats: DatasetStats | None) -> tuple[float | None, Interval | None]:
    if stats is None:
        return None, None
    if stats.is_pairwise:
        return stats.dimension_score, stats.win_interval
    return stats.score, stats.interval


# --- the leaderboard ---------------------------------------------------------------------------------------


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _cell(score: float | None, interval: Interval | None, suffix: str = "", exact: float | None = None) -> Cell:
    ci = "" if interval is None else f" [{interval.low:.1f}, {interval.high:.1f}]"
    cell: Cell = {"value": score, "text": _num(score), "ci": ci if score is not None else "", "suffix": suffix}
    cell["exact"] = score if exact is None or score is None else exact
    return cell


def _void(count: int, as_zero: bool) -> str:
    if not count:
        return ""
    return f"; {count} void verdict{'' if count == 1 else 's'}" + (" counted as 0" if as_zero else "")


def _leaderboard(comp: Comparison) -> Leaderboard:
    """Rows grouped by dimension: the dimension, then its datasets; overall last. Each row marks its best
    model (several models that do not all tie) and gives each model's difference from the first, with the
    paired test's verdict where there is one (datasets and overall)."""
    names = comp.names
    paired = {(d.a, d.b, d.scope): d for d in comp.differences}
    by_dim: dict[str, list[str]] = {}
    for dim, dataset in comp.dataset_names():
        by_dim.setdefault(dim, []).append(dataset)
    rows: list[LeaderboardRow] = []
    for dim, datasets in by_dim.items():
        own = all(list(d.datasets) == [dim] for a in comp.models.values() if (d := a.dimensions.get(dim)))
        if not own:  # the dimension heads its datasets (one that is its own dimension: its row says it)
            cells = []
            for model in names:
                d = comp.models[model].dimensions.get(dim)
                cells.append(_cell(d.score if d else None, d.interval if d else None, exact=d.exact if d else None))
            rows.append({"kind": "dimension", "dimension": dim, "dataset": "", "metric": "", "cells": cells})
        for dataset in datasets:
            stats = [comp.models[m].datasets.get(dataset) for m in names]
            first = next((s for s in stats if s is not None), None)
            pairwise = first is not None and first.is_pairwise
            metric = "pairwise (win rate)" if pairwise else (first.metric if first else None) or "?"
            cells = [
                _cell(*_dataset_value(s), flags(s), exact=s.dimension_mean) if s is not None else _cell(None, None)
                for s in stats
            ]
            kind = "dataset" if not own else "own"
            rows.append({"kind": kind, "dimension": dim, "dataset": dataset, "metric": metric, "cells": cells})
    cells = [
        _cell(a.overall, a.overall_interval, _void(a.void, a.void_as_zero), exact=a.overall_exact)
        for a in comp.models.values()
    ]
    rows.append({"kind": "overall", "dimension": "overall", "dataset": "", "metric": "", "cells": cells})
    for row in rows:
        values = [c["value"] for c in row["cells"] if c["value"] is not None]
        best = max(values) if len(values) > 1 and len(set(values)) > 1 else None
        for c in row["cells"]:
            c["best"] = best is not None and c["value"] == best
        row["deltas"] = [_delta(row, names, i, paired) for i in range(1, len(names))]
    heads = [f"Δ {m} − {names[0]}" for m in names[1:]]
    return {"models": names, "rows": rows, "delta_heads": heads}


def _delta(row: LeaderboardRow, names: list[str], i: int, paired: Mapping[tuple[str, str, str], Any]) -> Delta:
    # from the unrounded scores: 35.17 where the pairs table says 35.17, never 35.16 from rounded parts
    first, other = row["cells"][0].get("exact"), row["cells"][i].get("exact")
    if first is None or other is None:
        return {"text": "", "class": "", "title": ""}
    value = other - first
    scope = {"dataset": row["dataset"], "own": row["dataset"], "overall": "overall"}.get(row["kind"])
    test = paired.get((names[0], names[i], scope)) if scope else None
    title, mark = "", ""
    if test is not None:
        verdict = "significant" if test.significant else "within noise (the interval holds 0)"
        ci = f" [{-test.interval.high:.1f}, {-test.interval.low:.1f}]" if test.interval else ""
        title = f"paired on {test.records} records: {-test.difference:+.2f}{ci}, {verdict}"
        mark = " *" if test.significant else " ≈"
    cls = "up" if value > 0 else "down" if value < 0 else ""
    return {"text": f"{value:+.2f}{mark}", "class": cls, "title": title}


# --- the question browser's data ---------------------------------------------------------------------------


#: Outcomes as the browser's data spells them (one letter each).
OUTCOME_CODES = {"right": "r", "partial": "p", "wrong": "w", "unscorable": "u"}
#: Above this size the browser's data travels gzipped (base64) and the page unpacks it
#: (DecompressionStream); text of real replies shrinks about threefold.
PACK_ABOVE = 256 * 1024


def page_data(collector: SampleCollector | None) -> PageData:
    """The browser's data, compact: the models, the string table, conversation prefixes and the questions.
    A question is ``{"d": dataset, "id": session_id, "q": question, "r": reference, "g": spread, "a":
    answers}`` with ``a`` one entry per model (null: no answer); an answer is ``{"h": prefix, "r":
    responses}`` (plus its mean ``s`` and outcome ``o`` when it has several responses); a response is
    ``{"o": outcome letter, "s": score, "c": reply, "x": extracted answer, "m": metric, "n": analysis,
    "e": error, "v": judge verdicts, "u": 1 when not settled}``. Texts are string-table numbers; empty
    ones, a zero spread and prefix 0 are left out."""
    if collector is None:
        return {"models": [], "strings": [], "prefixes": [], "questions": [], "left_out": 0}
    empty = collector.text("")

    def response(r: Sample) -> PageResponse:
        out: PageResponse = {"o": OUTCOME_CODES[r["outcome"]]}
        if r["score"] is not None:
            out["s"] = r["score"]
        texts: tuple[tuple[SampleText, ShortText], ...] = (
            ("content", "c"),
            ("answer", "x"),
            ("metric", "m"),
            ("analysis", "n"),
            ("error", "e"),
        )
        for key, short in texts:
            if r[key] != empty:
                out[short] = r[key]
        if r["verdicts"] != empty:
            out["v"] = r["verdicts"]
        if r["unsettled"]:
            out["u"] = 1
        return out

    def answer(a: Answer | None) -> PageAnswer | None:
        if a is None:
            return None
        out: PageAnswer = {"r": [response(r) for r in a.responses]}
        if a.history:
            out["h"] = a.history
        if len(a.responses) != 1:
            out["o"] = OUTCOME_CODES[a.outcome]
            if a.score is not None:
                out["s"] = round(a.score, 4)
        return out

    def question(q: Question) -> PageQuestion:
        out: PageQuestion = {"d": q.dataset, "id": q.session_id, "q": q.question, "r": q.reference}
        if q.spread:
            out["g"] = round(q.spread, 4)
        out["a"] = [answer(q.answers.get(m)) for m in range(len(collector.models))]
        return out

    return {
        "models": collector.models,
        "strings": collector.strings,
        "prefixes": [[list(turn) for turn in prefix] for prefix in collector.prefixes],
        "questions": [question(q) for q in collector.questions],
        "left_out": collector.left_out,
    }


def _script_json(data: Any) -> tuple[str, str]:
    """The data as the text of a <script> element, and its encoding: JSON with no "<" at all (so never
    "</script>" or "<!--"), or, when large, that JSON gzipped and in base64."""
    raw = orjson.dumps(data)
    if len(raw) <= PACK_ABOVE:
        return raw.decode("utf-8").replace("<", "\\u003c"), "json"
    packed = gzip.compress(raw, compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii"), "gzip+base64"


def render_html(comp: Comparison, collector: SampleCollector | None = None, *, title: str = "Evaluation report") -> str:
    """The whole page as one string."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("scoring", "_report/render/templates"),
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
    data = page_data(collector)
    if collector is not None:  # the browser's colours and order follow the report's models
        order = {name: i for i, name in enumerate(models)}
        data["colours"] = [PALETTE[order.get(m, i) % len(PALETTE)] for i, m in enumerate(collector.models)]
    packed, encoding = _script_json(data)
    context = {
        "title": title,
        "models": [{"name": m, "colour": PALETTE[i % len(PALETTE)]} for i, m in enumerate(models)],
        "overall": [
            {"name": m, "score": a.overall, "interval": a.overall_interval, "void": void_note(a)}
            for m, a in comp.models.items()
        ],
        "leaderboard": _leaderboard(comp),
        "tables": comparison_tables(comp)[1:],  # the leaderboard is drawn above, with highlights and deltas
        "notes": notes(comp),
        "plot": plot,
        "dataset_bars": dataset_bars,
        "dataset_height": dataset_height,
        "dimension_bars": dimension_bars,
        "dimension_height": dimension_height,
        "radar": _radar(comp, dims),
        "distribution": _distribution(comp),
        "data_json": packed,
        "data_encoding": encoding,
        "question_count": len(data["questions"]),
        "left_out": data["left_out"],
        "outcomes": OUTCOMES,
    }
    return env.get_template("report.html.j2").render(**context)


def collect(records: Iterable[tuple[RecordDict, str, str]]) -> SampleCollector:
    collector = SampleCollector()
    for record, model, dataset in records:
        collector.add(record, model, dataset)
    return collector
