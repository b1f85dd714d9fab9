"""What produced each model's results, and how fast it answered: the report's runs and speed.

:class:`SpeedTally` reads the timings the runner writes into every response it fills (``latency_ms``: from
sending the request to the whole reply read; ``ttft_ms``: to the first piece of text, when streamed) and
the completion tokens of its usage; :meth:`SpeedTally.summary` gives per model the median, 95th
percentile and mean latency, the median time to first token, and the output tokens per second (completion
tokens over latency, summed over the responses that have both). Responses without timings (collected
elsewhere, or run before timings were recorded) are left out and counted.

The run records themselves (``run.json``) are found beside the results files by
:func:`scoring._runner.provenance.run_records_of`; here they are laid out for the text, HTML and xlsx
reports.
"""

from __future__ import annotations

import html
from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from formatkit._core.issue_parts import escape_controls
from formatkit._core.record import RecordDict, target_responses
from formatkit._core.xlsx_style import Sheet
from scoring._report.figures.shapes import ReportedRun, SpeedSummary
from scoring._report.words import DEFAULT_LANG, say

__all__ = ["SpeedTally", "runs_html", "runs_sheets", "runs_text"]


@dataclass
class _ModelSpeed:
    latency: array[float] = field(default_factory=lambda: array("d"))
    ttft: array[float] = field(default_factory=lambda: array("d"))
    tokens: int = 0
    token_seconds: float = 0.0
    untimed: int = 0


