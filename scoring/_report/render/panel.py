"""A judge panel's figures in the reports: the rows of the Judge panel sheet (each dataset's judges:
valid and void verdicts, void rate, self-consistency, position flips, the panel's agreement, escalation)
and the notes lines (:func:`~scoring._judges.panel_stats.panel_lines`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from formatkit._core.xlsx_style import safe_text as cell_text
from scoring._judges.panel_stats import panel_lines
from scoring._report.figures.aggregate import Aggregate
from scoring._report.words import DEFAULT_LANG

__all__ = ["PANEL_HEAD", "panel_notes", "panel_rows"]

PANEL_HEAD = (
    "model",
    "dataset",
    "judge",
    "asked",
    "valid",
    "void",
    "void rate",
    "failed",
    "self-consistency",
    "position flips",
    "panel agreement",
    "agreement method",
    "escalated",
    "requests avoided",
)


def panel_notes(agg: Aggregate, model: str | None = None, lang: str = DEFAULT_LANG) -> list[str]:
    """Each dataset judged by a panel: its judges' agreement, each judge's void rate, escalation."""
    lines: list[str] = []
    for name, stats in agg.datasets.items():
        if stats.panel:
            lines += panel_lines(stats.panel.to_dict(), f"{model} / {name}" if model else name, lang)
    return lines


def panel_rows(models: Mapping[str, Aggregate]) -> Iterator[list[Any]]:
    """One row per model, dataset and judge of a panel (none when no panel judged)."""
    for model, agg in models.items():
        for name, stats in agg.datasets.items():
            if not stats.panel:
                continue
            panel = stats.panel.to_dict()
            agreement = panel.get("agreement") or {}
            escalated = panel.get("escalated")
            for judge, figures in (panel.get("by_judge") or {}).items():
                yield [
                    cell_text(model),
                    cell_text(name),
                    cell_text(judge),
                    figures.get("asked"),
                    figures.get("valid"),
                    figures.get("void"),
                    figures.get("void_rate"),
                    figures.get("failed"),
                    figures.get("self_consistency"),
                    figures.get("flip_rate"),
                    agreement.get("alpha"),
                    agreement.get("method"),
                    escalated.get("responses") if isinstance(escalated, dict) else None,
                    panel.get("avoided"),
                ]
