"""The report as a workbook: a leaderboard (models as columns, numbers as numbers, each score's interval in
two columns of its own), per-model details, paired differences and the notes; every sheet readable
(:mod:`formatkit._api.xlsx_style`: bold frozen header, autofilter, widths, text never a formula)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from formatkit._api.xlsx_style import Fill, Sheet, write_sheet
from formatkit._core.writers import atomic_writer
from scoring._report.intervals import Interval
from scoring._report.leaderboard import notes
from scoring._report.models import Comparison

__all__ = ["write_report_xlsx"]


def _triple(score: float | None, interval: Interval | None) -> list[Any]:
    return [score, interval.low if interval else None, interval.high if interval else None]


def _leaderboard(comp: Comparison) -> Sheet:
    """Models as columns: score, low, high, and — when any judge verdict was void — the void verdicts
    beside the score they changed (left out of it, or counted as 0 with --void-as-zero)."""
    voids = any(agg.void for agg in comp.models.values())
    zero = any(agg.void_as_zero for agg in comp.models.values())
    head = ["dimension", "dataset", "metric"]
    for model in comp.names:
        head += [model, f"{model} low", f"{model} high"]
        if voids:
            head.append(f"{model} void verdicts" + (" (counted as 0)" if zero else " (left out)"))
    stride = 4 if voids else 3
    sheet = Sheet("Leaderboard", head, decimals={h for i, h in enumerate(head[3:]) if i % stride < 3})
    for dim, dataset in comp.dataset_names():
        row: list[Any] = [dim, dataset, None]
        for model in comp.names:
            stats = comp.models[model].datasets.get(dataset)
            if stats is None:
                row += [None] * stride
                continue
            row[2] = row[2] or stats.metric
            if stats.is_pairwise:
                row += _triple(stats.dimension_score, stats.win_interval)
                row[2] = "pairwise (win rate)"
            else:
                row += _triple(stats.score, stats.interval)
            if voids:
                row.append(stats.void)
        sheet.rows.append(row)
    for dim in comp.dimension_names():
        row = [dim, "(dimension)", None]
        for model in comp.names:
            agg = comp.models[model]
            d = agg.dimensions.get(dim)
            row += _triple(d.score, d.interval) if d else [None, None, None]
            if voids:
                row.append(sum(agg.datasets[n].void for n in d.datasets if n in agg.datasets) if d else None)
        sheet.rows.append(row)
    overall: list[Any] = ["overall", None, None]
    for agg in comp.models.values():
        overall += _triple(agg.overall, agg.overall_interval)
        if voids:
            overall.append(agg.void)
    sheet.rows.append(overall)
    sheet.fills = [_best(row, len(comp.names), stride) for row in sheet.rows]
    return sheet


def _best(row: list[Any], models: int, stride: int = 3) -> list[Fill | None]:
    """The best score of the row in green when several models compete."""
    fills: list[Fill | None] = [None] * len(row)
    scores = [
        (row[3 + stride * i], 3 + stride * i) for i in range(models) if isinstance(row[3 + stride * i], float | int)
    ]
    if models > 1 and len(scores) > 1:
        fills[max(scores)[1]] = "right"
    return fills


def _details(comp: Comparison) -> Sheet:
    head = [
        "model",
        "dataset",
        "dimension",
        "metric",
        "score",
        "low",
        "high",
        "interval",
        "strict",
        "records",
        "scored records",
        "unscorable",
        "pass@k",
        "samples",
        "majority",
        "win",
        "tie",
        "loss",
        "win rate",
        "prompt tokens",
        "completion tokens",
        "total tokens",
        "judge tokens",
        "void verdicts",
        "small",
    ]
    sheet = Sheet("Details", head, decimals={"score", "low", "high", "strict", "pass@k", "majority", "win rate"})
    for model, agg in comp.models.items():
        for name, s in agg.datasets.items():
            d = s.to_dict()
            sheet.rows.append(
                [
                    model,
                    name,
                    s.dimension,
                    s.metric,
                    *_triple(s.score, s.interval),
                    s.interval.method if s.interval else None,
                    d["strict"],
                    s.records,
                    s.scored_records,
                    s.unscorable,
                    d.get("pass_at_k"),
                    d.get("samples"),
                    d.get("majority"),
                    s.pairwise.get("win") if s.is_pairwise else None,
                    s.pairwise.get("tie") if s.is_pairwise else None,
                    s.pairwise.get("loss") if s.is_pairwise else None,
                    s.dimension_score if s.is_pairwise else None,
                    s.usage["prompt_tokens"],
                    s.usage["completion_tokens"],
                    s.usage["total_tokens"],
                    s.judge_usage["total_tokens"],
                    s.void,
                    s.small,
                ]
            )
    return sheet


def _differences(comp: Comparison) -> Sheet:
    head = ["a", "b", "scope", "paired records", "difference", "low", "high", "significant"]
    sheet = Sheet("Differences", head, decimals={"difference", "low", "high"})
    for d in comp.differences:
        sheet.rows.append([d.a, d.b, d.scope, d.records, *_triple(d.difference, d.interval), d.significant])
    return sheet


def write_report_xlsx(comp: Comparison, path: Path) -> None:
    """Write the workbook to ``path`` atomically."""
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    for sheet in (_leaderboard(comp), _details(comp), _differences(comp)):
        write_sheet(workbook, sheet)
    note_sheet = Sheet("Notes", ["note"], rows=[[n] for n in notes(comp)])
    write_sheet(workbook, note_sheet)
    with atomic_writer(path) as handle:
        workbook.save(handle)
