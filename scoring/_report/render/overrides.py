"""The line a report says for a dataset where people corrected scores (``score`` of a reviewed sheet)."""

from __future__ import annotations

from scoring._report.figures.aggregate import DatasetStats
from scoring._report.words import DEFAULT_LANG, say

__all__ = ["override_note"]


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def override_note(label: str, stats: DatasetStats, lang: str = DEFAULT_LANG) -> str | None:
    """``set / 综合: 2 score(s) given by a person (human_score): 61.30 with the machine's scores, 45.82 with
    theirs``; None when no person scored a response of the dataset."""
    if not stats.overridden:
        return None
    before, after = _num(stats.score_before_people), _num(stats.score)
    return say("note.people", lang, name=label, n=stats.overridden, before=before, after=after)
