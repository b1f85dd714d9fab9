"""Several models side by side (a :class:`Comparison`) as text, Markdown or JSON: a leaderboard with the
models as columns, per-model details, and the paired differences.

Names (models, datasets, dimensions) are printed literally: rich never reads them as markup, Markdown gets
them backslash-escaped; in both, a control character, a bidi override or a line break in a name is shown as
its escape (:func:`~formatkit._core.issue_parts.escape_controls`), so a name cannot drive the terminal or
forge a line. The tables themselves (html and the workbook draw them too) hold the names as they are."""

from __future__ import annotations

import io
import re
import shutil
from dataclasses import dataclass

import orjson

from formatkit._core.issue_parts import escape_controls
from scoring._report.aggregate import Aggregate, DatasetStats
from scoring._report.intervals import SMALL_N, Interval
from scoring._report.models import INTERVAL_NOTE, PAIRWISE_NOTE, Comparison, Difference
from scoring._report.overrides import override_note
from scoring._report.panel import panel_notes
from scoring._report.render import _pairwise_note
from scoring._report.standings import standings_notes, standings_tables
from scoring._report.wording import translator

__all__ = ["Table", "comparison_tables", "notes", "render_comparison", "score_cell"]

LEGEND = (
    "cells: score on 0–100 with its 95 % interval in brackets; a pairwise dataset shows its win rate (what "
    "enters the dimension) here and its mean ×100 (−100..100) and win/tie/loss in the details; — = no scored record; "
    f"(n=…, small): fewer than {SMALL_N} scored records, one record moves the score by 100/n points; "
    "'k of n records scored, v void verdicts': not every response has a score (a void verdict is a judge reply "
    "with no readable verdict, left out of the mean unless --void-as-zero)"
)


@dataclass
class Table:
    """A titled table of text cells; ``numeric`` marks the right-aligned columns."""

    title: str
    head: list[str]
    rows: list[list[str]]
    numeric: set[int]


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ci(interval: Interval | None) -> str:
    return "" if interval is None else f" [{interval.low:.1f}, {interval.high:.1f}]"


def score_cell(score: float | None, interval: Interval | None) -> str:
    return "—" if score is None else f"{score:.2f}{_ci(interval)}"


def flags(stats: DatasetStats) -> str:
    """What a reader must know beside a dataset's score: a small n, responses without a score."""
    out = f" (n={stats.scored_records}, small)" if stats.small else ""
    coverage = stats.coverage()
    return out + (f"; {coverage}" if coverage else "")


def _dataset_cell(stats: DatasetStats | None) -> str:
    if stats is None:
        return ""
    if stats.is_pairwise:
        return f"{score_cell(stats.dimension_score, stats.win_interval)} win rate{flags(stats)}"
    return score_cell(stats.score, stats.interval) + flags(stats)


def _overall_cell(agg: Aggregate) -> str:
    cell = score_cell(agg.overall, agg.overall_interval)
    if agg.void:
        cell += f"; {agg.void} void verdict" + ("" if agg.void == 1 else "s")
        cell += " counted as 0" if agg.void_as_zero else ""
    return cell


def _pairwise_cell(stats: DatasetStats) -> str:
    """A pairwise dataset on its own scale: mean ×100 (−100..100) with its interval, win/tie/loss."""
    if not stats.is_pairwise:
        return ""
    counts = stats.pairwise
    return (
        f"mean×100 {score_cell(stats.score, stats.interval)}; win/tie/loss "
        f"{counts.get('win', 0)}/{counts.get('tie', 0)}/{counts.get('loss', 0)}"
    )


def _leaderboard(comp: Comparison) -> Table:
    """Each dimension heads its datasets (one that is its own dataset has its dataset row only)."""
    names = comp.names
    rows: list[list[str]] = []
    by_dim: dict[str, list[str]] = {}
    for dim, dataset in comp.dataset_names():
        by_dim.setdefault(dim, []).append(dataset)
    for dim, datasets in by_dim.items():
        if not all(list(d.datasets) == [dim] for a in comp.models.values() if (d := a.dimensions.get(dim))):
            cells = []
            for model in names:
                d = comp.models[model].dimensions.get(dim)
                cells.append(score_cell(d.score, d.interval) if d else "")
            rows.append([dim, "(dimension)", "", *cells])
        for dataset in datasets:
            first = next((a.datasets[dataset] for a in comp.models.values() if dataset in a.datasets), None)
            metric = (first.metric if first else None) or "?"
            rows.append([dim, dataset, metric, *(_dataset_cell(comp.models[m].datasets.get(dataset)) for m in names)])
    rows.append(["overall", "", "", *(_overall_cell(a) for a in comp.models.values())])
    return Table(
        "Leaderboard (0–100, 95 % interval)",
        ["dimension", "dataset", "metric", *names],
        rows,
        set(range(3, 3 + len(names))),
    )


_DETAIL_HEAD = [
    "model",
    "dataset",
    "metric",
    "records",
    "scored records",
    "responses",
    "unscorable responses",
    "void verdicts",
    "strict",
    "pass@k",
    "majority",
    "tokens",
    "interval",
    "pairwise",
]


def _details(comp: Comparison) -> Table:
    """Records and responses in columns of their own (with n samples a record holds n responses):
    scored records ≤ records, unscorable responses ≤ responses, void verdicts among the unscorable."""
    rows: list[list[str]] = []
    for model, agg in comp.models.items():
        for name, s in agg.datasets.items():
            d = s.to_dict()
            rows.append(
                [
                    model,
                    name,
                    s.metric or "?",
                    str(s.records),
                    str(s.scored_records),
                    str(s.responses),
                    str(s.unscorable),
                    str(s.void) + (" (as 0)" if s.void and s.void_as_zero else ""),
                    _num(d["strict"]),
                    f"{_num(d['pass_at_k'])} (k={d['samples']})" if "pass_at_k" in d else "—",
                    _num(d.get("majority")),
                    str(s.usage["total_tokens"]),
                    s.interval.method if s.interval else "—",
                    _pairwise_cell(s),
                ]
            )
    return Table("Details per model and dataset", list(_DETAIL_HEAD), rows, set(range(3, 12)))


