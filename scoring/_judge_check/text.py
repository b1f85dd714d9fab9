"""``judge-check``'s text: per judge, the overall line, the confusion matrix and a line per dataset, its
words catalogue templates (:mod:`scoring._report.words`) in the reader's language."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from formatkit._core.xlsx_style import display_width
from scoring._report.words import DEFAULT_LANG, say

__all__ = ["render_judge_check"]


def _num(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _pct(value: Any) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def _line(stats: Mapping[str, Any], lang: str) -> str:
    ci = stats.get("kappa_ci")
    interval = f" [{_num(ci[0])}, {_num(ci[1])}]" if ci else ""
    parts = [
        f"n {stats['n']}",
        say("judge_check.agreement", lang, agreement=_pct(stats.get("agreement"))),
        f"κ {_num(stats.get('kappa'))}{interval}",
    ]
    if stats.get("void"):
        parts.append(say("judge_check.void", lang, n=stats["void"]))
    if stats.get("swap_consistency") is not None:
        parts.append(say("judge_check.swap", lang, rate=_pct(stats["swap_consistency"])))
    if stats.get("self_consistency") is not None:
        parts.append(say("judge_check.self", lang, rate=_pct(stats["self_consistency"])))
    if stats.get("length_correlation") is not None:
        r = f"{stats['length_correlation']:+.2f}{_interval(stats.get('length_correlation_ci'), '+.2f')}"
        parts.append(say("judge_check.length", lang, r=r))
    bias = stats.get("position_bias")
    if bias:
        rate, lean = _pct(bias["flip_rate"]) + _interval(bias["flip_rate_ci"], "pct"), f"{bias['lean']:+.2f}"
        words = {"first": bias["toward_first"], "second": bias["toward_second"], "rate": rate, "rate_ci": ""}
        words |= {"lean": lean + _interval(bias["lean_ci"], "+.2f"), "lean_ci": ""}
        parts.append(say("judge_check.position", lang, flipped=bias["flipped"], pairs=bias["pairs"], **words))
    return say("cell.parts_sep", lang).join(parts)


def _interval(ci: Any, spec: str) -> str:
    """`` [low, high]`` of an interval (``pct``: as percentages), or nothing without one."""
    shown = [] if not ci or None in ci else [_pct(v) if spec == "pct" else format(v, spec) for v in ci]
    return f" [{shown[0]}, {shown[1]}]" if shown else ""


def _left(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a Chinese character takes two)."""
    return text + " " * max(0, width - display_width(text))


def _confusion(confusion: Mapping[str, Mapping[str, int]], lang: str) -> list[str]:
    columns = list(dict.fromkeys(c for row in confusion.values() for c in row))
    width = max([5, *(len(c) + 1 for c in columns), *(len(r) + 1 for r in confusion)])
    head = _left(say("judge_check.corner", lang), width + 8) + "".join(c.rjust(width) for c in columns)
    lines = [f"    {head}"]
    for row, cells in confusion.items():
        lines.append(f"    {_left(row, width + 8)}" + "".join(str(cells.get(c, 0)).rjust(width) for c in columns))
    return lines


def _judge(stats: Mapping[str, Any], lang: str) -> list[str]:
    weights = say("judge_check.unweighted" if stats.get("kappa_weights") == "none" else "judge_check.quadratic", lang)
    lines = [
        say("judge_check.judge", lang, judge=stats["judge"], weights=weights),
        say("judge_check.overall", lang, line=_line(stats, lang)),
    ]
    if stats.get("confusion"):
        lines += _confusion(stats["confusion"], lang)
    for name, part in (stats.get("by_dataset") or {}).items():
        lines.append(say("judge_check.dataset", lang, dataset=name, line=_line(part, lang)))
    return lines


def render_judge_check(summary: Mapping[str, Any], *, lang: str | None = None) -> str:
    """The text of ``judge-check`` from its JSON (:meth:`~scoring._judge_check.check.JudgeCheck.to_dict`),
    its words in ``lang`` (English by default)."""
    lang = lang or DEFAULT_LANG
    head = say("judge_check.head", lang, labels=summary["labels"], unmatched=summary["unmatched"])
    if summary.get("skipped_labels"):
        head += say("judge_check.skipped", lang, count=summary["skipped_labels"])
    if summary.get("stale"):
        head += say("judge_check.stale", lang, count=summary["stale"])
    lines = [head]
    judges = summary.get("judges") or ({summary["judge"]: summary} if "judge" in summary else {})
    for stats in judges.values():
        lines += _judge(stats, lang)
    return "\n".join(lines) + "\n"
