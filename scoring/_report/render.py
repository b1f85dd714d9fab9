"""An :class:`~scoring._report.aggregate.Aggregate` as a readable table (text), Markdown, JSON, HTML or a workbook."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from formatkit._core.issue_parts import escape_controls
from formatkit._core.record import JsonObject
from formatkit._core.xlsx_style import safe_text as cell_text
from scoring._report.aggregate import Aggregate, DatasetStats
from scoring._report.intervals import SMALL_N
from scoring._report.panel import PANEL_HEAD, panel_notes, panel_rows

__all__ = ["FORMATS", "render", "write_xlsx"]

FORMATS = ("text", "json", "md", "html")

_HEAD = (
    "dimension",
    "dataset",
    "metric",
    "score",
    "strict",
    "records",
    "scored records",
    "responses",
    "unscorable responses",
    "void verdicts",
    "pass@k",
    "majority",
    "tokens",
)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _score_cell(s: DatasetStats) -> str:
    """The score, its 95 % interval, and what a reader must know beside it (small n, unscored responses)."""
    cell = _num(s.score)
    if s.score is not None and s.interval is not None:
        cell += f" [{s.interval.low:.1f}, {s.interval.high:.1f}]"
    if s.small:
        cell += f" (n={s.scored_records}, small)"
    coverage = s.coverage()
    return cell + (f"; {coverage}" if coverage else "")


def _rows(agg: Aggregate) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for dim in agg.dimensions.values():
        for name in dim.datasets:
            s: DatasetStats = agg.datasets[name]
            d = s.to_dict()
            rows.append(
                (
                    dim.name,
                    name,
                    s.metric or "?",
                    _score_cell(s),
                    _num(d["strict"]),
                    str(s.records),
                    str(s.scored_records),
                    str(s.responses),
                    str(s.unscorable),
                    str(s.void) + (" (as 0)" if s.void and s.void_as_zero else ""),
                    f"{_num(d['pass_at_k'])} (k={d['samples']})" if "pass_at_k" in d else "—",
                    _num(d.get("majority")),
                    str(s.usage["total_tokens"]),
                )
            )
    return rows


def _dimension_rows(agg: Aggregate) -> list[tuple[str, str, str]]:
    return [(d.name, _num(d.score), ", ".join(d.datasets)) for d in agg.dimensions.values()]


_LEGEND = (
    "score: mean score, 0–100 (math's loose accuracy), with its 95 % interval; strict: share of responses "
    "scoring 1.0 (math's strict accuracy); records and scored records count records, responses and unscorable "
    "responses count responses (a record holds one per sample); void verdicts: judge replies with no readable "
    f"verdict, among the unscorable (left out of the mean unless --void-as-zero); small: under {SMALL_N} "
    "scored records"
)


def _pairwise_note(name: str, stats: DatasetStats) -> str | None:
    pairwise: Mapping[str, Any] | None = stats.to_dict().get("pairwise")
    if not pairwise:
        return None
    note = (
        f"{name}: pairwise mean ×100 = {_num(pairwise['mean_x100'])} (−100..100); "
        f"win {pairwise['win']} / tie {pairwise['tie']} / loss {pairwise['loss']}"
    )
    if pairwise["pairs_both_orders"]:
        note += (
            f"; the two orders disagreed on {pairwise['disagreements']} of {pairwise['pairs_both_orders']} pairs "
            f"({pairwise['disagreement_rate'] * 100:.1f}%, the judge's position bias)"
        )
    return note


def _overall(agg: Aggregate) -> str:
    """``Overall: 50.00 [..] (mean of 1 dimension(s), 0–100; 1 void verdict (…))``; a dimension without
    a score is not counted in the mean, and said apart (``; 2 dimension(s) without a score``)."""
    interval = agg.overall_interval
    ci = f" [{interval.low:.1f}, {interval.high:.1f}]" if agg.overall is not None and interval else ""
    void = agg.void_note()
    scored = sum(dim.score is not None for dim in agg.dimensions.values())
    unscored = len(agg.dimensions) - scored
    # the count said is the count averaged: a dimension without a score is not in the mean
    without = f"; {unscored} dimension(s) without a score" if unscored else ""
    return f"{_num(agg.overall)}{ci} (mean of {scored} dimension(s), 0–100{without}" + (f"; {void})" if void else ")")


def _notes(agg: Aggregate) -> list[str]:
    from scoring._report.overrides import override_note

    notes = [_LEGEND] + [f"{name}: {s.metric} — {s.note}" for name, s in agg.datasets.items() if s.note]
    notes += [n for n in (_pairwise_note(name, s) for name, s in agg.datasets.items()) if n]
    return notes + panel_notes(agg) + [n for n in (override_note(name, s) for name, s in agg.datasets.items()) if n]


def _token_lines(agg: Aggregate) -> list[str]:
    """The model's token totals, and the judges' apart from them when a judge was used."""
    lines = []
    for label, usage in (("Tokens", agg.usage), ("Judge tokens", agg.judge_usage)):
        if label == "Tokens" or any(usage.values()):
            lines.append(
                f"{label}: {usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion = "
                f"{usage['total_tokens']} total"
            )
    return lines


def _md_cell(text: str) -> str:
    """A cell of a Markdown table: no control character, line break or ``|`` breaks the table or the terminal."""
    return escape_controls(text).replace("|", "\\|")


def _markdown(agg: Aggregate) -> str:
    out = ["| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in _rows(agg)]
    out += ["", "| dimension | score | datasets |", "|---|---|---|"]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in _dimension_rows(agg)]
    out += [
        "",
        f"**Overall: {_overall(agg)}**",
        "",
        *_token_lines(agg),
    ]
    notes = _notes(agg)
    if notes:
        out += ["", *[f"- {escape_controls(n)}" for n in notes]]
    return "\n".join(out) + "\n"


def _text(agg: Aggregate) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(
        file=buffer, width=100_000, color_system=None, force_terminal=False, highlight=False, markup=False
    )
    table = Table(box=box.SIMPLE_HEAD, title="Scores by dataset (0–100)")
    for name in _HEAD:
        table.add_column(name, justify="right" if name not in ("dimension", "dataset", "metric") else "left")
    for row in _rows(agg):
        table.add_row(*map(escape_controls, row))
    console.print(table)
    dims = Table(box=box.SIMPLE_HEAD, title="Capability dimensions")
    for name in ("dimension", "score", "datasets"):
        dims.add_column(name)
    for row in _dimension_rows(agg):
        dims.add_row(*map(escape_controls, row))
    console.print(dims)
    console.print(f"Overall: {_overall(agg)}")
    for line in _token_lines(agg):
        console.print(line)
    for note in _notes(agg):
        console.print(escape_controls(note))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def _html(agg: Aggregate) -> str:
    from html import escape

    def table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
        cells = "".join(f"<th>{escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
        return f"<table>\n<thead><tr>{cells}</tr></thead>\n<tbody>{body}</tbody>\n</table>"

    tokens = "".join(f"<p>{escape(line)}</p>\n" for line in _token_lines(agg))
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


def render(agg: Aggregate, fmt: str = "text", extra: Mapping[str, Any] | None = None) -> str:
    """The aggregate as ``text``, ``md``, ``html`` or ``json`` (``extra`` keys are added to the JSON)."""
    if fmt == "json":
        data: JsonObject = {**agg.to_dict()}
        if extra:
            data.update(extra)
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "md":
        return _markdown(agg)
    if fmt == "html":
        return _html(agg)
    if fmt == "text":
        return _text(agg)
    raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
