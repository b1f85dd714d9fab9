"""Why two models differ, question by question: the "A right, B wrong" flip lists, with each answer's
rationale (what its judge or rule said) and how the answers differ (:mod:`scoring._report.figures.diff`).

The workbook's Flips sheet lists them for every two models, the best-rated pairs first, so a reviewer
can filter one pair and read why the top two differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from typing import Any

from formatkit._core.xlsx_style import Fill, Sheet
from scoring._report.figures.diff import diff_text, marked
from scoring._report.figures.models import Comparison
from scoring._report.figures.questions import Answer, Question, SampleCollector

__all__ = ["MAX_FLIPS_PER_PAIR", "Flip", "flip_lists", "flip_sheet", "rationale"]

#: Rows per ordered pair of models in the Flips sheet (the counts of the rest are said in its last row).
MAX_FLIPS_PER_PAIR = 500


def rationale(collector: SampleCollector, answer: Answer) -> str | None:
    """What the scorer said about the answer (its first sample): the judge's or the rule's analysis, and
    the judge's verdicts when they add to it."""
    if not answer.responses:
        return None
    first = answer.responses[0]
    parts = [collector.strings[first["analysis"]], collector.strings[first["verdicts"]]]
    text = "\n".join(p for p in parts if p)
    return text or None


def _reply(collector: SampleCollector, answer: Answer) -> str:
    first = answer.responses[0] if answer.responses else None
    if first is None:
        return ""
    return collector.strings[first["content"]] or collector.strings[first["error"]]


@dataclass(frozen=True)
class Flip:
    """A question model ``right`` got right and model ``wrong`` got wrong."""

    right: str
    wrong: str
    question: Question


def _order(comp: Comparison, collector: SampleCollector) -> list[str]:
    """Models best-rated first (the report's order without ratings)."""
    if comp.ratings is not None:
        rated = [r.name for r in comp.ratings.models()]
        return [m for m in rated if m in collector.models] + [m for m in collector.models if m not in rated]
    return list(collector.models)


def flip_lists(comp: Comparison, collector: SampleCollector) -> dict[tuple[str, str], list[Question]]:
    """For every ordered pair (a, b), best-rated pairs first: the questions a got right and b wrong."""
    number = {name: i for i, name in enumerate(collector.models)}
    order = _order(comp, collector)
    out: dict[tuple[str, str], list[Question]] = {}
    rank = {name: i for i, name in enumerate(order)}
    # the top two first (both orders), then each next model against those above it
    for a, b in sorted(
        permutations(order, 2), key=lambda p: (max(rank[p[0]], rank[p[1]]), min(rank[p[0]], rank[p[1]]), rank[p[0]])
    ):
        ia, ib = number[a], number[b]
        out[(a, b)] = [
            q
            for q in collector.questions
            if (x := q.answers.get(ia)) is not None
            and (y := q.answers.get(ib)) is not None
            and x.outcome == "right"
            and y.outcome == "wrong"
        ]
    return out


def flip_sheet(comp: Comparison, collector: SampleCollector) -> Sheet | None:
    """The Flips sheet: one row per question one model got right and another wrong (none for one model)."""
    if len(collector.models) < 2:
        return None
    head = [
        "right",
        "wrong",
        "dataset",
        "session_id",
        "question",
        "reference",
        "right's answer",
        "wrong's answer",
        "right's rationale",
        "wrong's rationale",
        "diff wrong → right",
        "wrong's answer against the reference",
    ]
    sheet = Sheet("Flips", head)
    text = collector.strings
    number = {name: i for i, name in enumerate(collector.models)}
    left_out = 0
    for (a, b), questions in flip_lists(comp, collector).items():
        for q in questions[:MAX_FLIPS_PER_PAIR]:
            x, y = q.answers[number[a]], q.answers[number[b]]
            reply_a, reply_b = _reply(collector, x), _reply(collector, y)
            reference = text[q.reference]
            row: list[Any] = [
                a,
                b,
                text[q.dataset],
                q.session_id,
                text[q.question],
                reference,
                reply_a,
                reply_b,
                rationale(collector, x),
                rationale(collector, y),
                marked(diff_text(reply_b, reply_a)),
                marked(diff_text(reference, reply_b)) if reference else None,
            ]
            sheet.rows.append(row)
            fills: list[Fill | None] = [None] * len(head)
            fills[6], fills[7] = "right", "wrong"
            sheet.fills.append(fills)
        left_out += max(0, len(questions) - MAX_FLIPS_PER_PAIR)
    if left_out:
        sheet.rows.append([f"{left_out} more flip(s) left out: {MAX_FLIPS_PER_PAIR} per pair of models are listed"])
        sheet.fills.append([None])
    return sheet
