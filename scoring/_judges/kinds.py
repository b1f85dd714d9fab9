"""The table of judge kinds: what each LLM-judge metric asks, how it reads the verdict, on which scale, and
how its verdicts are summed up and aggregated.

A judge kind is the implementation of a judge metric of the metric table
(:mod:`scoring._metrics.registry`): the metric's entry names it (``"scoring._judges.absolute:ABSOLUTE"``)
and its module defines it beside the code it runs, so the table of judge kinds is the judge metrics of the
metric table, each resolved to its :class:`JudgeKind`. Nothing outside these entries branches on a judge's
name: the driver (:mod:`scoring._judges.run`), the summary (:mod:`scoring._judges.summary`) and the report's
aggregation read the entry's fields.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from formatkit._core.judge_entry import REFERENCE_OPPONENT, judge_metric, judge_scale
from formatkit._core.record import RecordDict, ResponseDict
from scoring._judges.against import Against, opponent_for
from scoring._judges.call import Ask
from scoring._judges.prompts import Prompts
from scoring._judges.result import Judged
from scoring._judges.scale import Scale, parse_scale
from scoring._judges.templates import Stage
from scoring._metrics.registry import METRICS, implementation, metric_names

__all__ = [
    "Case",
    "Headline",
    "JudgeKind",
    "JudgeOne",
    "Record",
    "Stage",
    "Summarise",
    "SummaryKeys",
    "fallback_judge",
    "fallback_rules",
    "judge_kind",
    "judge_names",
    "kind_of",
    "versus_names",
]


#: A canonical record as the judges read it and write their verdicts into (formatkit's typed record).
Record = RecordDict
#: A judge kind's own keys of the judges' summary: counts, means, the scale's text.
SummaryKeys = dict[str, float | str | None]


@dataclass(frozen=True)
class Case:
    """One response to judge, with what the run gives every kind: the prompts (the kind's stages, in the
    record's language or the user's template), the ``--judge-scale`` and the ``--against`` responses."""

    record: RecordDict
    response: ResponseDict
    index: int
    prompts: Prompts
    scale: Scale
    against: Against | None = None
    against_label: str = REFERENCE_OPPONENT

    def opponent(self) -> tuple[str | None, str]:
        """The text a comparison sets the response against (the reference, or ``--against``'s response),
        and what it is, for the analysis."""
        return opponent_for(self.against, self.against_label, self.record, self.index)


#: Judge one response: build the prompt(s) from the kind's stages, ask, parse the verdict → :class:`Judged`.
JudgeOne = Callable[[Ask, Case], Awaitable[Judged]]
#: The kind's own summary keys, from the judged records, each response's result and the ``--judge-scale``.
Summarise = Callable[[list[RecordDict], list[Judged], Scale], SummaryKeys]
#: The kind's part of the summary's first line for people (``, mean 1.50 on 0-2 (75.00 of 100)``).
Headline = Callable[[Mapping[str, Any]], str]


def _no_keys(records: list[RecordDict], results: list[Judged], scale: Scale) -> SummaryKeys:
    return {}


def _no_headline(summary: Mapping[str, Any]) -> str:
    return ""


@dataclass(frozen=True)
class JudgeKind:
    """One judge metric's behaviour. ``stages``: its prompts, in the order asked (``--judge-template``
    replaces the last, the one that gives the verdict); ``judge``: one response judged."""

    stages: tuple[Stage, ...]
    judge: JudgeOne
    summarise: Summarise = _no_keys
    headline: Headline = _no_headline
    #: Its verdicts are on ``--judge-scale`` (written as the response's ``judge.scale``): the report maps
    #: them onto 0-1. Otherwise a verdict is a score as it is (0..1, or -1..1 for a comparison).
    on_scale: bool = False
    #: A comparison with an opponent (``--against`` applies): verdicts -1..1, the response's judge entry
    #: has ``outcome`` (win/tie/loss), ``orders`` and ``disagree``; the report counts win/tie/loss and a
    #: dataset enters its dimension as its win rate.
    versus: bool = False

    @property
    def lowest(self) -> float:
        """The lowest verdict as the report counts it (``--void-as-zero``): 0, or a loss (-1) for a comparison."""
        return -1.0 if self.versus else 0.0

    def fraction(self, score: Any, judge: Mapping[str, Any]) -> Any:
        """A response's score as the report aggregates it: a verdict on the scale mapped onto 0-1 (2 on
        0-2 is 1.0; None when the score is no number); other kinds' scores pass unchanged."""
        if not self.on_scale:
            return score
        if not isinstance(score, int | float) or isinstance(score, bool):
            return None
        text = judge_scale(judge)
        if text is None:
            return float(score)
        try:
            scale = parse_scale(text)
        except ValueError:
            return float(score)
        return (float(score) - scale.low) / (scale.high - scale.low)


def judge_names() -> list[str]:
    """The judge metrics of the metric table, in table order."""
    return metric_names("judge")


def judge_kind(name: str) -> JudgeKind | None:
    """The judge kind of the metric ``name`` (its module imported on first use); None when ``name`` is no
    judge metric of the table."""
    spec = METRICS.get(name)
    if spec is None or spec.kind != "judge":
        return None
    kind = implementation(spec)
    if not isinstance(kind, JudgeKind):
        raise TypeError(f"judge metric {name}: {spec.implementation!r} is not a JudgeKind")
    return kind


def kind_of(judge: object) -> JudgeKind | None:
    """The judge kind that wrote a response's ``judge`` entry (None for anything else)."""
    name = judge_metric(judge) if isinstance(judge, dict) else None
    return judge_kind(name) if name is not None else None


def fallback_judge(rule_metric: str) -> str | None:
    """The judge metric ``--judge-fallback`` sends the rule metric's unsettled responses to (the rule
    metric's ``judge_fallback`` in the metric table); None when it names none."""
    spec = METRICS.get(rule_metric)
    return spec.judge_fallback if spec is not None else None


def fallback_rules() -> list[str]:
    """The rule metrics ``--judge-fallback`` goes with."""
    return [name for name, spec in METRICS.items() if spec.judge_fallback is not None]


def versus_names() -> list[str]:
    """The judge metrics that compare with an opponent (where ``--against`` applies)."""
    return [name for name in judge_names() if (kind := judge_kind(name)) is not None and kind.versus]
