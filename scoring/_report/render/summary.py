"""An :class:`~scoring._report.figures.aggregate.Aggregate` as a readable table (text), Markdown, JSON, HTML or a
workbook.

The text and Markdown words are catalogue templates (:mod:`scoring._report.words`) in the report's language;
HTML and the workbook say English. The pieces every report shares (what a score is made of, the token totals,
a pairwise dataset's note) are here too."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from formatkit._core.issue_parts import escape_controls
from formatkit._core.record import JsonObject
from formatkit._core.xlsx_style import safe_text as cell_text
from scoring._report.figures.aggregate import Aggregate, DatasetStats
from scoring._report.figures.intervals import SMALL_N
from scoring._report.render.panel import PANEL_HEAD, panel_notes, panel_rows
from scoring._report.words import DEFAULT_LANG, heads, metric_word, say, say_count

__all__ = ["FORMATS", "coverage", "pairwise_note", "render", "token_note", "void_note", "write_xlsx"]

FORMATS = ("text", "json", "md", "html")

_COLUMNS = (
    "dimension",
    "dataset",
    "metric",
    "score",
    "strict",
    "records",
    "scored_records",
    "responses",
    "unscorable",
    "void",
    "pass@k",
    "majority",
    "tokens",
)
_LEFT = 3  # the first columns (dimension, dataset, metric) are left-aligned, the figures right


_HEAD = tuple(heads(_COLUMNS))  # the workbook's and the HTML's English heads


def coverage(s: DatasetStats, lang: str = DEFAULT_LANG) -> str | None:
    """What the score is made of, when it is not every response: ``1 of 2 records scored, 1 void
    verdict`` (None when every response was scored and no void verdict was counted as 0)."""
    if not s.unscorable and not s.void:
        return None
    parts = [say_count("coverage.scored", s.records, lang, k=s.scored_records)]
    if s.void:
        parts.append(say_count("coverage.void_as_zero" if s.void_as_zero else "coverage.void", s.void, lang))
    other = s.unscorable - (0 if s.void_as_zero else s.void)
    if other:
        parts.append(say_count("coverage.other", other, lang))
    return say("cell.parts_sep", lang).join(parts)


def void_note(agg: Aggregate, lang: str = DEFAULT_LANG) -> str | None:
    """``1 void verdict (left out of the scores; …)`` for the overall line; None without one."""
    if not agg.void:
        return None
    return say_count("void.as_zero" if agg.void_as_zero else "void.left_out", agg.void, lang)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _score_cell(s: DatasetStats, lang: str) -> str:
    """The score, its 95 % interval, and what a reader must know beside it (small n, unscored responses)."""
    cell = _num(s.score)
    if s.score is not None and s.interval is not None:
        cell += f" [{s.interval.low:.1f}, {s.interval.high:.1f}]"
    if s.small:
        cell = f"{cell} {say('cell.small', lang, n=s.scored_records)}"
    said = coverage(s, lang)
    return cell if said is None else say("cell.then", lang, cell=cell, more=said)


def _rows(agg: Aggregate, lang: str = DEFAULT_LANG) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for dim in agg.dimensions.values():
        for name in dim.datasets:
            s: DatasetStats = agg.datasets[name]
            d = s.to_dict()
            rows.append(
                (
                    dim.name,
                    name,
                    metric_word(s.metric, lang),
                    _score_cell(s, lang),
                    _num(d["strict"]),
                    str(s.records),
                    str(s.scored_records),
                    str(s.responses),
                    str(s.unscorable),
                    say("cell.as_zero", lang, n=s.void) if s.void and s.void_as_zero else str(s.void),
                    f"{_num(d['pass_at_k'])} (k={d['samples']})" if "pass_at_k" in d else "—",
                    _num(d.get("majority")),
                    str(s.usage["total_tokens"]),
                )
            )
    return rows


def _dimension_rows(agg: Aggregate) -> list[tuple[str, str, str]]:
    return [(d.name, _num(d.score), ", ".join(d.datasets)) for d in agg.dimensions.values()]


def pairwise_note(name: str, stats: DatasetStats, lang: str = DEFAULT_LANG) -> str | None:
    """A pairwise dataset on its own scale, and the judge's position bias when both orders were asked."""
    pairwise: Mapping[str, Any] | None = stats.to_dict().get("pairwise")
    if not pairwise:
        return None
    note = say(
        "note.pairwise_dataset",
        lang,
        name=name,
        mean=_num(pairwise["mean_x100"]),
        win=pairwise["win"],
        tie=pairwise["tie"],
        loss=pairwise["loss"],
    )
    if pairwise["pairs_both_orders"]:
        note = say(
            "note.position_bias",
            lang,
            note=note,
            disagreements=pairwise["disagreements"],
            pairs=pairwise["pairs_both_orders"],
            rate=f"{pairwise['disagreement_rate'] * 100:.1f}",
        )
    return note


