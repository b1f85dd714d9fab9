"""An :class:`~scoring.aggregate.Aggregate` as a readable table (text), Markdown, or JSON."""

from __future__ import annotations

import io
from typing import Any

import orjson

from scoring.aggregate import Aggregate, DatasetStats

__all__ = ["FORMATS", "render"]

FORMATS = ("text", "json", "md")

_HEAD = ("dimension", "dataset", "metric", "score", "strict", "records", "scored", "unscorable", "pass@k",
         "majority", "tokens")


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


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
                    _num(s.score),
                    _num(d["strict"]),
                    str(s.records),
                    str(s.scored_records),
                    str(s.unscorable),
                    f"{_num(d['pass_at_k'])} (k={d['samples']})" if "pass_at_k" in d else "—",
                    _num(d.get("majority")),
                    str(s.usage["total_tokens"]),
                )
            )
    return rows


def _dimension_rows(agg: Aggregate) -> list[tuple[str, str, str]]:
    return [(d.name, _num(d.score), ", ".join(d.datasets)) for d in agg.dimensions.values()]


def _notes(agg: Aggregate) -> list[str]:
    return [f"{name}: {s.metric} — {s.note}" for name, s in agg.datasets.items() if s.note]


def _markdown(agg: Aggregate) -> str:
    out = ["| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in _rows(agg)]
    out += ["", "| dimension | score | datasets |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in _dimension_rows(agg)]
    usage = agg.usage
    out += [
        "",
        f"**Overall: {_num(agg.overall)}** (mean of {len(agg.dimensions)} dimension(s), 0–100)",
        "",
        f"Tokens: {usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion = "
        f"{usage['total_tokens']} total",
    ]
    notes = _notes(agg)
    if notes:
        out += ["", *[f"- {n}" for n in notes]]
    return "\n".join(out) + "\n"


def _text(agg: Aggregate) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, width=200, color_system=None, force_terminal=False, highlight=False)
    table = Table(box=box.SIMPLE_HEAD, title="Scores by dataset (0–100)")
    for name in _HEAD:
        table.add_column(name, justify="right" if name not in ("dimension", "dataset", "metric") else "left")
    for row in _rows(agg):
        table.add_row(*row)
    console.print(table)
    dims = Table(box=box.SIMPLE_HEAD, title="Capability dimensions")
    for name in ("dimension", "score", "datasets"):
        dims.add_column(name)
    for row in _dimension_rows(agg):
        dims.add_row(*row)
    console.print(dims)
    usage = agg.usage
    console.print(f"Overall: {_num(agg.overall)} (mean of {len(agg.dimensions)} dimension(s))")
    console.print(
        f"Tokens: {usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion = "
        f"{usage['total_tokens']} total"
    )
    for note in _notes(agg):
        console.print(note)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def render(agg: Aggregate, fmt: str = "text", extra: dict[str, Any] | None = None) -> str:
    """The aggregate as ``text``, ``md`` or ``json`` (``extra`` keys are added to the JSON)."""
    if fmt == "json":
        data = agg.to_dict()
        if extra:
            data.update(extra)
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "md":
        return _markdown(agg)
    if fmt == "text":
        return _text(agg)
    raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
