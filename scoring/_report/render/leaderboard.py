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
from scoring._report.figures.aggregate import Aggregate, DatasetStats
from scoring._report.figures.calibration import calibration_notes
from scoring._report.figures.intervals import SMALL_N, Interval
from scoring._report.figures.models import ALL_PAIRS_UP_TO, Comparison, Difference, interval_note
from scoring._report.render.overrides import override_note
from scoring._report.render.panel import panel_notes
from scoring._report.render.standings import standings_notes, standings_tables
from scoring._report.render.summary import coverage, pairwise_note, token_note, void_note
from scoring._report.words import DEFAULT_LANG, heads, metric_word, say, say_count

__all__ = [
    "LEGEND",
    "Table",
    "comparison_tables",
    "flagged",
    "flags",
    "legend",
    "notes",
    "render_comparison",
    "score_cell",
]


def legend(lang: str = DEFAULT_LANG) -> str:
    """What the leaderboard's cells say (the first note)."""
    return say("note.legend", lang, small_n=SMALL_N)


LEGEND = legend()


@dataclass
class Table:
    """A titled table of text cells; ``numeric`` marks the right-aligned columns."""

    title: str
    head: list[str]
    rows: list[list[str]]
    numeric: set[int]
    #: the verdict column and, per row, whether its verdict tells the models apart (a terminal colours it)
    verdicts: tuple[int, list[bool]] | None = None


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ci(interval: Interval | None) -> str:
    return "" if interval is None else f" [{interval.low:.1f}, {interval.high:.1f}]"


def score_cell(score: float | None, interval: Interval | None) -> str:
    return "—" if score is None else f"{score:.2f}{_ci(interval)}"


def flagged(cell: str, stats: DatasetStats, lang: str = DEFAULT_LANG) -> str:
    """A dataset's score cell with what a reader must know beside it: a small n, responses without a score."""
    if stats.small:
        cell = f"{cell} {say('cell.small', lang, n=stats.scored_records)}"
    said = coverage(stats, lang)
    return cell if said is None else say("cell.then", lang, cell=cell, more=said)


def flags(stats: DatasetStats, lang: str = DEFAULT_LANG) -> str:
    """:func:`flagged` without the cell (what follows a score)."""
    return flagged("", stats, lang)


def _dataset_cell(stats: DatasetStats | None, lang: str) -> str:
    if stats is None:
        return ""
    if stats.is_pairwise:
        rate = say("cell.win_rate", lang, score=score_cell(stats.dimension_score, stats.win_interval))
        return flagged(rate, stats, lang)
    return flagged(score_cell(stats.score, stats.interval), stats, lang)


def _overall_cell(agg: Aggregate, lang: str) -> str:
    cell = score_cell(agg.overall, agg.overall_interval)
    if agg.void:
        void = say_count("coverage.void_as_zero" if agg.void_as_zero else "coverage.void", agg.void, lang)
        cell = say("cell.then", lang, cell=cell, more=void)
    return cell


def _pairwise_cell(stats: DatasetStats, lang: str) -> str:
    """A pairwise dataset on its own scale: mean ×100 (−100..100) with its interval, win/tie/loss."""
    if not stats.is_pairwise:
        return ""
    counts = stats.pairwise
    return say(
        "cell.pairwise",
        lang,
        score=score_cell(stats.score, stats.interval),
        win=counts.get("win", 0),
        tie=counts.get("tie", 0),
        loss=counts.get("loss", 0),
    )


def _leaderboard(comp: Comparison, lang: str) -> Table:
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
            rows.append([dim, say("cell.dimension_row", lang), "", *cells])
        for dataset in datasets:
            first = next((a.datasets[dataset] for a in comp.models.values() if dataset in a.datasets), None)
            metric = metric_word(first.metric if first else None, lang)
            cells = [_dataset_cell(comp.models[m].datasets.get(dataset), lang) for m in names]
            rows.append([dim, dataset, metric, *cells])
    rows.append([say("cell.overall", lang), "", "", *(_overall_cell(a, lang) for a in comp.models.values())])
    return Table(
        say("title.leaderboard", lang),
        [*heads(("dimension", "dataset", "metric"), lang), *names],
        rows,
        set(range(3, 3 + len(names))),
    )


_DETAIL_HEAD = (
    "model",
    "dataset",
    "metric",
    "records",
    "scored_records",
    "responses",
    "unscorable",
    "void",
    "strict",
    "pass@k",
    "majority",
    "tokens",
    "interval",
    "pairwise",
)


def void_cell(stats: DatasetStats, lang: str = DEFAULT_LANG) -> str:
    """The void verdicts, and whether they counted as 0."""
    return say("cell.as_zero", lang, n=stats.void) if stats.void and stats.void_as_zero else str(stats.void)


def _details(comp: Comparison, lang: str) -> Table:
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
                    metric_word(s.metric, lang),
                    str(s.records),
                    str(s.scored_records),
                    str(s.responses),
                    str(s.unscorable),
                    void_cell(s, lang),
                    _num(d["strict"]),
                    f"{_num(d['pass_at_k'])} (k={d['samples']})" if "pass_at_k" in d else "—",
                    _num(d.get("majority")),
                    str(s.usage["total_tokens"]),
                    s.interval.method if s.interval else "—",
                    _pairwise_cell(s, lang),
                ]
            )
    return Table(say("title.details", lang), heads(_DETAIL_HEAD, lang), rows, set(range(3, 12)))


