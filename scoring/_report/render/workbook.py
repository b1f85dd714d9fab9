"""The report as a workbook: a leaderboard (models as columns, numbers as numbers, each score's interval in
two columns of its own, each dimension after its datasets, the row's best model in green, every model's
difference from the first), the questions side by side (one row per question: the question, the
reference, then each model's answer, extracted answer and score), per-model details, paired differences
and the notes; every sheet readable (:mod:`formatkit._core.xlsx_style`: bold frozen header, autofilter,
widths, text never a formula)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from formatkit._core.writers import save_workbook
from formatkit._core.xlsx_style import Fill, Sheet, write_sheet
from scoring._report.figures.flips import flip_sheet, rationale
from scoring._report.figures.intervals import Interval
from scoring._report.figures.models import Comparison
from scoring._report.figures.questions import Answer, SampleCollector, outcome_of
from scoring._report.render.leaderboard import notes
from scoring._report.render.panel import PANEL_HEAD, panel_rows
from scoring._report.render.runs import runs_sheets
from scoring._report.render.standings import standings_sheets

__all__ = ["write_report_xlsx"]


def _triple(score: float | None, interval: Interval | None) -> list[Any]:
    return [score, interval.low if interval else None, interval.high if interval else None]


def _stats_triple(comp: Comparison, model: str, dataset: str) -> tuple[list[Any], str | None]:
    stats = comp.models[model].datasets.get(dataset)
    if stats is None:
        return [None, None, None], None
    if stats.is_pairwise:
        return _triple(stats.dimension_score, stats.win_interval), "pairwise (win rate)"
    return _triple(stats.score, stats.interval), stats.metric


def _leaderboard(comp: Comparison) -> Sheet:
    names = comp.names
    head = ["dimension", "dataset", "metric"]
    for model in names:
        head += [model, f"{model} low", f"{model} high"]
    deltas = [f"Δ {model} − {names[0]}" for model in names[1:]]
    sheet = Sheet("Leaderboard", head + deltas, decimals=set(head[3:]) | set(deltas))
    by_dim: dict[str, list[str]] = {}
    for dim, dataset in comp.dataset_names():
        by_dim.setdefault(dim, []).append(dataset)
    exact: list[list[float | None]] = []  # each row's scores unrounded: the Δ columns are taken from them
    for dim, datasets in by_dim.items():  # each dimension, then its datasets
        row: list[Any] = [dim, "(dimension)", None]
        dims = [comp.models[model].dimensions.get(dim) for model in names]
        for d in dims:
            row += _triple(d.score, d.interval) if d else [None, None, None]
        sheet.rows.append(row)
        exact.append([d.exact if d else None for d in dims])
        for dataset in datasets:
            row = [dim, dataset, None]
            for model in names:
                cells, metric = _stats_triple(comp, model, dataset)
                row[2] = row[2] or metric
                row += cells
            sheet.rows.append(row)
            stats = [comp.models[model].datasets.get(dataset) for model in names]
            exact.append([s.dimension_mean if s else None for s in stats])
    overall: list[Any] = ["overall", None, None]
    for agg in comp.models.values():
        overall += _triple(agg.overall, agg.overall_interval)
    sheet.rows.append(overall)
    exact.append([agg.overall_exact for agg in comp.models.values()])
    for row, values in zip(sheet.rows, exact, strict=True):
        first = values[0]
        row += [None if first is None or v is None else round(v - first, 4) for v in values[1:]]
    _void_columns(comp, sheet)
    sheet.fills = [_best(row, len(names)) for row in sheet.rows]
    return sheet


def _void_columns(comp: Comparison, sheet: Sheet) -> None:
    """When any judge verdict was void, each model's void verdicts on every row (left out of its score, or
    counted as 0 with --void-as-zero): the leaderboard says what changed the number it shows."""
    if not any(agg.void for agg in comp.models.values()):
        return
    zero = any(agg.void_as_zero for agg in comp.models.values())
    label = " (counted as 0)" if zero else " (left out)"
    sheet.header = [*sheet.header, *(f"{model} void verdicts{label}" for model in comp.names)]
    for row in sheet.rows:
        for model in comp.names:
            agg = comp.models[model]
            if row[0] == "overall" and row[1] is None:
                row.append(agg.void)
            elif row[1] == "(dimension)":
                d = agg.dimensions.get(row[0])
                row.append(sum(agg.datasets[n].void for n in d.datasets if n in agg.datasets) if d else None)
            else:
                stats = agg.datasets.get(row[1])
                row.append(stats.void if stats is not None else None)


def _best(row: list[Any], models: int) -> list[Fill | None]:
    """The best score of the row in green when several models compete."""
    fills: list[Fill | None] = [None] * len(row)
    scores = [(row[3 + 3 * i], 3 + 3 * i) for i in range(models) if isinstance(row[3 + 3 * i], float | int)]
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


def _mean(values: list[Any]) -> float | None:
    numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return sum(numbers) / len(numbers) if numbers else None


def _answer_cells(collector: SampleCollector, answer: Answer | None) -> tuple[list[Any], Fill | None]:
    """A model's reply (its first sample), extracted answer(s), score (the mean over samples) and the
    rationale its scorer gave (the judge's, or the rule's analysis)."""
    if answer is None:
        return [None, None, None, None], None
    text = collector.strings
    replies = [text[r["content"]] or text[r["error"]] for r in answer.responses]
    extracted = [text[r["answer"]] for r in answer.responses if text[r["answer"]]]
    reply = replies[0] if replies else None
    if len(replies) > 1:
        reply = f"{reply}\n[+{len(replies) - 1} more sample(s): the HTML report and `formatkit export` show every one]"
    score = _mean([r["score"] for r in answer.responses])
    outcome = outcome_of([r["fraction"] for r in answer.responses])
    fill = {"right": "right", "wrong": "wrong", "partial": "partial"}.get(outcome)
    return [reply, " | ".join(extracted) or None, score, rationale(collector, answer)], fill


def _questions(collector: SampleCollector) -> Sheet:
    """One row per question: the question and reference, then each model's answer, extracted answer and
    score (coloured right / partial / wrong), and whether the models' outcomes differ."""
    models = collector.models
    head = ["dataset", "session_id", "question", "reference"]
    for model in models:
        head += [f"{model} answer", f"{model} extracted", f"{model} score", f"{model} rationale"]
    if len(models) > 1:
        head.append("models disagree")
    sheet = Sheet("Questions", head, decimals={f"{m} score" for m in models})
    text = collector.strings
    for question in collector.questions:
        row: list[Any] = [
            text[question.dataset],
            question.session_id,
            text[question.question],
            text[question.reference],
        ]
        fills: list[Fill | None] = [None] * 4
        for number in range(len(models)):
            cells, fill = _answer_cells(collector, question.answers.get(number))
            row += cells
            fills += [None, None, fill, None]
        if len(models) > 1:
            row.append(question.disagree)
            fills.append(None)
        sheet.rows.append(row)
        sheet.fills.append(fills)
    return sheet


