"""The many-model tables: a ranking by rating (who is distinguishable from whom), the pairs with their
corrected verdicts, and what each dataset can detect. As plain rows of text: the text, Markdown and
HTML reports draw them as tables (:mod:`scoring._report.leaderboard`), the workbook has its own sheets.

A table stays readable at ten models: one row per model, its rivals named by rank number ("ahead of
3 4 5"), the pairs one row each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from formatkit._core.xlsx_style import Fill, Sheet
from scoring._report.battles import REFERENCE
from scoring._report.models import Comparison
from scoring._report.multiple import DISTINGUISHABLE, VERDICT_WORDS, PairTest, pairs_note
from scoring._report.ratings import Rating, ratings_note
from scoring._report.words import DEFAULT_LANG, heads, say

__all__ = [
    "Rows",
    "pairs_in_scope",
    "ranking_legend",
    "ranking_scope",
    "standings_notes",
    "standings_sheets",
    "standings_tables",
]


def ranking_legend(scope: str, lang: str = DEFAULT_LANG) -> str:
    """What the ranking's columns say, its verdicts taken on ``scope``."""
    return say("note.ranking", lang, scope=scope)


@dataclass
class Rows:
    """A titled table of text cells (``numeric``: right-aligned columns)."""

    title: str
    head: list[str]
    rows: list[list[str]]
    numeric: set[int]
    #: the verdict column and, per row, whether its verdict tells the models apart
    verdicts: tuple[int, list[bool]] | None = None


def ranking_scope(comp: Comparison) -> str | None:
    """The scope the ranking's verdicts come from: ``overall``, or the one dataset the models share."""
    scopes = {p.scope for p in comp.pairs}
    if "overall" in scopes:
        return "overall"
    return next(iter(scopes)) if len(scopes) == 1 else None


def pairs_in_scope(comp: Comparison, scope: str | None) -> dict[frozenset[str], PairTest]:
    return {frozenset((p.a, p.b)): p for p in comp.pairs if p.scope == scope}


def _signed(value: float) -> str:
    text = f"{value:+.2f}"
    return "+0.00" if text == "-0.00" else text


def _rating(r: Rating) -> str:
    ci = "" if r.low is None or r.high is None else f" [{_signed(r.low)}, {_signed(r.high)}]"
    return f"{_signed(r.rating)}{ci}"


def _ranks(numbers: list[int]) -> str:
    return " ".join(str(n) for n in sorted(numbers)) or "—"


def _scope_words(scope: str | None, lang: str) -> str:
    """The scope of the verdicts as the reader reads it: ``overall``, a dataset, or each dataset."""
    if scope is None:
        return say("cell.each_dataset", lang)
    return say("cell.overall", lang) if scope == "overall" else scope


def _ranking(comp: Comparison, lang: str = DEFAULT_LANG) -> Rows | None:
    if comp.ratings is None:
        return None
    scope = ranking_scope(comp)
    pairs = pairs_in_scope(comp, scope)
    models = comp.ratings.models()
    rank = {r.name: i for i, r in enumerate(models, 1)}
    rows: list[list[str]] = []
    for r in models:
        ahead: list[int] = []
        behind: list[int] = []
        close: list[int] = []
        for other in models:
            test = pairs.get(frozenset((r.name, other.name)))
            if other is r or test is None:
                continue
            lead = test.difference if test.a == r.name else -test.difference
            if test.verdict == DISTINGUISHABLE:
                (ahead if lead > 0 else behind).append(rank[other.name])
            else:
                close.append(rank[other.name])
        agg = comp.models[r.name]
        overall = "—" if agg.overall is None else f"{agg.overall:.2f}"
        if agg.overall_interval is not None:
            overall += f" [{agg.overall_interval.low:.1f}, {agg.overall_interval.high:.1f}]"
        rows.append([str(rank[r.name]), r.name, _rating(r), overall, _ranks(ahead), _ranks(behind), _ranks(close)])
    for r in comp.ratings.players:
        if r.anchor:
            name = say("cell.reference", lang) if r.name == REFERENCE else f"({r.name})"
            rows.append(["—", name, _rating(r), "", "", "", ""])
    return Rows(
        say("title.ranking", lang, scope=_scope_words(scope, lang)),
        heads(("rank", "model", "rating", "overall", "ahead", "behind", "apart"), lang),
        rows,
        {0, 2, 3},
    )