def _percentile(values: array[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 1)


class SpeedTally:
    """Per model: every timed response's latency and time to first token, and tokens over time."""

    def __init__(self) -> None:
        self.models: dict[str, _ModelSpeed] = {}

    def add(self, record: RecordDict, model: str) -> None:
        responses = target_responses(record)
        speed = self.models.get(model)
        for response in responses:
            if not isinstance(response, dict) or response.get("content") is None:
                continue
            if speed is None:
                speed = self.models[model] = _ModelSpeed()
            latency = response.get("latency_ms")
            if not isinstance(latency, (int, float)) or isinstance(latency, bool) or latency <= 0:
                speed.untimed += 1
                continue
            speed.latency.append(float(latency))
            ttft = response.get("ttft_ms")
            if isinstance(ttft, (int, float)) and not isinstance(ttft, bool):
                speed.ttft.append(float(ttft))
            usage = response.get("usage")
            tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
            if type(tokens) is int:
                speed.tokens += tokens
                speed.token_seconds += float(latency) / 1000

    def summary(self) -> dict[str, SpeedSummary]:
        out: dict[str, SpeedSummary] = {}
        for model, speed in self.models.items():
            timed = len(speed.latency)
            out[model] = {
                "timed_responses": timed,
                "untimed_responses": speed.untimed,
                "latency_ms": {
                    "p50": _percentile(speed.latency, 0.5),
                    "p95": _percentile(speed.latency, 0.95),
                    "mean": round(sum(speed.latency) / timed, 1) if timed else None,
                },
                "ttft_ms": {"p50": _percentile(speed.ttft, 0.5), "p95": _percentile(speed.ttft, 0.95)},
                "tokens_per_second": round(speed.tokens / speed.token_seconds, 1) if speed.token_seconds else None,
            }
        return out


def _ms(value: Any, lang: str) -> str:
    return "–" if value is None else say("runs.ms", lang, ms=f"{value:,.0f}")


def _kept(text: str) -> str:
    return text


def _speed_line(model: str, s: Mapping[str, Any], clean: Callable[[str], str], lang: str) -> str:
    tps = s.get("tokens_per_second")
    untimed = s["untimed_responses"]
    return say(
        "runs.speed_line",
        lang,
        model=clean(model),
        p50=_ms(s["latency_ms"]["p50"], lang),
        p95=_ms(s["latency_ms"]["p95"], lang),
        ttft=_ms(s["ttft_ms"]["p50"], lang),
        tps="–" if tps is None else f"{tps:,.1f}",
        timed=s["timed_responses"],
        untimed=say("runs.untimed", lang, n=untimed) if untimed else "",
    )


def _judge_models(judge: Mapping[str, Any]) -> str:
    """The judge model of a run record, or every judge of its panel (``a, b, c``), as written."""
    panel = judge.get("panel")
    seats = [str(seat.get("model")) for seat in panel if isinstance(seat, dict)] if isinstance(panel, list) else []
    return ", ".join(seats) if seats else str(judge.get("model"))


def _run_line(run: Mapping[str, Any], clean: Callable[[str], str], lang: str) -> str:
    """A run record's line (and its command's): every value read from the record goes through ``clean``."""

    def value(record: Mapping[str, Any], key: str) -> str:
        return clean(str(record.get(key)))

    shard = run.get("shard")
    part = say("runs.part", lang, part=value(shard, "part")) if isinstance(shard, dict) else ""
    judge = run.get("judge")
    judged = ""
    if isinstance(judge, dict):  # a panel: every judge named, not only the first
        models, template = clean(_judge_models(judge)), value(judge, "template")
        if isinstance(judge.get("panel"), list):
            judged = say("runs.panel", lang, model=models, template=template)
        else:
            judged = say("runs.judge", lang, model=models, template=template)
    line = say(
        "runs.run_line",
        lang,
        model=value(run, "model"),
        part=part,
        started=value(run, "started"),
        finished=value(run, "finished"),
        version=value(run, "formatkit_version"),
        base_url=value(run, "base_url"),
        parameters=clean(orjson.dumps(run.get("parameters") or {}).decode()),
        judge=judged,
    )
    return line + (f"\n    {value(run, 'command')}" if run.get("command") else "")


def runs_text(
    runs: Mapping[str, list[ReportedRun]],
    speed: Mapping[str, SpeedSummary],
    clean: Callable[[str], str] = escape_controls,
    lang: str = DEFAULT_LANG,
) -> str:
    """The runs and speed as lines for the text report ('' when there is nothing to say). ``clean``: what
    each value read from a file goes through (for a terminal, by default: its control characters escaped);
    ``lang``: the language of the words."""
    lines: list[str] = []
    timed = {m: s for m, s in speed.items() if s["timed_responses"]}
    if timed:
        lines += [say("runs.speed", lang)]
        lines += [_speed_line(model, s, clean, lang) for model, s in timed.items()]
    if runs:
        lines += [say("runs.runs", lang)]
        lines += [_run_line(run, clean, lang) for records in runs.values() for run in records]
    return "\n".join(lines) + "\n" if lines else ""


def runs_html(runs: Mapping[str, list[ReportedRun]], speed: Mapping[str, SpeedSummary]) -> str:
    """A small self-contained section for the HTML report ('' when there is nothing to show)."""
    text = runs_text(runs, speed, _kept)  # html.escape'd below: the page holds the values as they are
    if not text:
        return ""
    return (
        '<section id="runs" style="margin:1.5em 1em;font:13px/1.5 system-ui,sans-serif">'
        "<h2>Runs and speed</h2>"
        f'<pre style="white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(text)}</pre></section>'
    )


def runs_sheets(runs: Mapping[str, list[ReportedRun]], speed: Mapping[str, SpeedSummary]) -> list[Sheet]:
    """The workbook's "Runs" and "Speed" sheets (only those with rows)."""
    sheets: list[Sheet] = []
    timed = {m: s for m, s in speed.items() if s["timed_responses"]}
    if timed:
        head = ["model", "timed responses", "latency p50 (ms)", "latency p95 (ms)", "latency mean (ms)",
                "first token p50 (ms)", "output tokens/s", "responses without timings"]  # fmt: skip
        sheet = Sheet("Speed", head)
        for model, s in timed.items():
            lat, ttft = s["latency_ms"], s["ttft_ms"]
            sheet.rows.append(
                [
                    model,
                    s["timed_responses"],
                    lat["p50"],
                    lat["p95"],
                    lat["mean"],
                    ttft["p50"],
                    s["tokens_per_second"],
                    s["untimed_responses"],
                ]
            )
        sheets.append(sheet)
    if runs:
        head = ["model", "part", "started", "finished", "formatkit", "base_url", "parameters", "judge model",
                "judge template", "command", "file"]  # fmt: skip
        sheet = Sheet("Runs", head)
        for records in runs.values():
            for run in records:
                shard: Any = run["shard"] if isinstance(run.get("shard"), dict) else {}
                judge: Any = run["judge"] if isinstance(run.get("judge"), dict) else {}
                sheet.rows.append(
                    [
                        run.get("model"),
                        shard.get("part"),
                        run.get("started"),
                        run.get("finished"),
                        run.get("formatkit_version"),
                        run.get("base_url"),
                        orjson.dumps(run.get("parameters") or {}).decode(),
                        _judge_models(judge) if judge else None,
                        judge.get("template"),
                        run.get("command"),
                        run.get("file"),
                    ]
                )
        sheets.append(sheet)
    return sheets