def _difference_row(d: Difference) -> list[str]:
    verdict = "significant" if d.significant else "within noise (interval holds 0)"
    return [d.a, d.b, d.scope, str(d.records), f"{d.difference:+.2f}{_ci(d.interval)}", verdict]


def _differences(comp: Comparison) -> Table | None:
    if not comp.differences:
        return None
    rows = [_difference_row(d) for d in comp.differences]
    return Table(
        "Paired differences (a − b, on the records both answered)",
        ["a", "b", "scope", "paired records", "difference", "verdict"],
        rows,
        {3, 4},
    )


def comparison_tables(comp: Comparison) -> list[Table]:
    tables = [_leaderboard(comp), _details(comp)]
    diff = _differences(comp)
    tables = tables if diff is None else [*tables, diff]
    return tables + [Table(t.title, t.head, t.rows, t.numeric) for t in standings_tables(comp)]


def _tokens(model: str, agg: Aggregate) -> list[str]:
    lines = []
    for label, usage in (("tokens", agg.usage), ("judge tokens", agg.judge_usage)):
        if label == "tokens" or any(usage.values()):
            lines.append(
                f"{model}: {label} {usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion = "
                f"{usage['total_tokens']} total"
            )
    return lines


def notes(comp: Comparison) -> list[str]:
    """Legend, interval method, pairwise mapping, token totals, metric notes and judge position bias."""
    out = [LEGEND, INTERVAL_NOTE]
    if any(s.is_pairwise for a in comp.models.values() for s in a.datasets.values()):
        out.append(PAIRWISE_NOTE)
    for model, agg in comp.models.items():
        out += _tokens(model, agg)
        void = agg.void_note()
        if void:
            out.append(f"{model}: {void}")
        for name, s in agg.datasets.items():
            if s.note:
                out.append(f"{model} / {name}: {s.metric} — {s.note}")
            pairwise = _pairwise_note(f"{model} / {name}", s)
            if pairwise:
                out.append(pairwise)
            people = override_note(f"{model} / {name}", s)
            if people:
                out.append(people)
        out += panel_notes(agg, model)
    return out + standings_notes(comp)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def md_escape(text: str) -> str:
    """A cell as literal Markdown text: the characters that make emphasis, links, HTML, code or a cell
    border are backslash-escaped; line breaks become spaces, control characters their escapes."""
    return escape_controls(_MD_SPECIAL.sub(r"\\\1", text.replace("\r", " ").replace("\n", " ")))


def _markdown(comp: Comparison, lang: str | None = None) -> str:
    said = translator(lang)
    out: list[str] = []
    for table in comparison_tables(comp):
        out += [f"### {md_escape(said(table.title))}", ""]
        out.append("| " + " | ".join(md_escape(said(h)) for h in table.head) + " |")
        out.append("|" + "".join("---:|" if j in table.numeric else "---|" for j in range(len(table.head))))
        out += ["| " + " | ".join(md_escape(said(c)) for c in row) + " |" for row in table.rows]
        out.append("")
    out += [f"- {md_escape(said(n))}" for n in notes(comp)]
    return "\n".join(out) + "\n"


def _text(comp: Comparison, *, color: bool, width: int | None, lang: str | None = None) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    buffer = io.StringIO()
    # On a terminal the tables fit its width; elsewhere (a pipe, a file) they keep their natural width.
    console = Console(
        file=buffer,
        width=width or 100_000,
        color_system="standard" if color else None,
        force_terminal=color,
        highlight=False,
        markup=False,
        emoji=False,
    )
    said = translator(lang)  # the words in the reader's language (English: as built)
    for table in comparison_tables(comp):
        title = Text(escape_controls(said(table.title)))
        rich_table = RichTable(box=box.SIMPLE_HEAD, title=title, title_justify="left")
        for j, head in enumerate(table.head):
            column = Text(escape_controls(said(head)))
            rich_table.add_column(column, justify="right" if j in table.numeric else "left", overflow="fold")
        for row in table.rows:
            styles = [_style(table, j, row) if color else "" for j in range(len(row))]
            rich_table.add_row(*(Text(escape_controls(said(cell)), style=styles[j]) for j, cell in enumerate(row)))
        console.print(rich_table)
    for note in notes(comp):
        console.print(Text(escape_controls(said(note))))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def _style(table: Table, j: int, row: list[str]) -> str:
    if table.head and table.head[-1] == "verdict" and j == len(row) - 1:
        return "green" if row[j] in ("significant", "distinguishable") else "yellow"
    return ""


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 24)).columns


def render_comparison(
    comp: Comparison, fmt: str = "text", *, color: bool = False, width: int | None = None, lang: str | None = None
) -> str:
    """``text`` (``color`` and ``width`` for a terminal), ``md`` or ``json``; html and xlsx have their modules.
    ``lang``: the language of the text and Markdown words (:mod:`scoring._report.wording`; JSON keeps English)."""
    if fmt == "json":
        return orjson.dumps(comp.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "md":
        return _markdown(comp, lang)
    if fmt == "text":
        return _text(comp, color=color, width=width, lang=lang)
    raise ValueError(f"unknown report format {fmt!r}")