def _pairs(comp: Comparison, lang: str) -> Rows | None:
    scope = ranking_scope(comp)
    chosen = [p for p in comp.pairs if p.scope == scope]
    if not chosen:
        return None
    rows = []
    apart = []
    for p in sorted(chosen, key=lambda p: (p.p_adjusted if p.p_adjusted is not None else 2.0, p.a, p.b)):
        apart.append(p.verdict == DISTINGUISHABLE)
        ci = "" if p.interval is None else f" [{p.interval.low:.1f}, {p.interval.high:.1f}]"
        rows.append(
            [
                p.a,
                p.b,
                str(p.records),
                f"{p.difference:+.2f}{ci}",
                "—" if p.p_adjusted is None else "<0.0001" if p.p_adjusted < 0.0001 else f"{p.p_adjusted:.4f}",
                "—" if p.min_detectable is None else f"{p.min_detectable:.1f}",
                say(f"cell.{VERDICT_WORDS[p.verdict]}", lang),
            ]
        )
    return Rows(
        say("title.pairs", lang, scope=_scope_words(scope, lang), n=len(chosen)),
        heads(("a", "b", "paired_records", "corrected", "p_adjusted", "detectable", "verdict"), lang),
        rows,
        {2, 3, 4, 5},
        (6, apart),
    )


def _power(comp: Comparison, lang: str) -> Rows | None:
    if not comp.power:
        return None
    rows = []
    for name, p in comp.power.items():
        mdd = p["min_detectable_difference"]
        rows.append(
            [
                name,
                str(p["records"]),
                f"{p['paired_sd']:.3f}",
                "—" if mdd is None else f"{mdd:.1f}",
                f"{p['largest_difference']:.1f}",
                say("cell.of", lang, k=p["too_small"], n=p["pairs"]),
            ]
        )
    names = ("dataset", "paired_records", "paired_sd", "detectable_difference", "largest_gap", "pairs_too_small")
    return Rows(say("title.power", lang), heads(names, lang), rows, {1, 2, 3, 4})


def standings_tables(comp: Comparison, lang: str = DEFAULT_LANG) -> list[Rows]:
    """The ranking, the pairs and the datasets' power (none for a single model), their words in ``lang``."""
    return [t for t in (_ranking(comp, lang), _pairs(comp, lang), _power(comp, lang)) if t is not None]


def standings_notes(comp: Comparison, lang: str = DEFAULT_LANG) -> list[str]:
    if comp.ratings is None and not comp.pairs:
        return []
    scope = _scope_words(ranking_scope(comp), lang)
    return [ranking_legend(scope, lang), ratings_note(lang), pairs_note(lang), say("note.detectable", lang)]


POWER_HEAD = [
    "dataset",
    "paired records",
    "paired sd",
    "detectable difference",
    "largest gap",
    "pairs",
    "too small to tell",
]


def standings_sheets(comp: Comparison) -> list[Sheet]:
    """The workbook's Ranking, Pairs (every scope) and Power sheets, numbers as numbers."""
    if comp.ratings is None and not comp.pairs:
        return []
    sheets: list[Sheet] = []
    if comp.ratings is not None:
        ranking = _ranking(comp)
        head = ["rank", "model", "rating", "low", "high", "battles", "overall", "ahead of", "behind", "not told apart"]
        sheet = Sheet("Ranking", head, decimals={"rating", "low", "high", "overall"})
        cells = {row[1]: row for row in ranking.rows} if ranking else {}
        for rank, r in enumerate(comp.ratings.models(), 1):
            row = cells.get(r.name, [""] * 7)
            overall = comp.models[r.name].overall
            sheet.rows.append([rank, r.name, r.rating, r.low, r.high, r.battles, overall, *row[4:7]])
        for r in comp.ratings.players:
            if r.anchor:
                sheet.rows.append([None, f"({r.name})", r.rating, r.low, r.high, r.battles, None, None, None, None])
        sheets.append(sheet)
    head = ["a", "b", "scope", "paired records", "difference", "low", "high", "p", "p adjusted", "family"]
    head += ["distinguishable", "detectable difference", "verdict"]
    pairs = Sheet("Pairs", head, decimals={"difference", "low", "high", "detectable difference"})
    for p in comp.pairs:
        low, high = (p.interval.low, p.interval.high) if p.interval else (None, None)
        values: list[Any] = [p.a, p.b, p.scope, p.records, p.difference, low, high, p.p, p.p_adjusted, p.family]
        pairs.rows.append([*values, p.distinguishable, p.min_detectable, p.verdict])
        fills: list[Fill | None] = [None] * 13
        fills[10] = "right" if p.distinguishable else None
        pairs.fills.append(fills)
    sheets.append(pairs)
    power = Sheet(
        "Power",
        POWER_HEAD,
        decimals={"paired sd", "detectable difference", "largest gap"},
    )
    for name, d in comp.power.items():
        line: list[Any] = [name, d["records"], d["paired_sd"], d["min_detectable_difference"]]
        power.rows.append([*line, d["largest_difference"], d["pairs"], d["too_small"]])
    sheets.append(power)
    return sheets