def _overall(agg: Aggregate, lang: str = DEFAULT_LANG) -> str:
    """``50.00 [..] (mean of 1 dimension(s), 0–100; 1 void verdict (…))``; a dimension without a score is
    not counted in the mean, and said apart (``; 2 dimension(s) without a score``)."""
    interval = agg.overall_interval
    ci = f" [{interval.low:.1f}, {interval.high:.1f}]" if agg.overall is not None and interval else ""
    void = void_note(agg, lang)
    scored = sum(dim.score is not None for dim in agg.dimensions.values())
    unscored = len(agg.dimensions) - scored
    # the count said is the count averaged: a dimension without a score is not in the mean
    more = say("summary.without", lang, n=unscored) if unscored else ""
    more += say("summary.void", lang, void=void) if void else ""
    return say("summary.overall_cell", lang, score=f"{_num(agg.overall)}{ci}", n=scored, more=more)


def _notes(agg: Aggregate, lang: str = DEFAULT_LANG) -> list[str]:
    from scoring._report.render.overrides import override_note

    notes = [say("summary.legend", lang, small_n=SMALL_N)]
    notes += [
        say("note.metric", lang, name=name, metric=s.metric, note=s.note) for name, s in agg.datasets.items() if s.note
    ]
    notes += [n for n in (pairwise_note(name, s, lang) for name, s in agg.datasets.items()) if n]
    people = [override_note(name, s, lang) for name, s in agg.datasets.items()]
    return notes + panel_notes(agg, lang=lang) + [n for n in people if n]


def token_note(agg: Aggregate, lang: str = DEFAULT_LANG, model: str | None = None) -> list[str]:
    """The model's token totals, and the judges' apart from them when a judge was used (``model``: the
    lines of a report of several models, each named)."""
    lines = []
    for key, usage in (("tokens", agg.usage), ("judge_tokens", agg.judge_usage)):
        if key == "tokens" or any(usage.values()):
            figures = {
                "prompt": usage["prompt_tokens"],
                "completion": usage["completion_tokens"],
                "total": usage["total_tokens"],
            }
            if model is None:
                lines.append(say(f"summary.{key}", lang, **figures))
            else:
                lines.append(say(f"note.{key}", lang, model=model, **figures))
    return lines


def _md_cell(text: str) -> str:
    """A cell of a Markdown table: no control character, line break or ``|`` breaks the table or the terminal."""
    return escape_controls(text).replace("|", "\\|")


def _markdown(agg: Aggregate, lang: str) -> str:
    head = heads(_COLUMNS, lang)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in _rows(agg, lang)]
    out += ["", "| " + " | ".join(heads(("dimension", "score", "datasets"), lang)) + " |", "|---|---|---|"]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in _dimension_rows(agg)]
    out += [
        "",
        f"**{say('summary.overall', lang, overall=_overall(agg, lang))}**",
        "",
        *token_note(agg, lang),
    ]
    notes = _notes(agg, lang)
    if notes:
        out += ["", *[f"- {escape_controls(n)}" for n in notes]]
    return "\n".join(out) + "\n"