def _difference_row(d: Difference, lang: str) -> list[str]:
    verdict = say("cell.significant" if d.significant else "cell.noise", lang)
    scope = say("cell.overall", lang) if d.scope == "overall" else d.scope
    return [d.a, d.b, scope, str(d.records), f"{d.difference:+.2f}{_ci(d.interval)}", verdict]


def _differences(comp: Comparison, lang: str) -> Table | None:
    if not comp.differences:
        return None
    rows = [_difference_row(d, lang) for d in comp.differences]
    return Table(
        say("title.paired", lang),
        heads(("a", "b", "scope", "paired_records", "difference", "verdict"), lang),
        rows,
        {3, 4},
        (5, [d.significant for d in comp.differences]),
    )


def comparison_tables(comp: Comparison, lang: str = DEFAULT_LANG) -> list[Table]:
    """The report's tables, their words in ``lang``."""
    tables = [_leaderboard(comp, lang), _details(comp, lang)]
    diff = _differences(comp, lang)
    tables = tables if diff is None else [*tables, diff]
    return tables + [Table(t.title, t.head, t.rows, t.numeric, t.verdicts) for t in standings_tables(comp, lang)]


def notes(comp: Comparison, lang: str = DEFAULT_LANG) -> list[str]:
    """Legend, interval method, pairwise mapping, token totals, metric notes and judge position bias."""
    out = [legend(lang), interval_note(lang)]
    if any(s.is_pairwise for a in comp.models.values() for s in a.datasets.values()):
        out.append(say("note.pairwise", lang))
    for model, agg in comp.models.items():
        out += token_note(agg, lang, model)
        if agg.void:
            out.append(say("note.model_void", lang, model=model, void=void_note(agg, lang)))
        for name, s in agg.datasets.items():
            label = f"{model} / {name}"
            if s.note:
                out.append(say("note.metric", lang, name=label, metric=s.metric, note=s.note))
            pairwise = pairwise_note(label, s, lang)
            if pairwise:
                out.append(pairwise)
            people = override_note(label, s, lang)
            if people:
                out.append(people)
        out += panel_notes(agg, model, lang)
    if len(comp.models) > ALL_PAIRS_UP_TO:
        out.append(say("note.first_only", lang, n=len(comp.models), first=comp.names[0]))
    return out + calibration_notes(comp.calibration, lang) + standings_notes(comp, lang)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def md_escape(text: str) -> str:
    """A cell as literal Markdown text: the characters that make emphasis, links, HTML, code or a cell
    border are backslash-escaped; line breaks become spaces, control characters their escapes."""
    return escape_controls(_MD_SPECIAL.sub(r"\\\1", text.replace("\r", " ").replace("\n", " ")))


def _markdown(comp: Comparison, lang: str) -> str:
    out: list[str] = []
    for table in comparison_tables(comp, lang):
        out += [f"### {md_escape(table.title)}", ""]
        out.append("| " + " | ".join(md_escape(h) for h in table.head) + " |")
        out.append("|" + "".join("---:|" if j in table.numeric else "---|" for j in range(len(table.head))))
        out += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in table.rows]
        out.append("")
    out += [f"- {md_escape(n)}" for n in notes(comp, lang)]
    return "\n".join(out) + "\n"


def _text(comp: Comparison, *, color: bool, width: int | None, lang: str) -> str:
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
    for table in comparison_tables(comp, lang):
        title = Text(escape_controls(table.title))
        rich_table = RichTable(box=box.SIMPLE_HEAD, title=title, title_justify="left")
        for j, head in enumerate(table.head):
            column = Text(escape_controls(head))
            rich_table.add_column(column, justify="right" if j in table.numeric else "left", overflow="fold")
        for i, row in enumerate(table.rows):
            styles = [_style(table, i, j) if color else "" for j in range(len(row))]
            rich_table.add_row(*(Text(escape_controls(cell), style=styles[j]) for j, cell in enumerate(row)))
        console.print(rich_table)
    for note in notes(comp, lang):
        console.print(Text(escape_controls(note)))
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def _style(table: Table, i: int, j: int) -> str:
    """A verdict's colour: green when it tells the models apart, else yellow."""
    if table.verdicts is None or j != table.verdicts[0]:
        return ""
    return "green" if table.verdicts[1][i] else "yellow"


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 24)).columns


def render_comparison(
    comp: Comparison, fmt: str = "text", *, color: bool = False, width: int | None = None, lang: str | None = None
) -> str:
    """``text`` (``color`` and ``width`` for a terminal), ``md`` or ``json``; html and xlsx have their modules.
    ``lang``: the language of the text and Markdown words (:mod:`scoring._report.words`; JSON keeps English)."""
    if fmt == "json":
        return orjson.dumps(comp.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "md":
        return _markdown(comp, lang or DEFAULT_LANG)
    if fmt == "text":
        return _text(comp, color=color, width=width, lang=lang or DEFAULT_LANG)
    raise ValueError(f"unknown report format {fmt!r}")
