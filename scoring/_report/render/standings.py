"""The many-model tables: a ranking by rating (who is distinguishable from whom), the pairs with their
corrected verdicts, and what each dataset can detect. As plain rows of text: the text, Markdown and
HTML reports draw them as tables (:mod:`scoring._report.render.leaderboard`), the workbook has its own sheets.

A table stays readable at ten models: one row per model, its rivals named by rank number ("ahead of
3 4 5"), the pairs one row each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from formatkit._core.xlsx_style import P_VALUE_FORMAT, Fill, Sheet
from scoring._report.figures.aggregate import Aggregate
from scoring._report.figures.battles import REFERENCE
from scoring._report.figures.models import Comparison
from scoring._report.figures.multiple import DISTINGUISHABLE, VERDICT_WORDS, PairTest, pairs_note
from scoring._report.figures.power import SCALE
from scoring._report.figures.ratings import Rating, ratings_note
from scoring._report.figures.tiers import Tier, ranking_scope_of
from scoring._report.words import DEFAULT_LANG, heads, say

__all__ = [
    "Rows",
    "detectable_cell",
    "pairs_in_scope",
    "ranking_legend",
    "ranking_order",
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
    return ranking_scope_of(comp.pairs)


def pairs_in_scope(comp: Comparison, scope: str | None) -> dict[frozenset[str], PairTest]:
    return {frozenset((p.a, p.b)): p for p in comp.pairs if p.scope == scope}


def detectable_cell(points: float | None, lang: str = DEFAULT_LANG) -> str:
    """A detectable difference in points; at the scale's end, "more than the scale"."""
    if points is None:
        return "—"
    return say("cell.beyond_scale", lang) if points >= SCALE else f"{points:.1f}"


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


def ranking_order(comp: Comparison) -> list[Rating]:
    """The models as the ranking lists them: tier by tier, by rating within a tier."""
    if comp.ratings is None:
        return []
    by_name = {r.name: r for r in comp.ratings.models()}
    return [by_name[name] for tier in comp.tiers for name in tier.models] or comp.ratings.models()


def _overall(agg: Aggregate) -> str:
    overall = "—" if agg.overall is None else f"{agg.overall:.2f}"
    if agg.overall_interval is not None:
        overall += f" [{agg.overall_interval.low:.1f}, {agg.overall_interval.high:.1f}]"
    return overall


def _ranking(comp: Comparison, lang: str = DEFAULT_LANG) -> Rows | None:
    """One row per model: its position (#), its rank (shared by a tier), and the positions of the models a
    corrected test puts ahead of it, behind it, or does not tell apart from it."""
    if comp.ratings is None:
        return None
    pairs = pairs_in_scope(comp, ranking_scope(comp))
    models = ranking_order(comp)
    position = {r.name: i for i, r in enumerate(models, 1)}
    ranks = comp.rank_of()
    rows: list[list[str]] = []
    for r in models:
        lists: tuple[list[int], list[int], list[int]] = ([], [], [])
        for other in models:
            test = pairs.get(frozenset((r.name, other.name)))
            if other is r or test is None:
                continue
            lead = test.difference if test.a == r.name else -test.difference
            which = (0 if lead > 0 else 1) if test.distinguishable else 2
            lists[which].append(position[other.name])
        rank = str(ranks.get(r.name, position[r.name]))
        cells = [str(position[r.name]), rank, r.name, _rating(r), _overall(comp.models[r.name])]
        rows.append([*cells, *(_ranks(found) for found in lists)])
    for r in comp.ratings.players:
        if r.anchor:
            name = say("cell.reference", lang) if r.name == REFERENCE else f"({r.name})"
            rows.append(["", "—", name, _rating(r), "", "", "", ""])
    return Rows(
        say("title.ranking", lang, scope=_scope_words(ranking_scope(comp), lang)),
        heads(("position", "rank", "model", "rating", "overall", "ahead", "behind", "apart"), lang),
        rows,
        {0, 1, 3, 4},
    )


def _more(tier: Tier, lang: str) -> str:
    if tier.next_pair is None:
        return ""
    if tier.more_questions is None:
        return say("cell.never_separated", lang)
    if tier.more_questions == 0:
        return say("cell.separated", lang)
    return say("cell.more_questions", lang, n=tier.more_questions)


