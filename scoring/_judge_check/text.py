"""``judge-check``'s text: per judge, the overall line, the confusion matrix and a line per dataset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["render_judge_check"]


def _num(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _pct(value: Any) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def _line(stats: Mapping[str, Any]) -> str:
    ci = stats.get("kappa_ci")
    interval = f" [{_num(ci[0])}, {_num(ci[1])}]" if ci else ""
    parts = [
        f"n {stats['n']}",
        f"agreement {_pct(stats.get('agreement'))}",
        f"κ {_num(stats.get('kappa'))}{interval}",
    ]
    if stats.get("void"):
        parts.append(f"void {stats['void']}")
    if stats.get("swap_consistency") is not None:
        parts.append(f"swap consistency {_pct(stats['swap_consistency'])}")
    if stats.get("self_consistency") is not None:
        parts.append(f"self-consistency {_pct(stats['self_consistency'])}")
    if stats.get("length_correlation") is not None:
        parts.append(f"r(judge − human, length) {stats['length_correlation']:+.2f}")
    return ", ".join(parts)


def _confusion(confusion: Mapping[str, Mapping[str, int]]) -> list[str]:
    columns = list(dict.fromkeys(c for row in confusion.values() for c in row))
    width = max([5, *(len(c) + 1 for c in columns), *(len(r) + 1 for r in confusion)])
    head = "judge \\ human".ljust(width + 8) + "".join(c.rjust(width) for c in columns)
    lines = [f"    {head}"]
    for row, cells in confusion.items():
        lines.append(f"    {row.ljust(width + 8)}" + "".join(str(cells.get(c, 0)).rjust(width) for c in columns))
    return lines


def _judge(stats: Mapping[str, Any]) -> list[str]:
    how = "unweighted" if stats.get("kappa_weights") == "none" else "quadratic-weighted"
    lines = [f"{stats['judge']} (Cohen's κ {how}, 95% bootstrap interval)", f"  overall: {_line(stats)}"]
    if stats.get("confusion"):
        lines += _confusion(stats["confusion"])
    for name, part in (stats.get("by_dataset") or {}).items():
        lines.append(f"  {name}: {_line(part)}")
    return lines


def render_judge_check(summary: Mapping[str, Any]) -> str:
    """The text of ``judge-check`` from its JSON (:meth:`~scoring._judge_check.check.JudgeCheck.to_dict`)."""
    head = f"{summary['labels']} human label(s), {summary['unmatched']} matching no record"
    if summary.get("skipped_labels"):
        head += f", {summary['skipped_labels']} bad label(s) skipped"
    if summary.get("stale"):
        head += f", {summary['stale']} with a stale verdict (given on another text: left out)"
    lines = [head]
    judges = summary.get("judges") or ({summary["judge"]: summary} if "judge" in summary else {})
    for stats in judges.values():
        lines += _judge(stats)
    return "\n".join(lines) + "\n"