def _text(agg: Aggregate, lang: str) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(
        file=buffer, width=100_000, color_system=None, force_terminal=False, highlight=False, markup=False
    )
    table = Table(box=box.SIMPLE_HEAD, title=say("title.scores", lang))
    for j, name in enumerate(heads(_COLUMNS, lang)):
        table.add_column(name, justify="left" if j < _LEFT else "right")
    for row in _rows(agg, lang):
        table.add_row(*map(escape_controls, row))
    console.print(table)
    dims = Table(box=box.SIMPLE_HEAD, title=say("title.dimensions", lang))
    for name in heads(("dimension", "score", "datasets"), lang):
        dims.add_column(name)
    for row in _dimension_rows(agg):
        dims.add_row(*map(escape_controls, row))
    console.print(dims)
    console.print(say("summary.overall", lang, overall=_overall(agg, lang)))
    for line in token_note(agg, lang):
        console.print(line)
    for note in _notes(agg, lang):
        console.print(escape_controls(note))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def _html(agg: Aggregate) -> str:
    from html import escape

    def table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
        cells = "".join(f"<th>{escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
        return f"<table>\n<thead><tr>{cells}</tr></thead>\n<tbody>{body}</tbody>\n</table>"

    tokens = "".join(f"<p>{escape(line)}</p>\n" for line in token_note(agg))
    notes = "".join(f"<li>{escape(n)}</li>" for n in _notes(agg))
    return (
        '<!DOCTYPE html>\n<html lang="zh"><head><meta charset="utf-8"><title>Evaluation report</title>'
        "<style>body{font-family:sans-serif}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:nth-child(-n+3){text-align:left}</style>"
        "</head><body>\n<h1>Evaluation report</h1>\n"
        f"<p><strong>Overall: {escape(_overall(agg))}</strong></p>\n"
        f"<h2>Datasets</h2>\n{table(_HEAD, _rows(agg))}\n"
        f"<h2>Capability dimensions</h2>\n{table(('dimension', 'score', 'datasets'), _dimension_rows(agg))}\n"
        f"{tokens}" + (f"<ul>{notes}</ul>\n" if notes else "") + "</body></html>\n"
    )


def write_xlsx(agg: Aggregate, path: str) -> None:
    """The report as a workbook: a Datasets sheet, a Dimensions sheet and the overall score."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Datasets"
    ws.append(list(_HEAD))
    for name, stats in agg.datasets.items():
        d = stats.to_dict()
        ws.append(
            [
                None if stats.dimension is None else cell_text(stats.dimension),
                cell_text(name),
                stats.metric,
                stats.score,
                d["strict"],
                stats.records,
                stats.scored_records,
                stats.responses,
                stats.unscorable,
                stats.void,
                d.get("pass_at_k"),
                d.get("majority"),
                stats.usage["total_tokens"],
            ]
        )
    dims = wb.create_sheet("Dimensions")
    dims.append(["dimension", "score", "datasets"])
    for row in _dimension_rows(agg):
        dims.append([cell_text(row[0]), agg.dimensions[row[0]].score, cell_text(row[2])])
    dims.append([])
    dims.append(["overall", agg.overall])
    _panel_sheet(agg, wb)
    wb.save(path)


def _panel_sheet(agg: Aggregate, wb: Any) -> None:
    """A Judge panel sheet when a panel judged: one row per dataset and judge."""
    rows = list(panel_rows({"": agg}))
    if rows:
        ws = wb.create_sheet("Judge panel")
        ws.append(list(PANEL_HEAD[1:]))
        for row in rows:
            ws.append(row[1:])


def render(
    agg: Aggregate, fmt: str = "text", extra: Mapping[str, Any] | None = None, *, lang: str | None = None
) -> str:
    """The aggregate as ``text``, ``md``, ``html`` or ``json`` (``extra`` keys are added to the JSON);
    ``lang``: the language of the text and Markdown words (JSON and HTML keep English)."""
    if fmt == "json":
        data: JsonObject = {**agg.to_dict()}
        if extra:
            data.update(extra)
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "md":
        return _markdown(agg, lang or DEFAULT_LANG)
    if fmt == "html":
        return _html(agg)
    if fmt == "text":
        return _text(agg, lang or DEFAULT_LANG)
    raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