def _differences(comp: Comparison) -> Sheet:
    head = ["a", "b", "scope", "paired records", "difference", "low", "high", "significant"]
    sheet = Sheet("Differences", head, decimals={"difference", "low", "high"})
    for d in comp.differences:
        sheet.rows.append([d.a, d.b, d.scope, d.records, *_triple(d.difference, d.interval), d.significant])
    return sheet


def write_report_xlsx(comp: Comparison, path: Path, samples: SampleCollector | None = None) -> None:
    """Write the workbook to ``path`` atomically; ``samples`` (collected records) add the Questions sheet."""
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    sheets = [_leaderboard(comp)]
    if samples is not None and samples.questions:
        sheets.append(_questions(samples))
    for sheet in (*sheets, _details(comp), _differences(comp), *runs_sheets(comp.runs, comp.speed)):
        write_sheet(workbook, sheet)
    for sheet in standings_sheets(comp):
        write_sheet(workbook, sheet)
    flips = flip_sheet(comp, samples) if samples is not None else None
    if flips is not None:
        write_sheet(workbook, flips)
    panel = list(panel_rows(comp.models))
    if panel:  # a judge panel judged: each judge's figures per model and dataset
        write_sheet(workbook, Sheet("Judge panel", list(PANEL_HEAD), rows=panel))
    lines = notes(comp)
    if samples is not None and samples.left_out:
        lines.append(
            f"Questions lists the first {len(samples.questions)} questions; {samples.left_out} more record(s) "
            "are counted in the scores but not listed"
        )
    note_sheet = Sheet("Notes", ["note"], rows=[[n] for n in lines])
    write_sheet(workbook, note_sheet)
    save_workbook(workbook, path)