def _tiers(comp: Comparison, lang: str) -> Rows | None:
    if len(comp.tiers) < 1:
        return None
    rows = []
    for tier in comp.tiers:
        pair = say("cell.pair", lang, a=tier.next_pair[0], b=tier.next_pair[1]) if tier.next_pair else ""
        rows.append([str(tier.rank), str(len(tier.models)), " ".join(tier.models), pair, _more(tier, lang)])
    head = heads(("rank", "models_count", "models", "closest_pair", "more_questions"), lang)
    return Rows(say("title.tiers", lang), head, rows, {0, 1})


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
                detectable_cell(p.min_detectable, lang),
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
                detectable_cell(mdd, lang),
                f"{p['largest_difference']:.1f}",
                say("cell.of", lang, k=p["too_small"], n=p["pairs"]),
            ]
        )
    names = ("dataset", "paired_records", "paired_sd", "detectable_difference", "largest_gap", "pairs_too_small")
    return Rows(say("title.power", lang), heads(names, lang), rows, {1, 2, 3, 4})


def standings_tables(comp: Comparison, lang: str = DEFAULT_LANG) -> list[Rows]:
    """The ranking, the pairs and the datasets' power (none for a single model), their words in ``lang``."""
    tables = (_ranking(comp, lang), _tiers(comp, lang), _pairs(comp, lang), _power(comp, lang))
    return [t for t in tables if t is not None]


#: Disagreements named one by one in the notes; the rest are counted (the JSON lists them all).
NAMED_DISAGREEMENTS = 5


def standings_notes(comp: Comparison, lang: str = DEFAULT_LANG) -> list[str]:
    if comp.ratings is None and not comp.pairs:
        return []
    scope = _scope_words(ranking_scope(comp), lang)
    out = [ranking_legend(scope, lang), say("note.tiers", lang), ratings_note(lang), pairs_note(lang)]
    out.append(say("note.detectable", lang))
    for d in comp.disagreements[:NAMED_DISAGREEMENTS]:
        out.append(say("note.order", lang, above=d.above, below=d.below, gap=f"{d.overall_gap:.2f}"))
    if len(comp.disagreements) > NAMED_DISAGREEMENTS:
        out.append(say("note.order_more", lang, n=len(comp.disagreements) - NAMED_DISAGREEMENTS))
    if comp.disagreements:
        out.append(say("note.order_why", lang))
    return out


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
        head = ["#", "rank", "model", "rating", "low", "high", "battles", "overall", "ahead of", "behind"]
        sheet = Sheet("Ranking", [*head, "not told apart"], decimals={"rating", "low", "high", "overall"})
        cells = {row[2]: row for row in ranking.rows} if ranking else {}
        ranks = comp.rank_of()
        for position, r in enumerate(ranking_order(comp), 1):
            row = cells.get(r.name, [""] * 8)
            overall = comp.models[r.name].overall
            first = [position, ranks.get(r.name, position), r.name, r.rating, r.low, r.high, r.battles, overall]
            sheet.rows.append([*first, *row[5:8]])
        for r in comp.ratings.players:
            if r.anchor:
                sheet.rows.append(
                    [None, None, f"({r.name})", r.rating, r.low, r.high, r.battles, None, None, None, None]
                )
        sheets.append(sheet)
        tiers = Sheet("Tiers", ["rank", "models", "closest pair to the next tier", "more questions to separate it"])
        for tier in comp.tiers:
            pair = " – ".join(tier.next_pair) if tier.next_pair else None
            tiers.rows.append([tier.rank, " ".join(tier.models), pair, tier.more_questions])
        sheets.append(tiers)
    head = ["a", "b", "scope", "paired records", "difference", "low", "high", "p", "p adjusted", "family"]
    head += ["distinguishable", "detectable difference", "verdict"]
    pairs = Sheet(
        "Pairs",
        head,
        decimals={"difference", "low", "high", "detectable difference"},
        formats={"p": P_VALUE_FORMAT, "p adjusted": P_VALUE_FORMAT},
    )
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
